// The frontend's command line. Toad takes the `"<conductor> run"` string and
// runs it with the platform's shell, so each word must survive that shell
// (checked against the real /bin/sh, with a conductor in a folder whose name
// has spaces and quotes); the built-in chat gets the conductor as a program and
// its arguments, which its own parser gives back word for word.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { builtinChatArgs, commandLine, conductorRunCommand, quotePosix, toadArgs } from "../../../extension/src/panel/frontend-command-line.js";
import { chooseFrontend, findProgram } from "../../../extension/src/panel/frontend-finder.js";
import { tempDir } from "../../support/processes.js";
import { parseArgs } from "../../../webchat/src/args.js";

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

  it('builds Toad\'s `acp "<conductor> run"`, quoted once', () => {
    const conductor = { program: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron", args: ["/ext/dist/symposium-conductor.mjs"] };
    const run = conductorRunCommand(conductor, "posix");
    assert.equal(run, "'/Applications/Visual Studio Code.app/Contents/MacOS/Electron' /ext/dist/symposium-conductor.mjs run");
    assert.deepEqual(toadArgs(conductor, "posix"), ["acp", run]);
    // cmd.exe's rules are tested in test/unit/acp-wire/platform-windows-command-line.test.ts.
  });

  it(
    "Toad's shell starts a conductor whose path has spaces and quotes, with exactly its words",
    { skip: process.platform === "win32" ? "POSIX shell only" : false },
    () => {
      const folder = path.join(tempDir("conductor-path-"), `my "odd" folder's $HOME`);
      fs.mkdirSync(folder);
      const script = path.join(folder, "symposium-conductor.mjs");
      fs.writeFileSync(script, "console.log(JSON.stringify({ argv: process.argv.slice(1), runAsNode: process.env.ELECTRON_RUN_AS_NODE }));\n");
      const [, run] = toadArgs({ program: process.execPath, args: [script], env: { ELECTRON_RUN_AS_NODE: "1" } }, "posix");
      // Toad runs its agent command as `sh -c COMMAND` (create_subprocess_shell).
      const out = JSON.parse(execFileSync("/bin/sh", ["-c", run!], { encoding: "utf8" })) as { argv: string[]; runAsNode: string };
      assert.deepEqual(out, { argv: [script, "run"], runAsNode: "1" });
    },
  );

  it("gives the built-in chat the conductor as a program and its arguments: its parser reads back every word, nothing quoted", () => {
    for (const [program, script] of [
      ["/Applications/Visual Studio Code.app/Contents/MacOS/Electron", `/ext's "dir"/dist/symposium-conductor.mjs`],
      ["C:\\Program Files\\Microsoft VS Code\\Code.exe", "C:\\Users\\me\\.vscode\\ext (1)\\dist\\symposium-conductor.mjs"],
      ["/usr/bin/node", "-starts-with-a-dash/symposium-conductor.mjs"],
    ] as const) {
      const args = builtinChatArgs({ program, args: [script], env: { ELECTRON_RUN_AS_NODE: "1" } }, "/work/my project");
      assert.ok(args.includes(`--agent-arg=${script}`), "the script's path, as it is");
      // The host adds its own options after these (panel-host/src/frontend.ts).
      const parsed = parseArgs([...args, "--serve", "--port", "0", "--host", "127.0.0.1"], "/");
      assert.deepEqual(parsed.command, { kind: "program", program, args: [script, "run"], env: { ELECTRON_RUN_AS_NODE: "1" } });
      assert.equal(parsed.projectDir, "/work/my project");
    }
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
