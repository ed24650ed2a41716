// propose_edit (editor-tools/src/tools/propose-edit.ts), its real handler over
// documents in memory (test/support/memory-editor.ts): the one write policy
// (refused over unsaved changes), applied at once or reviewed, the user's
// answer and changes to the proposal, conflicts, and bad input refused before
// anything is shown.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { unansweredMessage, unsavedChangesMessage } from "../../../editor-state/src/index.js";
import { CHANNEL_ERROR, LIMITS, type ProposeEditResult } from "../../../editor-tools/src/protocol.js";
import { proposeEdit } from "../../../editor-tools/src/tools/propose-edit.js";
import { MemoryEditor, assertRefused } from "../../support/memory-editor.js";

/** A workspace with src/a.ts on the disk, edits set to `setting`. */
function workspace(setting: "apply" | "review"): { editor: MemoryEditor; file: string } {
  const editor = new MemoryEditor();
  editor.setting = setting;
  const file = editor.at("src/a.ts");
  editor.files.set(file, "const a = 1;\nconst b = 2;\n");
  return { editor, file };
}

async function propose(editor: MemoryEditor, params: Record<string, unknown>): Promise<ProposeEditResult> {
  return (await proposeEdit.handle(params, editor)) as ProposeEditResult;
}

describe("propose_edit", () => {
  it("applies at once when the user chose so: edits replace their oldText, the final text comes back", async () => {
    const { editor, file } = workspace("apply");
    const answer = await propose(editor, { path: "src/a.ts", edits: [{ oldText: "b = 2", newText: "b = 3" }] });
    assert.deepEqual(answer, { path: file, decision: "applied", finalText: "const a = 1;\nconst b = 3;\n", message: "applied" });
    assert.deepEqual(editor.reviews, []);
    assert.deepEqual(editor.writes, [{ real: file, text: "const a = 1;\nconst b = 3;\n" }]);
  });

  it("creates a missing file from newText; changes nothing when the file already holds the text", async () => {
    const { editor, file } = workspace("apply");
    const created = await propose(editor, { path: "src/new.ts", newText: "export {};\n" });
    assert.equal(created.decision, "applied");
    assert.equal(editor.files.get(editor.at("src/new.ts")), "export {};\n");
    const same = await propose(editor, { path: file, newText: "const a = 1;\nconst b = 2;\n" });
    assert.deepEqual(same, {
      path: file,
      decision: "applied",
      finalText: "const a = 1;\nconst b = 2;\n",
      message: "nothing to change: the file already holds this text",
    });
    assert.equal(editor.writes.length, 1);
  });

  it("refuses a file the user has unsaved changes to, whatever the setting, and changes nothing", async () => {
    for (const setting of ["apply", "review"] as const) {
      const { editor, file } = workspace(setting);
      editor.open(file, "const a = 1; // typing\nconst b = 2;\n");
      const answer = await propose(editor, { path: file, newText: "x" });
      assert.deepEqual(answer, { path: file, decision: "unsaved", message: `${unsavedChangesMessage(file)}; nothing was changed` });
      assert.deepEqual([editor.reviews.length, editor.writes.length], [0, 0]);
    }
  });

  it("under review: shows the proposal with its title (cut at 200), applies what the user accepted, and says when they changed it", async () => {
    const { editor, file } = workspace("review");
    editor.open(file);
    editor.answerReview = (_real, _current, proposed) => ({ answer: "accepted", text: proposed.replace("3", "4") });
    const answer = await propose(editor, { path: file, edits: [{ oldText: "b = 2", newText: "b = 3" }], title: "t".repeat(250) });
    assert.deepEqual(editor.reviews, [
      { real: file, current: "const a = 1;\nconst b = 2;\n", proposed: "const a = 1;\nconst b = 3;\n", title: "t".repeat(200) },
    ]);
    assert.deepEqual(answer, {
      path: file,
      decision: "accepted",
      finalText: "const a = 1;\nconst b = 4;\n",
      message: "the user changed the proposal, then accepted it (finalText is what was applied)",
    });
    editor.answerReview = (_real, _current, proposed) => ({ answer: "accepted", text: proposed });
    assert.equal((await propose(editor, { path: file, newText: "fresh\n" })).message, "the user accepted the proposal");
  });

  it("under review: a rejection or no answer in time changes nothing", async () => {
    const { editor, file } = workspace("review");
    editor.answerReview = (_real, _current, proposed) => ({ answer: "rejected", text: proposed });
    assert.deepEqual(await propose(editor, { path: file, newText: "x" }), {
      path: file,
      decision: "rejected",
      message: "the user rejected the proposal; nothing was changed",
    });
    editor.answerReview = (_real, _current, proposed) => ({ answer: "unanswered", text: proposed });
    assert.deepEqual(await propose(editor, { path: file, newText: "x" }), { path: file, decision: "unanswered", message: unansweredMessage(file) });
    assert.deepEqual(editor.writes, []);
  });

  it("reports a conflict when the user changed the same part meanwhile, or the editor did not apply the edit", async () => {
    const { editor, file } = workspace("apply");
    editor.writeOutcome = "changed";
    assert.deepEqual(await propose(editor, { path: file, newText: "x" }), {
      path: file,
      decision: "conflict",
      message: "the user changed the same part of the file while reviewing the proposal; nothing was changed: read it again and propose anew",
    });
    editor.writeOutcome = "failed";
    assert.deepEqual(await propose(editor, { path: file, newText: "x" }), {
      path: file,
      decision: "conflict",
      message: "VS Code did not apply the edit (the file may have changed or be read-only)",
    });
  });

  it("says when the user typed into the file while it was applied (it stays unsaved), and caps the final text", async () => {
    const { editor, file } = workspace("apply");
    editor.write = async (real, _document, _current, proposed) => {
      editor.open(real, `${proposed}// typed meanwhile\n`);
      return "applied";
    };
    const answer = await propose(editor, { path: file, newText: "n".repeat(LIMITS.maxAnswerChars + 1) });
    assert.equal(answer.message, "applied (the user typed into the file meanwhile: it stays unsaved)");
    // One "n" and the 19 characters typed over the cap.
    assert.ok(answer.finalText?.startsWith("n".repeat(LIMITS.maxAnswerChars)));
    assert.equal(answer.finalText?.slice(LIMITS.maxAnswerChars), "… (20 more characters)");
  });

  it("refuses bad input before showing anything: untrusted workspace, outside path, both or neither text, oldText not once", async () => {
    const { editor, file } = workspace("review");
    await assertRefused(
      propose(editor, { path: "../../outside.ts", newText: "x" }),
      CHANNEL_ERROR.outsideWorkspace,
      /outside\.ts is outside this window's workspace folders/,
    );
    await assertRefused(propose(editor, { path: file }), CHANNEL_ERROR.invalidParams, /^Give either newText/);
    await assertRefused(propose(editor, { path: file, newText: "x", edits: [{ oldText: "a", newText: "b" }] }), CHANNEL_ERROR.invalidParams, /not both/);
    await assertRefused(
      propose(editor, { path: file, edits: [{ oldText: "nowhere", newText: "b" }] }),
      CHANNEL_ERROR.invalidParams,
      /^edit 1: oldText does not occur in the file/,
    );
    await assertRefused(
      propose(editor, { path: file, edits: [{ oldText: "const", newText: "let" }] }),
      CHANNEL_ERROR.invalidParams,
      /^edit 1: oldText occurs more than once/,
    );
    editor.isTrusted = false;
    await assertRefused(
      propose(editor, { path: file, newText: "x" }),
      CHANNEL_ERROR.failed,
      /^this workspace is not trusted: VS Code takes no edits from agents in it$/,
    );
    assert.deepEqual([editor.reviews.length, editor.writes.length], [0, 0]);
  });
});
