// What the window answers on the editor's live channel (docs/editor-tools.md):
// one handler per tool (editor-tools/src/tools.ts), each reading VS Code —
// the active editor, open documents' text, vscode.languages.getDiagnostics,
// the vscode.execute…Provider commands — and answering within the bounds of
// editor-tools/src/protocol.ts. Every path is resolved to its real path and
// refused outside this window's workspace folders (editor-tools/src/workspace-paths.ts).
// propose_edit follows the one policy for an agent's write to an open file
// (editor-state/src/agent-writes.ts), reuses the agent-edits review (the diff
// with Accept/Reject) and applies the result as one WorkspaceEdit.

import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  CHANNEL_ERROR,
  LIMITS,
  TOOL,
  linesOf,
  pageOf,
  type ProposeEditResult,
  type ReadFileResult,
  type SymbolTarget,
} from "../../editor-tools/src/protocol.js";
import { ProposalError, checkProposal, proposedText } from "../../editor-tools/src/proposal.js";
import { readDisk, readLeadingLines } from "../../editor-tools/src/read-disk.js";
import { unansweredMessage, unsavedChangesMessage } from "../../editor-state/src/index.js";
import { ACCEPT, applyChange, openFileDecision, reviewInDiff } from "./agent-edits.js";
import type { BeforeDocuments } from "./chat-bridge.js";
import { readConfig } from "./config.js";
import type { ProposalDocuments } from "./proposal-documents.js";
import { changeBetween } from "./edit-rebase.js";
import { ChannelRefusal, type ChannelHandler } from "../../editor-tools/src/channel-server.js";
import { UNANSWERED } from "./review-deadline.js";
import { insideFolders } from "../../editor-tools/src/workspace-paths.js";

export interface EditorToolsDeps {
  documents: BeforeDocuments;
  /** The editable right sides of propose_edit's diffs. */
  proposals: ProposalDocuments;
  /** The editor the user was last in (the tracker's), when the active one is not a text editor (focus in the chat). */
  contextEditor(): vscode.TextEditor | undefined;
  /** Handlers of tools that live in their own files (present_walkthrough: walkthrough-view.ts). */
  moreHandlers?: Record<string, ChannelHandler>;
}

const SEVERITY = ["error", "warning", "information", "hint"] as const;

export function editorToolHandlers(deps: EditorToolsDeps): Record<string, ChannelHandler> {
  return {
    [TOOL.editorState]: async () => editorState(deps),
    [TOOL.readFile]: async (params) => readFile(params),
    [TOOL.diagnostics]: async (params) => diagnostics(params),
    [TOOL.findDefinitions]: async (params) => findDefinitions(params),
    [TOOL.findReferences]: async (params) => findReferences(params),
    [TOOL.hover]: async (params) => hover(params),
    [TOOL.documentSymbols]: async (params) => documentSymbols(params),
    [TOOL.workspaceSymbols]: async (params) => workspaceSymbols(params),
    [TOOL.proposeEdit]: async (params) => proposeEdit(params, deps),
    ...deps.moreHandlers,
  };
}

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
}

/** The real path of `file` inside the workspace, or a refusal naming it. */
function resolvePath(file: unknown): string {
  if (typeof file !== "string" || file === "") throw new ChannelRefusal("path must be a non-empty string", CHANNEL_ERROR.invalidParams);
  const real = insideFolders(file, folders());
  if (real === undefined)
    throw new ChannelRefusal(`${file} is outside this window's workspace folders (${folders().join(", ") || "none"}); refused`, CHANNEL_ERROR.outsideWorkspace);
  return real;
}

function realPath(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/** The document VS Code holds open for real path `real`, if any. */
function openDocument(real: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => document.uri.scheme === "file" && !document.isClosed && realPath(document.uri.fsPath) === real);
}

/** The document for `real`, loaded when it is not open (a language feature needs one); bounded by LIMITS.maxFileBytes. */
async function loadDocument(real: string): Promise<vscode.TextDocument> {
  const open = openDocument(real);
  if (open) return open;
  let size: number;
  try {
    size = fs.statSync(real).size;
  } catch (error) {
    throw new ChannelRefusal(`cannot open ${real}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size > LIMITS.maxFileBytes) throw new ChannelRefusal(`${real} is ${size} bytes, over the ${LIMITS.maxFileBytes}-byte limit`);
  return vscode.workspace.openTextDocument(vscode.Uri.file(real));
}

function integer(value: unknown, name: string, least: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least)
    throw new ChannelRefusal(`${name} must be an integer of at least ${least}`, CHANNEL_ERROR.invalidParams);
  return value;
}

function capped(text: string, most: number): string {
  return text.length > most ? `${text.slice(0, most)}… (${text.length - most} more characters)` : text;
}

function editorState(deps: EditorToolsDeps): Record<string, unknown> {
  const editor = vscode.window.activeTextEditor ?? deps.contextEditor();
  const document = editor?.document;
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
  const openEditors = tabs
    .filter((tab) => tab.input instanceof vscode.TabInputText)
    .map((tab) => ({ path: (tab.input as vscode.TabInputText).uri.fsPath, unsaved: tab.isDirty, active: tab.isActive && tab.group.isActive }));
  return {
    activeFile: document ? (document.uri.scheme === "file" ? document.uri.fsPath : document.uri.toString()) : null,
    languageId: document?.languageId ?? null,
    unsaved: document?.isDirty ?? false,
    selections: (editor?.selections ?? []).map((selection) => ({
      start: { line: selection.start.line + 1, character: selection.start.character + 1 },
      end: { line: selection.end.line + 1, character: selection.end.character + 1 },
      text: selectedText(document!, selection),
    })),
    visibleLines: (editor?.visibleRanges ?? []).map((range) => ({ startLine: range.start.line + 1, endLine: range.end.line + 1 })),
    openEditors: openEditors.slice(0, LIMITS.maxOpenEditors),
    omittedEditors: Math.max(0, openEditors.length - LIMITS.maxOpenEditors),
    workspaceFolders: folders(),
  };
}

/** A selection's text, read only up to the cap (a huge selection costs one bounded read). */
function selectedText(document: vscode.TextDocument, selection: vscode.Selection): string {
  const start = document.offsetAt(selection.start);
  const end = document.offsetAt(selection.end);
  const readTo = Math.min(end, start + LIMITS.maxSelectionChars);
  const text = document.getText(new vscode.Range(selection.start, document.positionAt(readTo)));
  return readTo < end ? `${text}… (${end - readTo} more characters)` : text;
}

function readFile(params: Record<string, unknown>): ReadFileResult {
  const real = resolvePath(params.path);
  const line = integer(params.line, "line", 1);
  const limit = Math.min(integer(params.limit, "limit", 1) ?? LIMITS.defaultLines, LIMITS.defaultLines);
  const document = openDocument(real);
  if (document) return { path: real, source: "editor", unsaved: document.isDirty, ...linesOf(document.getText(), line, limit) };
  try {
    return { path: real, source: "disk", unsaved: false, ...linesOf(readDisk(real), line, limit) };
  } catch (error) {
    throw new ChannelRefusal(`cannot read ${real}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function diagnostics(params: Record<string, unknown>): Record<string, unknown> {
  const offset = integer(params.offset, "offset", 0);
  const entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> =
    params.path === undefined
      ? vscode.languages.getDiagnostics()
      : [[vscode.Uri.file(resolvePath(params.path)), vscode.languages.getDiagnostics(vscode.Uri.file(resolvePath(params.path)))]];
  const inWorkspace = entries.filter(([uri]) => uri.scheme === "file" && (params.path !== undefined || insideFolders(uri.fsPath, folders()) !== undefined));
  const all = inWorkspace
    .flatMap(([uri, list]) =>
      list.map((diagnostic) => ({
        path: uri.fsPath,
        severity: SEVERITY[diagnostic.severity] ?? "error",
        ...rangeOf(diagnostic.range),
        message: capped(diagnostic.message, 1000),
        source: diagnostic.source ?? null,
        code: typeof diagnostic.code === "object" ? String(diagnostic.code.value) : (diagnostic.code ?? null),
      })),
    )
    .sort((a, b) => SEVERITY.indexOf(a.severity) - SEVERITY.indexOf(b.severity));
  const { items, page } = pageOf(all, offset);
  return { ...page, diagnostics: items };
}

function rangeOf(range: vscode.Range): { line: number; character: number; endLine: number; endCharacter: number } {
  return { line: range.start.line + 1, character: range.start.character + 1, endLine: range.end.line + 1, endCharacter: range.end.character + 1 };
}

interface Target {
  uri: vscode.Uri;
  position: vscode.Position;
  name?: string;
}

/** Where `params` points: a position in a file, or each workspace symbol of that exact name. */
async function targets(params: Record<string, unknown>): Promise<Target[]> {
  const target = params as SymbolTarget;
  if (target.symbol !== undefined && typeof target.symbol !== "string") throw new ChannelRefusal("symbol must be a string", CHANNEL_ERROR.invalidParams);
  if (target.path === undefined) {
    if (!target.symbol) throw new ChannelRefusal("give symbol, or path and line", CHANNEL_ERROR.invalidParams);
    return symbolsNamed(target.symbol);
  }
  const document = await loadDocument(resolvePath(target.path));
  const line = integer(target.line, "line", 1);
  if (line === undefined) {
    if (!target.symbol) throw new ChannelRefusal("give line (and character or symbol) with path", CHANNEL_ERROR.invalidParams);
    const at = wordIndex(document.getText(), target.symbol);
    if (at < 0) throw new ChannelRefusal(`${target.symbol} does not occur in ${document.uri.fsPath}`);
    return [{ uri: document.uri, position: document.positionAt(at), name: target.symbol }];
  }
  if (line > document.lineCount) throw new ChannelRefusal(`${document.uri.fsPath} has ${document.lineCount} lines, not ${line}`);
  const text = document.lineAt(line - 1).text;
  const character = integer(target.character, "character", 1);
  if (character !== undefined) return [{ uri: document.uri, position: new vscode.Position(line - 1, Math.min(character - 1, text.length)) }];
  if (target.symbol) {
    const at = wordIndex(text, target.symbol);
    if (at < 0) throw new ChannelRefusal(`${target.symbol} does not occur on line ${line} of ${document.uri.fsPath}`);
    return [{ uri: document.uri, position: new vscode.Position(line - 1, at), name: target.symbol }];
  }
  return [{ uri: document.uri, position: new vscode.Position(line - 1, text.length - text.trimStart().length) }];
}

/** Where `name` occurs as a whole word in `text` (else anywhere); -1 when nowhere. */
function wordIndex(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).exec(text);
  return word ? word.index : text.indexOf(name);
}

/** The positions of the workspace symbols named exactly `name` (VS Code's workspace symbol search, as findDefinitions("name") of Symposium's design does). */
async function symbolsNamed(name: string): Promise<Target[]> {
  const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", name)) ?? [];
  const exact = found.filter((symbol) => symbol.name === name || symbol.name.replace(/\(.*$/, "") === name);
  const inside = exact.filter((symbol) => symbol.location.uri.scheme === "file" && insideFolders(symbol.location.uri.fsPath, folders()) !== undefined);
  if (inside.length === 0) {
    throw new ChannelRefusal(
      `no symbol named ${name} in the workspace (VS Code's workspace symbol search found ${found.length} near matches${
        found.length
          ? `: ${found
              .slice(0, 5)
              .map((symbol) => symbol.name)
              .join(", ")}`
          : ""
      }); give path and line instead`,
    );
  }
  const result: Target[] = [];
  for (const symbol of inside.slice(0, LIMITS.maxNamedSymbols)) {
    const document = await loadDocument(realPath(symbol.location.uri.fsPath));
    const start = document.offsetAt(symbol.location.range.start);
    const at = wordIndex(document.getText(symbol.location.range), name);
    result.push({ uri: document.uri, position: document.positionAt(start + Math.max(0, at)), name });
  }
  return result;
}

interface LocationAnswer {
  path: string;
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
  text: string;
}

/** Locations or links as path and 1-based range, files only, duplicates dropped. */
function locations(found: Array<vscode.Location | vscode.LocationLink>): Array<Omit<LocationAnswer, "text">> {
  const seen = new Set<string>();
  const answers: Array<Omit<LocationAnswer, "text">> = [];
  for (const item of found) {
    const uri = "targetUri" in item ? item.targetUri : item.uri;
    const range = "targetUri" in item ? (item.targetSelectionRange ?? item.targetRange) : item.range;
    const key = `${uri.toString()}:${range.start.line}:${range.start.character}`;
    if (seen.has(key) || uri.scheme !== "file") continue;
    seen.add(key);
    answers.push({ path: uri.fsPath, ...rangeOf(range) });
  }
  return answers;
}

/**
 * Each location with its line's text (only inside the workspace), for one page: an open document's line, or a
 * file's first lines read from the disk only as far as the last line shown, LIMITS.maxLineTextBytes for the whole
 * answer (a location past it is listed without its text). So a symbol used in a thousand large files reads little.
 */
function withLineText(page: Array<Omit<LocationAnswer, "text">>): LocationAnswer[] {
  const lines = new LineReader(page);
  return page.map((location) => {
    const inside = insideFolders(location.path, folders()) !== undefined;
    return { ...location, text: inside ? capped(lines.line(location.path, location.line - 1).trim(), 300) : "" };
  });
}

/** The lines a page of locations shows, from open documents or the disk, each file read once and only as far as needed. */
class LineReader {
  private readonly lastNeeded = new Map<string, number>();
  private readonly read = new Map<string, (index: number) => string>();
  private budget: number = LIMITS.maxLineTextBytes;

  constructor(page: ReadonlyArray<{ path: string; line: number }>) {
    for (const { path: file, line } of page) this.lastNeeded.set(file, Math.max(this.lastNeeded.get(file) ?? 0, line - 1));
  }

  line(file: string, index: number): string {
    let lineOf = this.read.get(file);
    if (lineOf === undefined) {
      lineOf = this.open(file);
      this.read.set(file, lineOf);
    }
    return lineOf(index);
  }

  private open(file: string): (index: number) => string {
    const real = realPath(file);
    const document = openDocument(real);
    if (document) return (index) => (index < document.lineCount ? document.lineAt(index).text : "");
    try {
      const { lines, bytesRead } = readLeadingLines(real, (this.lastNeeded.get(file) ?? 0) + 1, this.budget);
      this.budget -= bytesRead;
      return (index) => lines[index] ?? "";
    } catch {
      return () => "";
    }
  }
}

async function findDefinitions(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const found: Array<vscode.Location | vscode.LocationLink> = [];
  for (const target of await targets(params)) {
    found.push(
      ...((await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(
        "vscode.executeDefinitionProvider",
        target.uri,
        target.position,
      )) ?? []),
    );
  }
  return { definitions: withLineText(locations(found).slice(0, LIMITS.pageSize)) };
}

async function findReferences(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const offset = integer(params.offset, "offset", 0);
  const found: vscode.Location[] = [];
  for (const target of await targets(params)) {
    found.push(...((await vscode.commands.executeCommand<vscode.Location[]>("vscode.executeReferenceProvider", target.uri, target.position)) ?? []));
  }
  const { items, page } = pageOf(locations(found), offset);
  return { ...page, references: withLineText(items) };
}

async function hover(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const parts: string[] = [];
  for (const target of (await targets(params)).slice(0, 3)) {
    const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", target.uri, target.position)) ?? [];
    for (const item of hovers) for (const content of item.contents) parts.push(typeof content === "string" ? content : "value" in content ? content.value : "");
  }
  return { hover: capped(parts.filter((part) => part.trim() !== "").join("\n\n---\n\n"), LIMITS.maxAnswerChars) };
}

interface SymbolAnswer {
  name: string;
  kind: string;
  detail?: string;
  startLine: number;
  endLine: number;
  depth: number;
}

async function documentSymbols(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const offset = integer(params.offset, "offset", 0);
  const document = await loadDocument(resolvePath(params.path));
  const found =
    (await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>("vscode.executeDocumentSymbolProvider", document.uri)) ?? [];
  const flat: SymbolAnswer[] = [];
  const walk = (symbol: vscode.DocumentSymbol | vscode.SymbolInformation, depth: number): void => {
    const range = "location" in symbol ? symbol.location.range : symbol.range;
    const detail = "detail" in symbol && symbol.detail ? symbol.detail : undefined;
    flat.push({
      name: symbol.name,
      kind: vscode.SymbolKind[symbol.kind] ?? "Unknown",
      ...(detail ? { detail } : {}),
      startLine: range.start.line + 1,
      endLine: range.end.line + 1,
      depth,
    });
    if ("children" in symbol) for (const child of symbol.children) walk(child, depth + 1);
  };
  for (const symbol of found) walk(symbol, 0);
  const { items, page } = pageOf(flat, offset);
  return { path: document.uri.fsPath, ...page, symbols: items };
}

async function workspaceSymbols(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (typeof params.query !== "string" || params.query === "") throw new ChannelRefusal("query must be a non-empty string", CHANNEL_ERROR.invalidParams);
  const offset = integer(params.offset, "offset", 0);
  const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", params.query)) ?? [];
  const inside = found.filter((symbol) => symbol.location.uri.scheme === "file" && insideFolders(symbol.location.uri.fsPath, folders()) !== undefined);
  const all = inside.map((symbol) => ({
    name: symbol.name,
    kind: vscode.SymbolKind[symbol.kind] ?? "Unknown",
    container: symbol.containerName || null,
    path: symbol.location.uri.fsPath,
    line: symbol.location.range.start.line + 1,
  }));
  const { items, page } = pageOf(all, offset);
  return { ...page, symbols: items };
}

/** `make()`, its ProposalError as the window's refusal of bad arguments. */
function asRefusal<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof ProposalError) throw new ChannelRefusal(error.message, CHANNEL_ERROR.invalidParams);
    throw error;
  }
}

async function proposeEdit(params: Record<string, unknown>, deps: EditorToolsDeps): Promise<ProposeEditResult> {
  if (!vscode.workspace.isTrusted) throw new ChannelRefusal("this workspace is not trusted: VS Code takes no edits from agents in it");
  const proposal = asRefusal(() => checkProposal(params));
  const real = resolvePath(proposal.path);
  const exists = fs.existsSync(real);
  // The one policy for a write to a file open in the editor (agent-writes.ts), as for the chat's writes.
  const decision = openFileDecision(openDocument(real));
  if (decision === "refuseUnsaved") return { path: real, decision: "unsaved", message: `${unsavedChangesMessage(real)}; nothing was changed` };
  const document = exists ? await loadDocument(real) : undefined;
  const current = document?.getText() ?? "";
  const proposed = asRefusal(() => proposedText(current, proposal));
  if (exists && proposed === current)
    return { path: real, decision: "applied", finalText: current, message: "nothing to change: the file already holds this text" };
  if (readConfig().chatAgentEdits !== "review") return applyProposal(real, document, current, proposed, "applied");
  // The right side is editable: the user may change the proposal before accepting it.
  const editable = deps.proposals.add(real, proposed);
  const title = typeof proposal.title === "string" ? proposal.title.slice(0, 200) : undefined;
  let answer: Awaited<ReturnType<typeof reviewInDiff>>;
  let reviewed: string;
  try {
    answer = await reviewInDiff(real, current, proposed, deps.documents, { title, editable });
  } finally {
    reviewed = deps.proposals.take(editable) ?? proposed;
  }
  if (answer === UNANSWERED) return { path: real, decision: "unanswered", message: unansweredMessage(real) };
  if (answer !== ACCEPT) return { path: real, decision: "rejected", message: "the user rejected the proposal; nothing was changed" };
  return applyProposal(real, document, current, reviewed, "accepted", reviewed !== proposed);
}

/**
 * One WorkspaceEdit (undoable): the change from `current` carried over what the user typed meanwhile, as
 * for the chat's writes (agent-edits.ts applyChange); saved when the document had no unsaved changes.
 */
async function applyProposal(
  real: string,
  document: vscode.TextDocument | undefined,
  current: string,
  proposed: string,
  decision: "accepted" | "applied",
  changedByUser = false,
): Promise<ProposeEditResult> {
  const uri = vscode.Uri.file(real);
  let applied: "applied" | "changed" | "failed";
  if (document === undefined) {
    const edit = new vscode.WorkspaceEdit();
    edit.createFile(uri, { ignoreIfExists: false });
    edit.insert(uri, new vscode.Position(0, 0), proposed);
    applied = (await vscode.workspace.applyEdit(edit)) ? "applied" : "failed";
    if (applied === "applied") await (openDocument(real) ?? (await vscode.workspace.openTextDocument(uri))).save();
  } else {
    applied = await applyChange(document, changeBetween(current, proposed), current);
  }
  if (applied === "changed") {
    return {
      path: real,
      decision: "conflict",
      message: "the user changed the same part of the file while reviewing the proposal; nothing was changed: read it again and propose anew",
    };
  }
  if (applied === "failed") return { path: real, decision: "conflict", message: "VS Code did not apply the edit (the file may have changed or be read-only)" };
  const after = openDocument(real) ?? (await vscode.workspace.openTextDocument(uri));
  const finalText = after.getText();
  const note = after.isDirty ? " (the user typed into the file meanwhile: it stays unsaved)" : "";
  const accepted = changedByUser ? "the user changed the proposal, then accepted it (finalText is what was applied)" : "the user accepted the proposal";
  return { path: real, decision, finalText: capped(finalText, LIMITS.maxAnswerChars), message: `${decision === "accepted" ? accepted : "applied"}${note}` };
}
