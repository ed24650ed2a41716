// Looking a program up on PATH by each platform's rules: Windows runs only
// files with a PATHEXT extension and tries them in PATHEXT's order (Microsoft
// Learn, "Command search sequence" for cmd.exe), so `toad.exe` wins over the
// extension-less `toad` script Git Bash installs next to it; POSIX takes the
// name as written. Real files in a temporary directory.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { samePath } from "../../../acp-wire/src/run-as-node.js";
import { findProgram, programCandidates } from "../../../extension/src/panel/frontend-finder.js";
import { tempDir } from "../../support/processes.js";

const PATHEXT = ".com;.exe;.bat;.cmd";

function executable(dir: string, name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
  return file;
}

describe("platform: program lookup", () => {
  it("on Windows, tries PATHEXT's extensions in order before the bare name", () => {
    assert.deepEqual(programCandidates("C:\\bin\\toad", { PATHEXT: ".COM;.EXE;.BAT;.CMD" }, "win32"), [
      "C:\\bin\\toad.COM",
      "C:\\bin\\toad.EXE",
      "C:\\bin\\toad.BAT",
      "C:\\bin\\toad.CMD",
      "C:\\bin\\toad",
    ]);
    assert.deepEqual(
      programCandidates("npx.cmd", { PATHEXT: ".COM;.EXE;.BAT;.CMD" }, "win32")[0],
      "npx.cmd",
      "a name with its extension is tried as written first",
    );
    assert.deepEqual(programCandidates("toad", {}, "win32").slice(0, 2), ["toad.COM", "toad.EXE"], "Windows' default PATHEXT when unset");
    assert.deepEqual(programCandidates("toad", { PATHEXT }, "linux"), ["toad"]);
  });

  it("on Windows, finds toad.exe, not the extension-less toad beside it", () => {
    const bin = tempDir("symposium-pathext-");
    executable(bin, "toad");
    const exe = executable(bin, "toad.exe");
    assert.equal(findProgram("toad", { Path: `C:\\nowhere;${bin}`, PATHEXT }, "win32"), exe, "PATH under Windows' spelling `Path` too");
    assert.equal(findProgram(path.join(bin, "toad"), { PATHEXT }, "win32"), exe, "a path without extension as well");
  });

  it("on Windows, a .cmd earlier on PATH wins over an .exe later on PATH (directories first, then extensions)", () => {
    const [first, second] = [tempDir("symposium-pathext-"), tempDir("symposium-pathext-")];
    const cmd = executable(first, "agent.cmd");
    executable(second, "agent.exe");
    assert.equal(findProgram("agent", { PATH: `${first};${second}`, PATHEXT }, "win32"), cmd);
  });

  it("on POSIX, takes the name as written", { skip: process.platform === "win32" ? "POSIX modes" : false }, () => {
    const bin = tempDir("symposium-path-");
    const toad = executable(bin, "toad");
    executable(bin, "toad.exe");
    assert.equal(findProgram("toad", { PATH: bin }, "linux"), toad);
  });

  it("compares paths as the platform's file names do: case-blind on Windows only", () => {
    assert.ok(samePath("C:\\Program Files\\Microsoft VS Code\\Code.exe", "c:\\program files\\microsoft vs code\\CODE.EXE", "win32"));
    assert.ok(samePath("C:/Tools/../Tools/x.exe", "C:\\tools\\X.EXE", "win32"));
    assert.ok(!samePath("/usr/bin/Node", "/usr/bin/node", "linux"));
    assert.ok(samePath("/usr/bin/../bin/node", "/usr/bin/node", "linux"));
  });
});
