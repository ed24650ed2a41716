// An agent's write offered to VS Code (issue 23, item 4), without VS Code: the
// bridge's check of the `applyEdit` request (parseFromPanel), the chat server's
// bookkeeping of the pages' answers (WorkspaceEdits), and which paths it offers
// at all (editorPath: inside the project, within the bridge's size cap).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { MAX_BRIDGE_TEXT, parseFromPanel } from "../webview/src/panel-messages.js";
import { ProjectFiles } from "../webchat/src/project-files.js";
import { editorPath, MAX_OFFERED_CHARS, WorkspaceEdits } from "../webchat/src/workspace-edits.js";
import { tempDir } from "./support/processes.js";

const request = (body: unknown) => parseFromPanel({ type: "request", request: body });

describe("the bridge's applyEdit request", () => {
  it("passes a well-formed one, rebuilt from its known fields", () => {
    assert.deepEqual(request({ kind: "applyEdit", id: "edit-1", path: "/w/a.txt", content: "x\n", extra: 1 }), {
      type: "request",
      request: { kind: "applyEdit", id: "edit-1", path: "/w/a.txt", content: "x\n" },
    });
  });

  it("drops one with a bad id, path or content", () => {
    for (const body of [
      { kind: "applyEdit", id: "", path: "/w/a", content: "" },
      { kind: "applyEdit", id: "a b", path: "/w/a", content: "" },
      { kind: "applyEdit", id: "x".repeat(65), path: "/w/a", content: "" },
      { kind: "applyEdit", id: "e", path: "", content: "" },
      { kind: "applyEdit", id: "e", path: "/w/a\0b", content: "" },
      { kind: "applyEdit", id: "e", path: "/w/a", content: 5 },
      { kind: "applyEdit", id: "e", path: "/w/a", content: "x".repeat(MAX_BRIDGE_TEXT + 1) },
      { kind: "applyEdit", id: "e", path: "/w/a" },
    ])
      assert.equal(request(body), null, JSON.stringify(body).slice(0, 80));
  });
});

describe("WorkspaceEdits (the chat server's side)", () => {
  const pageA = {};
  const pageB = {};

  it("answers notOpen at once when no page is attached", async () => {
    const edits = new WorkspaceEdits(() => []);
    assert.equal(await edits.offer("/w/a", "x"), "notOpen");
  });

  it("takes the first applied or rejected answer, and ignores unknown ids, values and pages", async () => {
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA, pageB]));
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-99", "applied");
    edits.answer(pageA, sent[0], "maybe");
    edits.answer({}, sent[0], "applied");
    edits.answer(pageA, sent[0], "notOpen");
    edits.answer(pageB, sent[0], "rejected");
    assert.equal(await result, "rejected");
  });

  it("answers notOpen when every page says so or leaves, and when none answers in time", async () => {
    const edits = new WorkspaceEdits(() => [pageA, pageB]);
    const left = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-1", "notOpen");
    edits.pageLeft(pageA); // already answered: does not count twice
    edits.pageLeft(pageB);
    assert.equal(await left, "notOpen");
    assert.equal(await new WorkspaceEdits(() => [pageA], 20).offer("/w/a", "x"), "notOpen");
  });
});

describe("editorPath (what the chat server offers VS Code)", () => {
  it("offers a path whose folder is inside the project (real path), nothing outside it or too large", async () => {
    const project = fs.realpathSync(tempDir("symposium-edits-"));
    fs.mkdirSync(path.join(project, "src"));
    const files = await ProjectFiles.open(project);
    assert.equal(editorPath(files, project, path.join(project, "src", "a.rs"), "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, "src/a.rs", "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, path.join(project, "..", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "new", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "a.rs"), "x".repeat(MAX_OFFERED_CHARS + 1)), undefined);
  });
});
