// The frontend's command line: the `"<conductor> run"` string goes through a
// shell (the frontend runs it with the platform's shell), so each word must
// survive it. POSIX quoting is checked against the real /bin/sh.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { commandLine, conductorRunCommand, frontendArgs, quotePosix } from "../../../extension/src/frontend-command-line.js";
import { chooseFrontend, findProgram } from "../../../extension/src/frontend-finder.js";
import { tempDir } from "../../support/processes.js";

const awkward = ["/opt/My Apps/conductor", "it's", 'say "hi"', "$HOME", "`id`", "a;b&c|d", "back\\slash", "tab\there", "ünïcode", "*", ""];

describe("frontend command line", () => {
  it("quotes words so /bin/sh passes each one through unchanged", { skip: process.platform === "win32" ? "POSIX shell only" : false }, () => {
    const line = commandLine(["printf", "%s\\n", ...awkward], "posix");
    const out = execFileSync("/bin/sh", ["-c", line], { encoding: "utf8" });
    assert.deepEqual(out.split("\n").slice(0, -1), awkward);
  });

  it("leaves plain words bare for POSIX", () => {
    assert.equal(quotePosix("/usr/bin/node"), "/usr/bin/node");
    assert.equal(quotePosix("it's"), `'it'\\''s'`);
  });

  it("builds `<conductor> run` and the frontend's arguments", () => {
    const conductor = { program: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron", args: ["/ext/dist/symposium-conductor.mjs"] };
    const run = conductorRunCommand(conductor, "posix");
    assert.equal(run, "'/Applications/Visual Studio Code.app/Contents/MacOS/Electron' /ext/dist/symposium-conductor.mjs run");
    assert.deepEqual(frontendArgs(run), ["acp", run]);
    assert.deepEqual(frontendArgs(run, "/work/project"), ["acp", run, "--project-dir", "/work/project"]);
    // cmd.exe's rules are tested in test/unit/acp-wire/platform-windows-command-line.test.ts.
  });
});

describe("frontend finder", () => {
  const bin = tempDir("symposium-bin-");
  const toad = path.join(bin, "toad");
  fs.writeFileSync(toad, "#!/bin/sh\n", { mode: 0o755 });
  fs.writeFileSync(path.join(bin, "not-executable"), "", { mode: 0o644 });
  const env = { PATH: `/nonexistent:${bin}` };

  it("finds a program on PATH, executable files only", { skip: process.platform === "win32" ? "POSIX modes" : false }, () => {
    assert.equal(findProgram("toad", env, "linux"), toad);
    assert.equal(findProgram("not-executable", env, "linux"), undefined);
    assert.equal(findProgram(toad, {}, "linux"), toad);
  });

  it("uses Toad when found, the built-in chat when asked or when Toad is missing", { skip: process.platform === "win32" ? "POSIX modes" : false }, () => {
    const common = { runtime: "/usr/bin/node", builtinScript: "/ext/dist/symposium-webchat.mjs", env, platform: "linux" as const };
    assert.deepEqual(chooseFrontend({ ...common, toadCommand: "toad" }), { kind: "toad", program: toad, args: [] });
    assert.deepEqual(chooseFrontend({ ...common, toadCommand: "builtin" }), {
      kind: "builtin",
      program: "/usr/bin/node",
      args: ["/ext/dist/symposium-webchat.mjs"],
    });
    const missing = chooseFrontend({ ...common, toadCommand: "toad-nowhere" });
    assert.equal(missing.kind, "builtin");
    assert.match((missing as { toadMissing: string }).toadMissing, /'toad-nowhere' \(symposium\.toadCommand\) was not found on PATH/);
  });
});
