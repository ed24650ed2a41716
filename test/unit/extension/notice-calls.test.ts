// Every VS Code message the extension shows (showInformationMessage, showWarningMessage, showErrorMessage) is
// fed only text we wrote, or text passed through extension/src/notice-text.ts: VS Code turns `[x](command:…)`
// in a notification into a link, so an agent's title or a project's file name must never reach one as it is.
// The check reads extension/src/**/*.ts with the TypeScript compiler: each argument of each call (and a modal's
// `detail`) must be a literal, a template of trusted parts, a number or a fixed set of words by its type, a call of
// noticeText/noticeList, or a constant or one of our own functions whose every value is one of these. Any other
// text (a parameter, a property, a library's answer) is reported with its place; so is such a function passed on
// as a value, where no call could be checked. The checker itself is tried on a small project of known good and bad
// calls first, so it cannot pass by finding nothing.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { REPO_DIR, tempDir } from "../../support/processes.js";

const MESSAGE_FUNCTIONS = new Set(["showInformationMessage", "showWarningMessage", "showErrorMessage"]);
/** The helpers that make any text fit for a message, known by name and by the file that declares them. */
const HELPERS = new Set(["noticeText", "noticeList"]);
const HELPER_FILE = "notice-text.ts";
/** Facts of VS Code's own, not chosen by an agent or a project. */
const VSCODE_FACTS = new Set(["vscode.version"]);

interface Finding {
  place: string;
  text: string;
}

interface Scan {
  calls: string[];
  findings: Finding[];
}

/** The message calls under `dir` (recursively), and each argument fed text that is not known to be ours. */
function scanMessages(dir: string, options: ts.CompilerOptions): Scan {
  const files = sourceFiles(dir);
  const program = ts.createProgram(files, { ...options, noEmit: true, composite: false, declaration: false, incremental: false });
  const checker = program.getTypeChecker();
  const scan: Scan = { calls: [], findings: [] };
  for (const file of files) {
    const source = program.getSourceFile(file);
    assert.ok(source, `${file} is in the program`);
    visit(source, (node) => checkNode(node, source, checker, scan));
  }
  return scan;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => path.join(dir, name));
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

function place(node: ts.Node, source: ts.SourceFile): string {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return `${path.relative(REPO_DIR, source.fileName)}:${line + 1}`;
}

/** A message function named anywhere: called with checked arguments, or reported as passed on unchecked. */
function checkNode(node: ts.Node, source: ts.SourceFile, checker: ts.TypeChecker, scan: Scan): void {
  const name =
    ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name)
      ? node.name
      : ts.isIdentifier(node) && !ts.isPropertyAccessExpression(node.parent)
        ? node
        : undefined;
  if (name === undefined || !MESSAGE_FUNCTIONS.has(name.text) || isDeclarationName(name)) return;
  const call = node.parent;
  if (!ts.isCallExpression(call) || call.expression !== node) {
    scan.findings.push({ place: place(node, source), text: `${name.text} passed on as a value: its calls cannot be checked` });
    return;
  }
  scan.calls.push(`${place(call, source)} ${name.text}`);
  for (const argument of call.arguments) {
    for (const fed of messageTexts(argument)) {
      if (!new Trust(checker).trusted(fed)) scan.findings.push({ place: place(fed, source), text: `${name.text}(… ${fed.getText(source).slice(0, 120)} …)` });
    }
  }
}

function isDeclarationName(name: ts.Identifier): boolean {
  const parent = name.parent;
  return (
    (ts.isFunctionDeclaration(parent) || ts.isMethodSignature(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) &&
    parent.name === name
  );
}

/** The texts an argument puts in the message: itself, or a modal's `detail` (an options object's other fields show no text). */
function messageTexts(argument: ts.Expression): ts.Expression[] {
  if (!ts.isObjectLiteralExpression(argument)) return [argument];
  return argument.properties.flatMap((property) =>
    ts.isPropertyAssignment(property) && property.name.getText() === "detail"
      ? [property.initializer]
      : ts.isShorthandPropertyAssignment(property) && property.name.text === "detail"
        ? [property.name]
        : [],
  );
}

/** Whether an expression's value is text we wrote (or made fit by the helpers), followed through constants and our own functions. */
class Trust {
  private readonly seen = new Set<ts.Node>();

  constructor(private readonly checker: ts.TypeChecker) {}

  trusted(expression: ts.Expression): boolean {
    const node = unwrapped(expression);
    if (this.seen.has(node)) return true; // a cycle: judged where it started
    this.seen.add(node);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isNumericLiteral(node)) return true;
    if (ts.isTemplateExpression(node)) return node.templateSpans.every((span) => this.trusted(span.expression));
    if (ts.isConditionalExpression(node)) return this.trusted(node.whenTrue) && this.trusted(node.whenFalse);
    if (ts.isBinaryExpression(node) && JOINING.has(node.operatorToken.kind)) return this.trusted(node.left) && this.trusted(node.right);
    if (ts.isCallExpression(node)) return this.trustedCall(node);
    if (ts.isIdentifier(node)) return this.trustedName(node);
    if (VSCODE_FACTS.has(node.getText())) return true;
    return this.trustedByType(node);
  }

  private trustedCall(call: ts.CallExpression): boolean {
    const declaration = this.declarationOf(call.expression);
    if (declaration && HELPERS.has(declaredName(declaration) ?? "") && path.basename(declaration.getSourceFile().fileName) === HELPER_FILE) return true;
    const body = declaration && ownFunctionBody(declaration);
    if (body !== undefined) return returnedValues(body).every((value) => this.trusted(value));
    return this.trustedByType(call);
  }

  private trustedName(name: ts.Identifier): boolean {
    const declaration = this.declarationOf(name);
    if (
      declaration &&
      ts.isVariableDeclaration(declaration) &&
      declaration.initializer &&
      isConst(declaration) &&
      !declaration.getSourceFile().isDeclarationFile
    )
      return this.trusted(declaration.initializer);
    if (declaration && ts.isEnumMember(declaration)) return true;
    return this.trustedByType(name);
  }

  private declarationOf(expression: ts.Expression): ts.Declaration | undefined {
    let symbol = this.checker.getSymbolAtLocation(expression);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  }

  /** Numbers, booleans and fixed sets of words (a union of string literals: our own, by the compiler's reading) show nothing chosen. */
  private trustedByType(node: ts.Node): boolean {
    const type = this.checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.every((part) => (part.flags & FIXED_TYPES) !== 0);
  }
}

const JOINING = new Set([ts.SyntaxKind.PlusToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.AmpersandAmpersandToken]);
const FIXED_TYPES =
  ts.TypeFlags.NumberLike |
  ts.TypeFlags.BooleanLike |
  ts.TypeFlags.StringLiteral |
  ts.TypeFlags.EnumLike |
  ts.TypeFlags.Undefined |
  ts.TypeFlags.Null |
  ts.TypeFlags.Void;

function unwrapped(expression: ts.Expression): ts.Expression {
  let node = expression;
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isSatisfiesExpression(node))
    node = node.expression;
  return node;
}

function declaredName(declaration: ts.Declaration): string | undefined {
  const name = (declaration as ts.NamedDeclaration).name;
  return name && ts.isIdentifier(name) ? name.text : undefined;
}

function isConst(declaration: ts.VariableDeclaration): boolean {
  return ts.isVariableDeclarationList(declaration.parent) && (declaration.parent.flags & ts.NodeFlags.Const) !== 0;
}

/** The body of a function written in this project (not a library's declaration), also one held by a constant. */
function ownFunctionBody(declaration: ts.Declaration): ts.ConciseBody | undefined {
  if (declaration.getSourceFile().isDeclarationFile || declaration.getSourceFile().fileName.includes("node_modules")) return undefined;
  if ((ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) && declaration.body) return declaration.body;
  if (ts.isVariableDeclaration(declaration) && declaration.initializer && isConst(declaration)) {
    const value = unwrapped(declaration.initializer);
    if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) return value.body;
  }
  return undefined;
}

/** What a function body gives back: an arrow's expression, or each `return` of the function itself (not of functions inside it). */
function returnedValues(body: ts.ConciseBody): ts.Expression[] {
  if (!ts.isBlock(body)) return [body];
  const values: ts.Expression[] = [];
  const walk = (node: ts.Node): void => {
    if (ts.isReturnStatement(node) && node.expression) values.push(node.expression);
    if (!ts.isFunctionLike(node)) node.forEachChild(walk);
  };
  body.forEachChild(walk);
  return values;
}

/** The extension's own compiler options (types: node and vscode). */
function extensionOptions(): ts.CompilerOptions {
  const configFile = path.join(REPO_DIR, "extension", "tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")) },
  );
  assert.ok(parsed, "extension/tsconfig.json parses");
  return parsed.options;
}

/** A small project of known calls, good and bad, for the checker itself. */
function fixtureProject(): string {
  const dir = tempDir("notice-calls-");
  const write = (name: string, text: string): void => fs.writeFileSync(path.join(dir, name), text);
  write(
    "vscode.d.ts",
    `declare module "vscode" {
      export const version: string;
      export namespace window {
        function showInformationMessage(message: string, ...items: string[]): Promise<string | undefined>;
        function showWarningMessage(message: string, options: { modal?: boolean; detail?: string }, ...items: string[]): Promise<string | undefined>;
        function showErrorMessage(message: string): Promise<string | undefined>;
      }
    }`,
  );
  write(
    HELPER_FILE,
    `export function noticeText(text: string, max = 200): string { return text.slice(0, max); }\nexport function noticeList(items: string[]): string { return items.join(", "); }\n`,
  );
  write(
    "calls.ts",
    `import * as vscode from "vscode";
    import { noticeList, noticeText } from "./notice-text.js";
    type Reason = "a" | "b";
    const LABEL = "Accept";
    function countFiles(count: number): string { return \`\${count} file\${count === 1 ? "" : "s"}\`; }
    function wrapped(name: string): string { const shown = noticeText(name); return \`changed \${shown}\`; }
    export function good(name: string, reason: Reason, files: string[], n: number): void {
      void vscode.window.showInformationMessage("plain", LABEL);
      void vscode.window.showInformationMessage(\`\${countFiles(n)} put back; \${reason}; VS Code \${vscode.version}\`);
      void vscode.window.showInformationMessage(wrapped(name));
      const text = n > 1 ? \`many: \${noticeText(name)}\` : "one";
      void vscode.window.showWarningMessage(text, { modal: true, detail: noticeList(files) }, LABEL);
    }
    export function bad(name: string, title: string | undefined, error: Error, files: string[]): void {
      void vscode.window.showInformationMessage(\`BAD-1 \${name}\`);
      const text = title ? \`BAD-2 \${title}\` : "fine";
      void vscode.window.showInformationMessage(text);
      void vscode.window.showErrorMessage(error.message);
      void vscode.window.showWarningMessage("ok", { modal: true, detail: files.join("\\n") });
      const show = vscode.window.showErrorMessage;
      void show;
    }
    `,
  );
  return dir;
}

describe("VS Code messages and the text an agent or a project chose", () => {
  it("the checker finds each call, passes the trusted ones and reports each unwrapped text with its place", () => {
    const dir = fixtureProject();
    const scan = scanMessages(dir, {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      noLib: true,
    });
    assert.equal(scan.calls.length, 8, scan.calls.join("\n"));
    const reported = scan.findings.map((finding) => `${finding.place.split(":").at(-1)} ${finding.text}`);
    assert.equal(reported.length, 5, reported.join("\n"));
    assert.match(reported[0]!, /BAD-1 \$\{name\}/);
    assert.match(reported[1]!, /showInformationMessage\(… text …\)/);
    assert.match(reported[2]!, /error\.message/);
    assert.match(reported[3]!, /files\.join/);
    assert.match(reported[4]!, /showErrorMessage passed on as a value/);
  });

  it("every message call in extension/src is fed only our own text or text through noticeText/noticeList", () => {
    const scan = scanMessages(path.join(REPO_DIR, "extension", "src"), extensionOptions());
    // Not vacuous: the calls that showed agent or project text are among those checked.
    assert.ok(scan.calls.length >= 20, `only ${scan.calls.length} calls found:\n${scan.calls.join("\n")}`);
    for (const file of ["turns/agent-edits.ts", "turns/agent-turns.ts", "panel/chat-bridge.ts", "agents/agent-picker.ts", "panel/chat-attention.ts"])
      assert.ok(
        scan.calls.some((call) => call.includes(`extension/src/${file}:`)),
        `no call found in ${file}`,
      );
    assert.deepEqual(
      scan.findings.map((finding) => `${finding.place}: ${finding.text}`),
      [],
      "text not known to be ours reaches a VS Code message: pass it through noticeText or noticeList (extension/src/notice-text.ts)",
    );
  });
});
