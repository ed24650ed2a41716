// editor_state, read_file and diagnostics (editor-tools/src/tools/), their real
// handlers over documents in memory (test/support/memory-editor.ts): what the
// user sees, unsaved text over the disk's, pages and cuts at the bounds of
// protocol.ts, and bad input refused with the channel's codes.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { CHANNEL_ERROR, LIMITS, type ReadFileResult } from "../../../editor-tools/src/protocol.js";
import { diagnostics } from "../../../editor-tools/src/tools/diagnostics.js";
import { editorState } from "../../../editor-tools/src/tools/editor-state.js";
import { readFile } from "../../../editor-tools/src/tools/read-file.js";
import { MEMORY_ROOT, MemoryEditor, assertRefused, lineRange } from "../../support/memory-editor.js";

describe("editor_state", () => {
  it("answers the active file, its selections' text (1-based), the visible lines, the open editors and the folders", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("src/a.ts");
    const document = editor.open(file, "const a = 1;\nconst b = a + 1;\n");
    editor.active = {
      name: file,
      languageId: "typescript",
      document,
      selections: [lineRange(1, 6, 7)],
      visibleRanges: [{ start: { line: 0, character: 0 }, end: { line: 2, character: 0 } }],
    };
    editor.tabs = [{ path: file, unsaved: true, active: true }];
    assert.deepEqual(await editorState.handle({}, editor), {
      activeFile: file,
      languageId: "typescript",
      unsaved: true,
      selections: [{ start: { line: 2, character: 7 }, end: { line: 2, character: 8 }, text: "b" }],
      visibleLines: [{ startLine: 1, endLine: 3 }],
      openEditors: [{ path: file, unsaved: true, active: true }],
      omittedEditors: 0,
      workspaceFolders: editor.folders(),
    });
  });

  it("cuts a huge selection at LIMITS.maxSelectionChars and lists at most LIMITS.maxOpenEditors editors", async () => {
    const editor = new MemoryEditor();
    const text = "x".repeat(LIMITS.maxSelectionChars + 500);
    const document = editor.open(editor.at("big.txt"), text);
    editor.active = { name: document.path, languageId: "plaintext", document, selections: [lineRange(0, 0, text.length)], visibleRanges: [] };
    editor.tabs = Array.from({ length: LIMITS.maxOpenEditors + 3 }, (_, index) => ({ path: editor.at(`f${index}.ts`), unsaved: false, active: false }));
    const answer = (await editorState.handle({}, editor)) as { selections: Array<{ text: string }>; openEditors: unknown[]; omittedEditors: number };
    assert.equal(answer.selections[0]!.text, `${"x".repeat(LIMITS.maxSelectionChars)}… (500 more characters)`);
    assert.equal(answer.openEditors.length, LIMITS.maxOpenEditors);
    assert.equal(answer.omittedEditors, 3);
  });

  it("without an editor: no active file, no selections, the folders still", async () => {
    const editor = new MemoryEditor();
    const answer = (await editorState.handle({}, editor)) as Record<string, unknown>;
    assert.equal(answer.activeFile, null);
    assert.equal(answer.languageId, null);
    assert.equal(answer.unsaved, false);
    assert.deepEqual(answer.selections, []);
    assert.deepEqual(answer.workspaceFolders, editor.folders());
  });
});

describe("read_file", () => {
  it("answers an open document's unsaved text, not the disk's", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("src/a.ts");
    editor.files.set(file, "saved\n");
    editor.open(file, "typed but not saved\n");
    const answer = (await readFile.handle({ path: "src/a.ts" }, editor)) as ReadFileResult;
    assert.deepEqual(answer, { path: file, source: "editor", unsaved: true, startLine: 1, endLine: 2, totalLines: 2, text: "typed but not saved\n" });
    assert.deepEqual(editor.diskReads, []);
  });

  it("reads a file no editor holds from the disk, a page of lines at a time (nextLine)", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("lines.txt");
    editor.files.set(file, Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join("\n"));
    const first = (await readFile.handle({ path: file, limit: 4 }, editor)) as ReadFileResult;
    assert.deepEqual(first, {
      path: file,
      source: "disk",
      unsaved: false,
      startLine: 1,
      endLine: 4,
      totalLines: 10,
      text: "line 1\nline 2\nline 3\nline 4",
      nextLine: 5,
    });
    const last = (await readFile.handle({ path: file, line: 9, limit: 4 }, editor)) as ReadFileResult;
    assert.equal(last.text, "line 9\nline 10");
    assert.equal(last.nextLine, undefined);
  });

  it("stops a page at LIMITS.maxAnswerChars and cuts a line longer than that", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("wide.txt");
    const half = "y".repeat(LIMITS.maxAnswerChars / 2);
    editor.files.set(file, [half, half, "z".repeat(LIMITS.maxAnswerChars + 10)].join("\n"));
    const first = (await readFile.handle({ path: file }, editor)) as ReadFileResult;
    assert.equal(first.endLine, 1);
    assert.equal(first.nextLine, 2);
    const long = (await readFile.handle({ path: file, line: 3 }, editor)) as ReadFileResult;
    assert.equal(long.text, `${"z".repeat(LIMITS.maxAnswerChars)}… (line cut at ${LIMITS.maxAnswerChars} characters)`);
  });

  it("refuses a path outside the workspace folders, bad numbers, and says why a file cannot be read", async () => {
    const editor = new MemoryEditor();
    await assertRefused(
      readFile.handle({ path: "../other/secret.txt" }, editor),
      CHANNEL_ERROR.outsideWorkspace,
      /secret\.txt is outside this window's workspace folders \(.*project\); refused/,
    );
    await assertRefused(readFile.handle({ path: `${MEMORY_ROOT}/elsewhere.txt` }, editor), CHANNEL_ERROR.outsideWorkspace, /outside/);
    await assertRefused(readFile.handle({ path: "" }, editor), CHANNEL_ERROR.invalidParams, /^path must be a non-empty string$/);
    await assertRefused(readFile.handle({ path: "a.txt", line: 0 }, editor), CHANNEL_ERROR.invalidParams, /^line must be an integer of at least 1$/);
    await assertRefused(readFile.handle({ path: "a.txt", limit: 1.5 }, editor), CHANNEL_ERROR.invalidParams, /^limit must be an integer of at least 1$/);
    await assertRefused(readFile.handle({ path: "missing.txt" }, editor), CHANNEL_ERROR.failed, /^cannot read .*missing\.txt: ENOENT$/);
    await assertRefused(readFile.handle({ path: "x" }, new MemoryEditor([])), CHANNEL_ERROR.outsideWorkspace, /folders \(none\); refused/);
  });
});

describe("diagnostics", () => {
  it("lists the workspace's problems, errors first, 1-based, messages capped, outside files left out", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("src/a.ts");
    editor.diagnostics.set(file, [
      { range: lineRange(2, 4, 9), severity: 1, message: "unused", source: "ts", code: 6133 },
      { range: lineRange(0, 0, 1), severity: 0, message: "m".repeat(1200) },
    ]);
    editor.diagnostics.set(`${MEMORY_ROOT}/elsewhere/b.ts`, [{ range: lineRange(0, 0), severity: 0, message: "not ours" }]);
    const answer = (await diagnostics.handle({}, editor)) as { total: number; diagnostics: Array<Record<string, unknown>> };
    assert.equal(answer.total, 2);
    assert.deepEqual(answer.diagnostics[0], {
      path: file,
      severity: "error",
      line: 1,
      character: 1,
      endLine: 1,
      endCharacter: 2,
      message: `${"m".repeat(1000)}… (200 more characters)`,
      source: null,
      code: null,
    });
    assert.deepEqual(answer.diagnostics[1], {
      path: file,
      severity: "warning",
      line: 3,
      character: 5,
      endLine: 3,
      endCharacter: 10,
      message: "unused",
      source: "ts",
      code: 6133,
    });
  });

  it("pages by LIMITS.pageSize, and answers one file's when given its path", async () => {
    const editor = new MemoryEditor();
    const file = editor.at("many.ts");
    editor.diagnostics.set(
      file,
      Array.from({ length: LIMITS.pageSize + 5 }, (_, index) => ({ range: lineRange(index, 0), severity: 2, message: `note ${index}` })),
    );
    editor.diagnostics.set(editor.at("other.ts"), [{ range: lineRange(0, 0), severity: 0, message: "elsewhere" }]);
    const first = (await diagnostics.handle({ path: "many.ts" }, editor)) as { total: number; offset: number; nextOffset?: number; diagnostics: unknown[] };
    assert.deepEqual([first.total, first.offset, first.nextOffset, first.diagnostics.length], [LIMITS.pageSize + 5, 0, LIMITS.pageSize, LIMITS.pageSize]);
    const second = (await diagnostics.handle({ path: "many.ts", offset: first.nextOffset }, editor)) as {
      nextOffset?: number;
      diagnostics: Array<{ message: string }>;
    };
    assert.equal(second.nextOffset, undefined);
    assert.deepEqual(
      second.diagnostics.map((each) => each.message),
      ["note 100", "note 101", "note 102", "note 103", "note 104"],
    );
    await assertRefused(diagnostics.handle({ offset: -1 }, editor), CHANNEL_ERROR.invalidParams, /^offset must be an integer of at least 0$/);
    await assertRefused(diagnostics.handle({ path: "/etc/passwd" }, editor), CHANNEL_ERROR.outsideWorkspace, /passwd is outside/);
  });
});
