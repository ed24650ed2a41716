// The one policy for an agent's write to a file open in the editor
// (editor-state/src/agent-writes.ts), and the same situation met under two
// frontends: Toad (or any ACP client), whose writes only the editor-context
// proxy sees, and the built-in chat, whose writes VS Code answers over the
// bridge (also with editor context off, when no proxy runs). The agent is told
// the same thing by both, and nothing is written.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REVIEW_ANSWER_GRACE_MS, REVIEW_ANSWER_MS, decideAgentWrite, unsavedChangesMessage, type AgentEditsSetting } from "../../../editor-state/src/index.js";
import { StateFileReader, UnsavedFiles } from "../../../editor-context-proxy/src/index.js";
import { EDIT_ANSWER_MS, WorkspaceEdits, writeRefusal } from "../../../webchat/src/workspace-edits.js";
import { tempDir } from "../../support/processes.js";

const SETTINGS: AgentEditsSetting[] = ["apply", "review"];

/** A project with src/x.rs, and a window's state file saying the editor holds it unsaved. */
function projectWithUnsavedFile() {
  const project = fs.realpathSync(tempDir("symposium-project-"));
  const file = path.join(project, "src", "x.rs");
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, "fn x() {}\n");
  const stateDir = tempDir("symposium-window-");
  fs.chmodSync(stateDir, 0o700);
  const snapshot = "editor-state-0123.unsaved-0.txt";
  fs.writeFileSync(path.join(stateDir, snapshot), "fn x() { /* typed, not saved */ }\n", { mode: 0o600 });
  const stateFile = path.join(stateDir, "editor-state-0123456789abcdef0123456789abcdef.json");
  const state = { activeFile: file, languageId: "rust", workspaceFolders: [project], unsavedDocuments: [{ path: file, version: 3, snapshot }] };
  fs.writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  return { project, file, stateFile };
}

const WRITE = (file: string) => ({
  jsonrpc: "2.0" as const,
  id: 7,
  method: "fs/write_text_file",
  params: { sessionId: "s", path: file, content: "fn x() { agent }\n" },
});

describe("an agent's write to a file open in the editor", () => {
  it("is decided by one table: never over unsaved changes, else as the setting says", () => {
    for (const setting of SETTINGS) {
      assert.equal(decideAgentWrite({ open: false, unsaved: false, setting }), "disk");
      assert.equal(decideAgentWrite({ open: true, unsaved: true, setting }), "refuseUnsaved");
      assert.equal(decideAgentWrite({ open: true, unsaved: true, tooLarge: true, setting }), "refuseUnsaved");
      assert.equal(decideAgentWrite({ open: true, unsaved: false, tooLarge: true, setting }), "refuseTooLarge");
      assert.equal(decideAgentWrite({ open: true, unsaved: false, setting }), setting);
    }
  });

  it("over unsaved changes: Toad (the proxy answers) and the built-in chat (VS Code answers, context on or off) tell the agent the same, and write nothing", async () => {
    const { project, file, stateFile } = projectWithUnsavedFile();
    const before = fs.readFileSync(file, "utf8");

    // Toad, or any client: only the editor-context proxy sees the write, and answers it itself.
    const proxy = new UnsavedFiles(stateFile, () => new StateFileReader(stateFile).read());
    const fromProxy = proxy.answer(WRITE(file));
    assert.ok(fromProxy && "error" in fromProxy, "the proxy answers the write itself: the client never gets it");

    // The built-in chat: its server offers the write to the page in VS Code, whose answer is the policy's.
    const decision = decideAgentWrite({ open: true, unsaved: true, setting: "apply" });
    assert.equal(decision, "refuseUnsaved");
    let offered: { id: string } | undefined;
    const page = {};
    const edits = new WorkspaceEdits((message) => {
      offered = message;
      return [page];
    });
    const result = edits.offer(file, WRITE(file).params.content);
    edits.answer(page, offered!.id, "unsaved"); // what extension/src/turns/agent-edits.ts answers for refuseUnsaved
    const fromChat = writeRefusal(await result, file, WRITE(file).params.content.length, [project]);

    assert.deepEqual(fromChat, fromProxy.error, "the same error, code and data included");
    assert.equal(fromChat?.message, unsavedChangesMessage("src/x.rs"));
    assert.equal(fs.readFileSync(file, "utf8"), before, "nothing written");
  });

  it("has one review deadline: whoever waits for the window waits that and the answer's way back", () => {
    assert.equal(REVIEW_ANSWER_MS, 10 * 60_000);
    assert.equal(EDIT_ANSWER_MS, REVIEW_ANSWER_MS + REVIEW_ANSWER_GRACE_MS, "the chat server's backstop");
  });
});
