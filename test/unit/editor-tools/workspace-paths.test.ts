// Whether a path an agent names is inside the workspace
// (editor-tools/src/workspace-paths.ts, the check of the editor tools, the chat
// bridge and propose_edit): a dangling link, its target missing, is judged by
// where it points, never by the folder it sits in (issue 44, found by reading).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";
import { scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();
const POSIX_ONLY = process.platform === "win32" ? "symlinks need a privilege on Windows" : false;

describe("insideFolders and links whose target is missing", { skip: POSIX_ONLY }, () => {
  function workspaceWithOutside(): { workspace: string; outside: string } {
    const dir = scratch("symposium-paths-");
    const workspace = path.join(dir, "ws");
    const outside = path.join(dir, "outside");
    fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
    fs.mkdirSync(outside);
    return { workspace, outside };
  }

  it("a dangling link to a new file outside the workspace is refused, as the name itself and as a folder on the way", () => {
    const { workspace, outside } = workspaceWithOutside();
    fs.symlinkSync(path.join(outside, "planted.txt"), path.join(workspace, "src", "notes.txt"));
    fs.symlinkSync(path.join(outside, "no-such-dir"), path.join(workspace, "build"));
    fs.symlinkSync("../../outside/relative.txt", path.join(workspace, "src", "relative.txt"));
    assert.equal(insideFolders("src/notes.txt", [workspace]), undefined);
    assert.equal(insideFolders(path.join(workspace, "src", "notes.txt"), [workspace]), undefined);
    assert.equal(insideFolders("build/out.js", [workspace]), undefined);
    assert.equal(insideFolders("src/relative.txt", [workspace]), undefined);
  });

  it("a dangling link inside the workspace resolves to its target there; a loop of links is refused", () => {
    const { workspace } = workspaceWithOutside();
    fs.symlinkSync("later.ts", path.join(workspace, "src", "alias.ts"));
    assert.equal(insideFolders("src/alias.ts", [workspace]), path.join(fs.realpathSync(workspace), "src", "later.ts"));
    fs.symlinkSync("loop-b", path.join(workspace, "loop-a"));
    fs.symlinkSync("loop-a", path.join(workspace, "loop-b"));
    assert.equal(insideFolders("loop-a", [workspace]), undefined);
    assert.equal(insideFolders("loop-a/x.ts", [workspace]), undefined);
  });
});
