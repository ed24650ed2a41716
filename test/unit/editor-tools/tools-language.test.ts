// find_definitions, find_references, hover, document_symbols and
// workspace_symbols (editor-tools/src/tools/), their real handlers over
// documents in memory (test/support/memory-editor.ts) whose language features
// each test sets: where a name or a position leads, pages, line texts from
// unsaved documents or the disk, what stays outside the workspace, and bad
// input refused with the channel's codes.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { CHANNEL_ERROR, LIMITS } from "../../../editor-tools/src/protocol.js";
import type { DocumentPosition, WorkspaceSymbol } from "../../../editor-tools/src/tools/editor.js";
import { documentSymbols } from "../../../editor-tools/src/tools/document-symbols.js";
import { findDefinitions } from "../../../editor-tools/src/tools/find-definitions.js";
import { findReferences } from "../../../editor-tools/src/tools/find-references.js";
import { hover } from "../../../editor-tools/src/tools/hover.js";
import { workspaceSymbols } from "../../../editor-tools/src/tools/workspace-symbols.js";
import { MEMORY_ROOT, MemoryEditor, assertRefused, lineRange } from "../../support/memory-editor.js";

const MAIN = ["import { greet } from './greet';", "", "  greet('world');", "export const x = greet;"].join("\n");

/** A workspace with main.ts on the disk and greet.ts open with unsaved text; `asked` records where features were asked. */
function workspace(): { editor: MemoryEditor; main: string; greet: string; asked: Array<{ path: string; line: number; character: number }> } {
  const editor = new MemoryEditor();
  const main = editor.at("src/main.ts");
  const greet = editor.at("src/greet.ts");
  editor.files.set(main, MAIN);
  editor.files.set(greet, "export function greet(name: string) {}\n");
  editor.files.set(editor.at("src/other.ts"), "import { greet } from './greet';\ngreet('other');\n");
  editor.open(greet, "// typed\nexport function greet(name: string) {}\n");
  const asked: Array<{ path: string; line: number; character: number }> = [];
  const record = (at: DocumentPosition) => void asked.push({ path: at.document.path, ...at.position });
  editor.language.definitions = (at) => (record(at), [{ path: greet, range: lineRange(1, 16, 21) }]);
  editor.language.references = (at) => (
    record(at),
    [
      { path: main, range: lineRange(0, 9, 14) },
      { path: main, range: lineRange(2, 2, 7) },
      { path: main, range: lineRange(2, 2, 7) },
      { path: editor.at("src/other.ts"), range: lineRange(1, 0, 5) },
      { path: `${MEMORY_ROOT}/lib/greet.d.ts`, range: lineRange(0, 0) },
    ]
  );
  return { editor, main, greet, asked };
}

/** A workspace symbol at `range` of `file`. */
function symbol(name: string, file: string | undefined, line: number, kind = "Function"): WorkspaceSymbol {
  return { name, kind, containerName: "", path: file, range: lineRange(line, 0, 40) };
}

describe("find_definitions and find_references", () => {
  it("at a position: by line and name on it, by line and column, by line alone (its first non-blank)", async () => {
    const { editor, main, asked } = workspace();
    await findDefinitions.handle({ path: "src/main.ts", line: 3, symbol: "greet" }, editor);
    await findDefinitions.handle({ path: main, line: 3, character: 99 }, editor);
    await findDefinitions.handle({ path: main, line: 3 }, editor);
    await findDefinitions.handle({ path: main, symbol: "x" }, editor);
    assert.deepEqual(asked, [
      { path: main, line: 2, character: 2 },
      { path: main, line: 2, character: 17 },
      { path: main, line: 2, character: 2 },
      { path: main, line: 3, character: 13 },
    ]);
  });

  it("answers locations with their line's text: an open document's unsaved line, else the disk's", async () => {
    const { editor, greet, main } = workspace();
    const definitions = (await findDefinitions.handle({ path: main, line: 1, symbol: "greet" }, editor)) as { definitions: unknown[] };
    assert.deepEqual(definitions.definitions, [
      { path: greet, line: 2, character: 17, endLine: 2, endCharacter: 22, text: "export function greet(name: string) {}" },
    ]);
    const references = (await findReferences.handle({ path: main, line: 1, symbol: "greet" }, editor)) as {
      total: number;
      references: Array<{ line: number; text: string }>;
    };
    assert.equal(references.total, 4, "the duplicate is dropped");
    assert.deepEqual(
      references.references.map((each) => [each.line, each.text]),
      [
        [1, "import { greet } from './greet';"],
        [3, "greet('world');"],
        [2, "greet('other');"],
        [1, ""],
      ],
      "a location outside the workspace is listed without its text",
    );
    // main.ts is a document since the target was looked up in it (as VS Code opens it), greet.ts holds unsaved text.
    assert.deepEqual(editor.diskReads, [editor.at("src/other.ts")], "only other.ts read from the disk; the outside file not at all");
  });

  it("by name alone: the workspace symbols of exactly that name, inside the workspace, at the name within each", async () => {
    const { editor, greet, asked } = workspace();
    editor.language.workspaceSymbols = () => [
      symbol("greeting", greet, 1),
      symbol("greet(name)", greet, 1),
      symbol("greet", `${MEMORY_ROOT}/lib/greet.d.ts`, 0),
      symbol("greet", undefined, 0),
    ];
    await findDefinitions.handle({ symbol: "greet" }, editor);
    assert.deepEqual(asked, [{ path: greet, line: 1, character: 16 }]);
    editor.language.workspaceSymbols = () => [symbol("greeting", greet, 1)];
    await assertRefused(
      findDefinitions.handle({ symbol: "greet" }, editor),
      CHANNEL_ERROR.failed,
      /^no symbol named greet in the workspace \(VS Code's workspace symbol search found 1 near matches: greeting\); give path and line instead$/,
    );
  });

  it("pages references by LIMITS.pageSize; reads no more of the disk than the page's lines", async () => {
    const { editor, main } = workspace();
    const big = editor.at("src/big.ts");
    editor.files.set(big, Array.from({ length: 1000 }, (_, index) => `use(${index});`).join("\n"));
    editor.language.references = () => Array.from({ length: LIMITS.pageSize + 20 }, (_, index) => ({ path: big, range: lineRange(index, 0, 3) }));
    const first = (await findReferences.handle({ path: main, line: 3 }, editor)) as { total: number; nextOffset: number; references: Array<{ text: string }> };
    assert.deepEqual([first.total, first.nextOffset, first.references.length, first.references[99]!.text], [120, 100, 100, "use(99);"]);
    const second = (await findReferences.handle({ path: main, line: 3, offset: 100 }, editor)) as { nextOffset?: number; references: Array<{ text: string }> };
    assert.deepEqual([second.nextOffset, second.references.length, second.references[19]!.text], [undefined, 20, "use(119);"]);
  });

  it("refuses what points nowhere: no symbol nor path, a line past the end, a name not on the line, a file over the size bound", async () => {
    const { editor, main } = workspace();
    await assertRefused(findReferences.handle({}, editor), CHANNEL_ERROR.invalidParams, /^give symbol, or path and line$/);
    await assertRefused(findReferences.handle({ path: main }, editor), CHANNEL_ERROR.invalidParams, /^give line \(and character or symbol\) with path$/);
    await assertRefused(findReferences.handle({ symbol: 7 }, editor), CHANNEL_ERROR.invalidParams, /^symbol must be a string$/);
    await assertRefused(findReferences.handle({ path: main, line: 9 }, editor), CHANNEL_ERROR.failed, /main\.ts has 4 lines, not 9$/);
    await assertRefused(
      findReferences.handle({ path: main, line: 2, symbol: "greet" }, editor),
      CHANNEL_ERROR.failed,
      /^greet does not occur on line 2 of .*main\.ts$/,
    );
    await assertRefused(findReferences.handle({ path: main, symbol: "nothing" }, editor), CHANNEL_ERROR.failed, /^nothing does not occur in .*main\.ts$/);
    await assertRefused(
      findReferences.handle({ path: main, line: 1, character: 0 }, editor),
      CHANNEL_ERROR.invalidParams,
      /^character must be an integer of at least 1$/,
    );
    await assertRefused(findReferences.handle({ path: "../../etc/passwd", line: 1 }, editor), CHANNEL_ERROR.outsideWorkspace, /outside/);
    await assertRefused(findReferences.handle({ path: "src/gone.ts", line: 1 }, editor), CHANNEL_ERROR.failed, /^cannot open .*gone\.ts: ENOENT$/);
    const huge = editor.at("huge.ts");
    editor.files.set(huge, "h".repeat(LIMITS.maxFileBytes + 1));
    await assertRefused(
      findReferences.handle({ path: huge, line: 1 }, editor),
      CHANNEL_ERROR.failed,
      new RegExp(`huge\\.ts is ${LIMITS.maxFileBytes + 1} bytes, over the ${LIMITS.maxFileBytes}-byte limit$`),
    );
  });
});

describe("hover", () => {
  it("joins the non-empty hovers of at most three places, capped at LIMITS.maxAnswerChars", async () => {
    const { editor, greet } = workspace();
    editor.language.workspaceSymbols = () => [1, 2, 3, 4].map(() => symbol("greet", greet, 1));
    editor.language.hovers = () => ["function greet(name: string): void", "  "];
    const answer = (await hover.handle({ symbol: "greet" }, editor)) as { hover: string };
    assert.equal(answer.hover, Array(3).fill("function greet(name: string): void").join("\n\n---\n\n"));
    editor.language.hovers = () => ["d".repeat(LIMITS.maxAnswerChars + 7)];
    const long = (await hover.handle({ path: greet, line: 2 }, editor)) as { hover: string };
    assert.equal(long.hover, `${"d".repeat(LIMITS.maxAnswerChars)}… (7 more characters)`);
  });
});

describe("document_symbols and workspace_symbols", () => {
  it("document_symbols: the outline flattened with depths (1-based lines), paged", async () => {
    const { editor, main } = workspace();
    const leaf = (name: string, line: number) => ({ name, kind: "Method", range: lineRange(line, 0), children: [] });
    editor.language.documentSymbols = (document) => [
      {
        name: "Greeter",
        kind: "Class",
        detail: "class",
        range: { start: { line: 0, character: 0 }, end: { line: 3, character: 1 } },
        children: [leaf("hello", 1), leaf("bye", 2)],
      },
      ...Array.from({ length: LIMITS.pageSize }, (_, index) => leaf(`${document.path.endsWith("main.ts") ? "f" : "?"}${index}`, 4 + index)),
    ];
    const first = (await documentSymbols.handle({ path: "src/main.ts" }, editor)) as { path: string; total: number; nextOffset: number; symbols: unknown[] };
    assert.deepEqual([first.path, first.total, first.nextOffset], [main, LIMITS.pageSize + 3, LIMITS.pageSize]);
    assert.deepEqual(first.symbols.slice(0, 3), [
      { name: "Greeter", kind: "Class", detail: "class", startLine: 1, endLine: 4, depth: 0 },
      { name: "hello", kind: "Method", startLine: 2, endLine: 2, depth: 1 },
      { name: "bye", kind: "Method", startLine: 3, endLine: 3, depth: 1 },
    ]);
    const rest = (await documentSymbols.handle({ path: main, offset: first.nextOffset }, editor)) as { symbols: Array<{ name: string }> };
    assert.deepEqual(
      rest.symbols.map((each) => each.name),
      ["f97", "f98", "f99"],
    );
    await assertRefused(documentSymbols.handle({}, editor), CHANNEL_ERROR.invalidParams, /^path must be a non-empty string$/);
  });

  it("workspace_symbols: those in the workspace's files, with their container, paged; a query is required", async () => {
    const { editor, greet } = workspace();
    editor.language.workspaceSymbols = (query) => [
      { ...symbol(query, greet, 1), containerName: "module" },
      symbol(`${query}Later`, greet, 5, "Variable"),
      symbol(query, `${MEMORY_ROOT}/lib/greet.d.ts`, 0),
      symbol(query, undefined, 0),
    ];
    const answer = (await workspaceSymbols.handle({ query: "greet" }, editor)) as { total: number; symbols: unknown[] };
    assert.equal(answer.total, 2);
    assert.deepEqual(answer.symbols, [
      { name: "greet", kind: "Function", container: "module", path: greet, line: 2 },
      { name: "greetLater", kind: "Variable", container: null, path: greet, line: 6 },
    ]);
    await assertRefused(workspaceSymbols.handle({ query: "" }, editor), CHANNEL_ERROR.invalidParams, /^query must be a non-empty string$/);
    await assertRefused(
      workspaceSymbols.handle({ query: "greet", offset: "2" }, editor),
      CHANNEL_ERROR.invalidParams,
      /^offset must be an integer of at least 0$/,
    );
  });
});
