// No function in production code over 150 lines (issue 45): a function that long
// holds state, the DOM and a message switch at once, the shape the chat tab took
// twice. Every production .ts file is parsed with the TypeScript compiler; each
// function, method, accessor, constructor and arrow is measured from its first
// line to its last.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { REPO_DIR } from "../../support/processes.js";
import { PRODUCTION_COMPONENTS as PRODUCTION } from "../../support/components.js";

const MAX_FUNCTION_LINES = 150;

/** Built or installed, never written by hand. */
const NOT_SOURCE = new Set(["node_modules", "out", "dist"]);

/** The .ts files under `dir` (not declarations), as absolute paths. */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith(".") || NOT_SOURCE.has(entry.name) ? [] : tsFiles(full);
    return entry.isFile() && /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** A function's name for the report: its own, its variable's or property's, else "(anonymous)". */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return "(anonymous)";
}

/** Every function in `source` longer than the limit, as "file:line name (N lines)". */
function longFunctions(fileName: string, text: string, limit = MAX_FUNCTION_LINES): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const fn = node;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push(`${fileName}:${first + 1} ${functionName(fn)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function length", () => {
  it("finds a function over the limit, and an arrow and a method, by name and line", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join("\n");
    const text = `function long() {\n${body(5)}\n}\nconst arrow = () => {\n${body(5)}\n};\nclass C {\n  method() {\n${body(2)}\n  }\n}\n`;
    assert.deepEqual(longFunctions("x.ts", text, 4), ["x.ts:1 long (7 lines)", "x.ts:8 arrow (7 lines)"]);
    assert.deepEqual(longFunctions("x.ts", text, 3), ["x.ts:1 long (7 lines)", "x.ts:8 arrow (7 lines)", "x.ts:16 method (4 lines)"]);
  });

  it(`no function in production code is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = PRODUCTION.flatMap((component) =>
      tsFiles(path.join(REPO_DIR, component)).flatMap((file) =>
        longFunctions(path.relative(REPO_DIR, file).split(path.sep).join("/"), fs.readFileSync(file, "utf8")),
      ),
    );
    if (long.length > 0) assert.fail(`split these into smaller functions (at most ${MAX_FUNCTION_LINES} lines each):\n  ${long.join("\n  ")}`);
  });
});
