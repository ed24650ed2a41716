// docs/state-file.schema.json, the builder and the parser describe one format:
// every field the schema names is written by the builder with the schema's
// type, and read back by the parser; nothing is written that the schema lacks.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { buildStateFile, parseEditorState, parseEditorTools, parseUnsavedDocuments, type StateFacts } from "../../../editor-state/src/index.js";
import { REPO_DIR } from "../../support/processes.js";

interface SchemaNode {
  type?: string | string[];
  oneOf?: SchemaNode[];
  $ref?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: string[];
}

const schema = JSON.parse(fs.readFileSync(path.join(REPO_DIR, "docs", "state-file.schema.json"), "utf8")) as SchemaNode & { $defs: Record<string, SchemaNode> };

function resolve(node: SchemaNode): SchemaNode {
  return node.$ref ? schema.$defs[node.$ref.replace("#/$defs/", "")]! : node;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

/** Errors for `value` against `node`: types, enums, required and unknown properties, recursively. */
function check(value: unknown, node: SchemaNode, where: string): string[] {
  node = resolve(node);
  if (node.oneOf) {
    const results = node.oneOf.map((option) => check(value, option, where));
    return results.some((errors) => errors.length === 0) ? [] : [`${where}: matches no option (${results.flat().join("; ")})`];
  }
  if (node.enum) return node.enum.includes(value) ? [] : [`${where}: ${JSON.stringify(value)} not in ${JSON.stringify(node.enum)}`];
  const types = node.type === undefined ? [] : ([] as string[]).concat(node.type);
  const actual = jsonType(value);
  if (types.length > 0 && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
    return [`${where}: ${actual}, schema says ${types.join("|")}`];
  }
  if (actual === "array" && node.items) return (value as unknown[]).flatMap((item, index) => check(item, node.items!, `${where}[${index}]`));
  if (actual !== "object" || !node.properties) return [];
  const object = value as Record<string, unknown>;
  const errors = Object.keys(object)
    .filter((key) => !(key in node.properties!))
    .map((key) => `${where}.${key}: not in the schema`);
  for (const key of node.required ?? []) if (!(key in object)) errors.push(`${where}.${key}: required`);
  for (const [key, child] of Object.entries(object)) if (key in node.properties) errors.push(...check(child, node.properties[key]!, `${where}.${key}`));
  return errors;
}

const TEXT = "const a = 1;\nconst b = 2;\n";
const FULL: StateFacts = {
  editor: {
    uri: "file:///w/a.ts",
    scheme: "file",
    fsPath: "/w/a.ts",
    label: "a.ts",
    languageId: "typescript",
    isDirty: true,
    selections: [
      { start: { line: 0, character: 0 }, end: { line: 1, character: 0 }, active: { line: 1, character: 0 }, startOffset: 0, endOffset: 13 },
      { start: { line: 1, character: 0 }, end: { line: 1, character: 5 }, active: { line: 1, character: 5 }, startOffset: 13, endOffset: 18 },
    ],
    textBetween: (from, to) => TEXT.slice(from, to),
    diagnostics: [{ startLine: 0, endLine: 0, severity: 0, source: "ts", message: "bad" }],
  },
  workspaceFolders: ["/w"],
  writerPid: 7,
  now: new Date(),
  unsavedDocuments: [
    { path: "/w/a.ts", version: 4, snapshot: "editor-state-0.unsaved-1.txt" },
    { path: "/w/big.ts", version: 2, snapshot: null },
  ],
  editorTools: { enabled: true, socket: "/run/user/1/symposium/symposium-tools-0a1b.sock", secret: "0123456789abcdef".repeat(4) },
};

describe("state file schema", () => {
  it("describes exactly what the builder writes, with the schema's types", () => {
    const variants = [
      buildStateFile(FULL),
      buildStateFile({
        ...FULL,
        editor: {
          ...FULL.editor!,
          uri: "untitled:Untitled-1",
          scheme: "untitled",
          selections: [{ ...FULL.editor!.selections[1]!, startOffset: 13, endOffset: 13 }],
        },
      }),
      buildStateFile({ ...FULL, editor: null }),
      buildStateFile(FULL, { maxSelectionChars: 4, maxSelections: 1, maxDiagnostics: 0, maxDiagnosticChars: 0, maxMessageChars: 1 }),
    ];
    for (const file of variants) assert.deepEqual(check(file, schema, "$"), []);
    assert.deepEqual(Object.keys(variants[0]!).sort(), Object.keys(schema.properties!).sort(), "the builder writes every field the schema names");
  });

  it("names in the schema every field the parser reads (the parser folds `selection` into `selections`)", () => {
    const parsed = parseEditorState(buildStateFile(FULL));
    assert.ok(parsed);
    // `unsavedDocuments` and `editorTools` are read apart (parseUnsavedDocuments, parseEditorTools): a file naming no active file still has them.
    const schemaFields = Object.keys(schema.properties!).filter((key) => key !== "selection" && key !== "unsavedDocuments" && key !== "editorTools");
    assert.deepEqual(Object.keys(parsed).sort(), schemaFields.sort());
    const selectionFields = Object.keys(schema.$defs.selection!.properties!).sort();
    const cut = parseEditorState(
      buildStateFile(FULL, { maxSelectionChars: 4, maxSelections: 9, maxDiagnostics: 9, maxDiagnosticChars: 999, maxMessageChars: 99 }),
    );
    assert.deepEqual(Object.keys(cut!.selections[0]!).sort(), selectionFields);
    assert.deepEqual(Object.keys(parsed.diagnostics[0]!).sort(), Object.keys(schema.$defs.diagnostic!.properties!).sort());
    assert.deepEqual(parseUnsavedDocuments(buildStateFile(FULL)), FULL.unsavedDocuments);
    assert.deepEqual(Object.keys(parseUnsavedDocuments(buildStateFile(FULL))[0]!).sort(), Object.keys(schema.$defs.unsavedDocument!.properties!).sort());
    assert.deepEqual(parseEditorTools(buildStateFile(FULL)), FULL.editorTools);
    assert.deepEqual(Object.keys(parseEditorTools(buildStateFile(FULL))!).sort(), Object.keys(schema.properties!.editorTools!.properties!).sort());
    // Off, or a secret that is not one: no channel; older files: none at all.
    assert.deepEqual(parseEditorTools({ editorTools: { enabled: false } }), { enabled: false, socket: null, secret: null });
    assert.deepEqual(parseEditorTools({ editorTools: { socket: "/s", secret: "not hex" } }), { enabled: true, socket: null, secret: null });
    assert.equal(parseEditorTools({ activeFile: "/a" }), null);
  });

  it("rejects what the schema forbids (the checker itself can fail)", () => {
    assert.notDeepEqual(check({ ...buildStateFile(FULL), extra: 1 }, schema, "$"), []);
    assert.notDeepEqual(check({ ...buildStateFile(FULL), isDirty: "yes" }, schema, "$"), []);
    assert.notDeepEqual(check({ ...buildStateFile(FULL), diagnostics: [{ line: 1, severity: "fatal", message: "m" }] }, schema, "$"), []);
  });
});
