// The state file's writer side (editor-state/src/build.ts): plain editor facts
// in, the file's object out; and the parser reading back what was written.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  DEFAULT_STATE_LIMITS,
  buildStateFile,
  parseEditorState,
  selectionEndLine,
  editorTargetLabel,
  serializeStateFile,
  stateFileWriterPid,
  type DiagnosticFacts,
  type EditorFacts,
  type StateFacts,
} from "../../../editor-state/src/index.js";
import { editorOn } from "../../support/editor-facts.js";

function facts(editor: EditorFacts | null): StateFacts {
  return { editor, workspaceFolders: ["/project"], writerPid: 4242, now: new Date("2025-01-02T03:04:05.000Z") };
}

const SOURCE = 'fn main() {\n    let x = 1;\n    println!("{x}");\n}\n';

describe("state file builder", () => {
  it("writes the design's four fields with their meaning, plus the additions", () => {
    const file = buildStateFile(facts(editorOn(SOURCE, [[0, SOURCE.indexOf("}\n") + 1]])));
    assert.deepEqual(file, {
      version: 1,
      activeFile: "/project/src/main.rs",
      languageId: "rust",
      selection: { text: SOURCE.slice(0, -1), startLine: 1, endLine: 4 },
      cursor: { line: 4, character: 2 },
      isDirty: false,
      document: null,
      diagnostics: [],
      selectionTruncated: false,
      omittedSelections: 0,
      omittedDiagnostics: 0,
      workspaceFolders: ["/project"],
      writerPid: 4242,
      updatedAt: "2025-01-02T03:04:05.000Z",
    });
    const parsed = parseEditorState(JSON.parse(JSON.stringify(file)));
    assert.ok(parsed);
    assert.deepEqual(parsed.selections, [file.selection], "one selection is written once, as `selection`");
    assert.equal(parsed.writerPid, 4242);
    assert.equal(stateFileWriterPid(JSON.stringify(file)), 4242);
    assert.equal(stateFileWriterPid("{ broken"), null);
  });

  it("reports the last line that holds selected text (Shift+Down ends at column 0 of the next line)", () => {
    assert.equal(selectionEndLine({ line: 0, character: 0 }, { line: 3, character: 0 }), 3);
    assert.equal(selectionEndLine({ line: 0, character: 0 }, { line: 3, character: 1 }), 4);
    assert.equal(selectionEndLine({ line: 2, character: 4 }, { line: 2, character: 4 }), 3, "empty: the cursor's line");
    const shiftDownTwice = buildStateFile(facts(editorOn(SOURCE, [[0, SOURCE.indexOf("    println")]])));
    assert.deepEqual(shiftDownTwice.selection, { text: "fn main() {\n    let x = 1;\n", startLine: 1, endLine: 2 });
  });

  it("writes every selection, primary first, and the cursor when nothing is selected", () => {
    const second = SOURCE.indexOf("let");
    const multi = buildStateFile(
      facts(
        editorOn(SOURCE, [
          [second, second + 3],
          [0, 2],
          [20, 20],
        ]),
      ),
    );
    assert.deepEqual(
      multi.selections?.map((s) => s.text),
      ["let", "fn"],
      "the empty third cursor is not a selection",
    );
    assert.equal(multi.selection?.text, "let");
    const cursorOnly = buildStateFile(facts(editorOn(SOURCE, [[second, second]])));
    assert.equal(cursorOnly.selection, null);
    assert.equal(cursorOnly.selections, undefined);
    assert.deepEqual(cursorOnly.cursor, { line: 2, character: 5 });
  });

  it("caps selected text, reading no more than the cap, and says so", () => {
    const line = "x".repeat(99) + "\n";
    const huge = line.repeat(5_000); // 500,000 characters
    const editor = editorOn(huge, [
      [0, huge.length],
      [100, 200],
    ]);
    const file = buildStateFile(facts(editor));
    assert.equal(file.selection?.text.length, DEFAULT_STATE_LIMITS.maxSelectionChars);
    assert.equal(file.selection?.totalChars, huge.length);
    assert.equal(file.selection?.endLine, 5_000);
    assert.equal(file.selectionTruncated, true);
    assert.equal(file.omittedSelections, 1, "the budget is spent: the second selection is left out");
    assert.deepEqual(editor.reads, [DEFAULT_STATE_LIMITS.maxSelectionChars], "one bounded read");
    // With two selections the primary is written twice (the design's `selection`, and `selections[0]`).
    assert.ok(JSON.stringify(file).length < 2 * DEFAULT_STATE_LIMITS.maxSelectionChars + 2_000);
    const single = buildStateFile(facts(editorOn(huge, [[0, huge.length]])));
    assert.ok(JSON.stringify(single).length < DEFAULT_STATE_LIMITS.maxSelectionChars + 2_000, "one selection is written once");
  });

  it("never keeps half of a surrogate pair when it cuts", () => {
    const text = "a" + "😀".repeat(10);
    const file = buildStateFile(facts(editorOn(text, [[0, text.length]])), { ...DEFAULT_STATE_LIMITS, maxSelectionChars: 4 });
    assert.equal(file.selection?.text, "a😀");
    assert.equal(file.selection?.totalChars, text.length);
  });

  it("caps the number of selections", () => {
    const text = "ab".repeat(300);
    const ranges = Array.from({ length: 300 }, (_, index) => [index * 2, index * 2 + 1] as [number, number]);
    const file = buildStateFile(facts(editorOn(text, ranges)));
    assert.equal(file.selections?.length, DEFAULT_STATE_LIMITS.maxSelections);
    assert.equal(file.omittedSelections, 200);
    assert.equal(file.selectionTruncated, true);
  });

  it("keeps errors and warnings that overlap the selection, or the cursor's line", () => {
    const diagnostics: DiagnosticFacts[] = [
      { startLine: 1, endLine: 1, severity: 1, source: "rustc", message: "unused variable: `x`" },
      { startLine: 2, endLine: 2, severity: 0, source: "rustc", message: "cannot find macro" },
      { startLine: 1, endLine: 1, severity: 3, source: "clippy", message: "a hint" },
      { startLine: 0, endLine: 0, severity: 0, source: undefined, message: "outside" },
    ];
    const selected = buildStateFile(facts(editorOn(SOURCE, [[SOURCE.indexOf("    let"), SOURCE.indexOf("}\n")]], { diagnostics })));
    assert.deepEqual(selected.diagnostics, [
      { line: 3, severity: "error", source: "rustc", message: "cannot find macro" },
      { line: 2, severity: "warning", source: "rustc", message: "unused variable: `x`" },
    ]);
    const cursor = buildStateFile(facts(editorOn(SOURCE, [[1, 1]], { diagnostics })));
    assert.deepEqual(cursor.diagnostics, [{ line: 1, severity: "error", source: null, message: "outside" }]);
  });

  it("caps diagnostics at 20 entries and about 4 KiB", () => {
    const many = (count: number, message: string): DiagnosticFacts[] =>
      Array.from({ length: count }, (_, index) => ({ startLine: 0, endLine: 3, severity: index % 2, source: "ts", message: `${index} ${message}` }));
    const byCount = buildStateFile(facts(editorOn(SOURCE, [[0, 5]], { diagnostics: many(30, "short") })));
    assert.equal(byCount.diagnostics.length, 20);
    assert.equal(byCount.omittedDiagnostics, 10);
    const bySize = buildStateFile(facts(editorOn(SOURCE, [[0, 5]], { diagnostics: many(20, "m".repeat(5_000)) })));
    assert.ok(JSON.stringify(bySize.diagnostics).length <= 4 * 1024, `${JSON.stringify(bySize.diagnostics).length} chars`);
    assert.ok(bySize.diagnostics.length >= 3 && bySize.diagnostics.every((d) => d.message.endsWith("…")));
    assert.equal(bySize.diagnostics.length + bySize.omittedDiagnostics, 20);
  });

  it("names documents that are not files by URI, and writes an empty state with no editor", () => {
    const untitled = buildStateFile(
      facts(
        editorOn("draft", [[0, 5]], {
          uri: "untitled:Untitled-1",
          scheme: "untitled",
          fsPath: "Untitled-1",
          label: "Untitled-1",
          languageId: "plaintext",
          isDirty: true,
        }),
      ),
    );
    assert.equal(untitled.activeFile, null);
    assert.deepEqual(untitled.document, { uri: "untitled:Untitled-1", scheme: "untitled", label: "Untitled-1" });
    assert.equal(untitled.isDirty, true);
    assert.equal(parseEditorState(untitled)?.document?.uri, "untitled:Untitled-1");
    const none = buildStateFile(facts(null));
    assert.equal(none.activeFile, null);
    assert.equal(none.document, null);
    assert.equal(parseEditorState(none), null, "a reader sends no context for it");
  });

  it("compares content without the time stamp", () => {
    const editor = editorOn(SOURCE, [[0, 2]]);
    const first = buildStateFile(facts(editor));
    const later = buildStateFile({ ...facts(editor), now: new Date() });
    assert.equal(serializeStateFile(first).key, serializeStateFile(later).key);
    assert.notEqual(serializeStateFile(first).key, serializeStateFile(buildStateFile(facts(editorOn(SOURCE, [[0, 3]])))).key);
    assert.deepEqual(JSON.parse(serializeStateFile(later).text), later, "the text is the whole file, time stamp included");
  });

  it("names what the context points at: file and lines, the cursor's line, or a document's label", () => {
    const label = (editor: EditorFacts | null): string => editorTargetLabel(parseEditorState(buildStateFile(facts(editor)))!);
    assert.equal(label(editorOn(SOURCE, [[0, SOURCE.indexOf("    println")]])), "main.rs:1-2");
    assert.equal(label(editorOn(SOURCE, [[0, 2]])), "main.rs:1");
    assert.equal(
      label(
        editorOn(SOURCE, [
          [0, 2],
          [SOURCE.indexOf("println"), SOURCE.indexOf("println") + 7],
        ]),
      ),
      "main.rs:1 +1",
    );
    assert.equal(label(editorOn(SOURCE, [[SOURCE.indexOf("let"), SOURCE.indexOf("let")]])), "main.rs:2");
    const windowsPath = parseEditorState({ activeFile: "C:\\work\\src\\lib.rs", selections: [] })!;
    assert.equal(editorTargetLabel(windowsPath), "lib.rs");
    assert.equal(editorTargetLabel(parseEditorState({ document: { uri: "untitled:Untitled-1", label: "Untitled-1" } })!), "Untitled-1");
  });
});
