// The editor interface the editor tools are written against
// (editor-tools/src/tools/editor.ts), implemented once over `vscode`: open
// documents, the active editor and tabs, vscode.languages.getDiagnostics, the
// vscode.execute…Provider commands, and propose_edit's review (the agent-edits
// diff with Accept/Reject) and its one WorkspaceEdit. Plain data out, 0-based
// positions; the tools keep every bound and message.

import * as fs from "node:fs";
import * as vscode from "vscode";
import type { AgentEditsSetting } from "../../../editor-state/src/index.js";
import type {
  ActiveEditor,
  DocumentPosition,
  Editor,
  EditorDocument,
  FileDiagnostics,
  Location,
  OpenEditorTab,
  OutlineSymbol,
  Position,
  Range,
  ReviewAnswer,
  WorkspaceSymbol,
} from "../../../editor-tools/src/tools/editor.js";
import { readDisk, readLeadingLines } from "../../../editor-tools/src/read-disk.js";
import { ACCEPT, applyChange, reviewInDiff } from "../turns/agent-edits.js";
import type { BeforeDocuments } from "../turns/before-documents.js";
import { readConfig } from "../config.js";
import { changeBetween } from "../turns/edit-rebase.js";
import type { ProposalDocuments } from "./proposal-documents.js";
import { UNANSWERED } from "../turns/review-deadline.js";

export interface VsCodeEditorDeps {
  documents: BeforeDocuments;
  /** The editable right sides of propose_edit's diffs. */
  proposals: ProposalDocuments;
  /** The editor the user was last in (the tracker's), when the active one is not a text editor (focus in the chat). */
  contextEditor(): vscode.TextEditor | undefined;
}

export class VsCodeEditor implements Editor {
  constructor(private readonly deps: VsCodeEditorDeps) {}

  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  }

  realPath(file: string): string {
    try {
      return fs.realpathSync.native(file);
    } catch {
      return file;
    }
  }

  openDocument(real: string): EditorDocument | undefined {
    const open = this.openTextDocument(real);
    return open && documentOf(open);
  }

  async loadDocument(real: string): Promise<EditorDocument> {
    return documentOf(this.openTextDocument(real) ?? (await vscode.workspace.openTextDocument(vscode.Uri.file(real))));
  }

  fileSize(real: string): number {
    return fs.statSync(real).size;
  }

  fileExists(real: string): boolean {
    return fs.existsSync(real);
  }

  readDisk(real: string): string {
    return readDisk(real, this.folders());
  }

  readLeadingLines(real: string, count: number, maxBytes: number): { lines: string[]; bytesRead: number } {
    return readLeadingLines(real, this.folders(), count, maxBytes);
  }

  activeEditor(): ActiveEditor | undefined {
    const editor = vscode.window.activeTextEditor ?? this.deps.contextEditor();
    if (editor === undefined) return undefined;
    const { document } = editor;
    return {
      name: document.uri.scheme === "file" ? document.uri.fsPath : document.uri.toString(),
      languageId: document.languageId,
      document: documentOf(document),
      selections: editor.selections.map(rangeOf),
      visibleRanges: editor.visibleRanges.map(rangeOf),
    };
  }

  openEditors(): OpenEditorTab[] {
    return vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputText)
      .map((tab) => ({ path: (tab.input as vscode.TabInputText).uri.fsPath, unsaved: tab.isDirty, active: tab.isActive && tab.group.isActive }));
  }

  allDiagnostics(): FileDiagnostics[] {
    return vscode.languages
      .getDiagnostics()
      .filter(([uri]) => uri.scheme === "file")
      .map(([uri, list]) => ({ path: uri.fsPath, diagnostics: list.map(diagnosticOf) }));
  }

  fileDiagnostics(real: string): FileDiagnostics {
    const uri = vscode.Uri.file(real);
    return { path: uri.fsPath, diagnostics: vscode.languages.getDiagnostics(uri).map(diagnosticOf) };
  }

  async definitions(at: DocumentPosition): Promise<Location[]> {
    return locationsOf(await this.provided<Array<vscode.Location | vscode.LocationLink>>("vscode.executeDefinitionProvider", at));
  }

  async references(at: DocumentPosition): Promise<Location[]> {
    return locationsOf(await this.provided<vscode.Location[]>("vscode.executeReferenceProvider", at));
  }

  async hovers(at: DocumentPosition): Promise<string[]> {
    const hovers = (await this.provided<vscode.Hover[]>("vscode.executeHoverProvider", at)) ?? [];
    return hovers.flatMap((item) => item.contents.map((content) => (typeof content === "string" ? content : "value" in content ? content.value : "")));
  }

  async documentSymbols(document: EditorDocument): Promise<OutlineSymbol[]> {
    const found = await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined>(
      "vscode.executeDocumentSymbolProvider",
      vscode.Uri.parse(document.uri),
    );
    return (found ?? []).map(outlineOf);
  }

  async workspaceSymbols(query: string): Promise<WorkspaceSymbol[]> {
    const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query)) ?? [];
    return found.map((symbol) => ({
      name: symbol.name,
      kind: vscode.SymbolKind[symbol.kind] ?? "Unknown",
      containerName: symbol.containerName,
      path: symbol.location.uri.scheme === "file" ? symbol.location.uri.fsPath : undefined,
      range: rangeOf(symbol.location.range),
    }));
  }

  trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  agentEdits(): AgentEditsSetting {
    return readConfig().chatAgentEdits ?? "apply";
  }

  async review(real: string, current: string, proposed: string, title: string | undefined): Promise<ReviewAnswer> {
    // The right side is editable: the user may change the proposal before accepting it.
    const editable = this.deps.proposals.add(real, proposed);
    let answer: Awaited<ReturnType<typeof reviewInDiff>>;
    let text: string;
    try {
      answer = await reviewInDiff(real, current, proposed, this.deps.documents, { title, editable });
    } finally {
      text = this.deps.proposals.take(editable) ?? proposed;
    }
    return { answer: answer === UNANSWERED ? "unanswered" : answer === ACCEPT ? "accepted" : "rejected", text };
  }

  async write(real: string, document: EditorDocument | undefined, current: string, proposed: string): Promise<"applied" | "changed" | "failed"> {
    if (document !== undefined)
      return applyChange(await vscode.workspace.openTextDocument(vscode.Uri.parse(document.uri)), changeBetween(current, proposed), current);
    const uri = vscode.Uri.file(real);
    const edit = new vscode.WorkspaceEdit();
    edit.createFile(uri, { ignoreIfExists: false });
    edit.insert(uri, new vscode.Position(0, 0), proposed);
    if (!(await vscode.workspace.applyEdit(edit))) return "failed";
    await (this.openTextDocument(real) ?? (await vscode.workspace.openTextDocument(uri))).save();
    return "applied";
  }

  /** The document VS Code holds open for real path `real`, if any. */
  private openTextDocument(real: string): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find(
      (document) => document.uri.scheme === "file" && !document.isClosed && this.realPath(document.uri.fsPath) === real,
    );
  }

  /** A language feature's answer at a position (the vscode.execute…Provider commands). */
  private provided<T>(command: string, at: DocumentPosition): Thenable<T | undefined> {
    return vscode.commands.executeCommand<T | undefined>(
      command,
      vscode.Uri.parse(at.document.uri),
      new vscode.Position(at.position.line, at.position.character),
    );
  }
}

/** A text document as the tools read it, its text read at each call (the user may type between two). */
function documentOf(document: vscode.TextDocument): EditorDocument {
  return {
    uri: document.uri.toString(),
    path: document.uri.fsPath,
    get unsaved() {
      return document.isDirty;
    },
    get lineCount() {
      return document.lineCount;
    },
    text: (range) => document.getText(range && new vscode.Range(positionIn(range.start), positionIn(range.end))),
    lineText: (index) => document.lineAt(index).text,
    offsetAt: (position) => document.offsetAt(positionIn(position)),
    positionAt: (offset) => positionOf(document.positionAt(offset)),
  };
}

function positionIn(position: Position): vscode.Position {
  return new vscode.Position(position.line, position.character);
}

function positionOf(position: vscode.Position): Position {
  return { line: position.line, character: position.character };
}

function rangeOf(range: vscode.Range): Range {
  return { start: positionOf(range.start), end: positionOf(range.end) };
}

function diagnosticOf(diagnostic: vscode.Diagnostic): FileDiagnostics["diagnostics"][number] {
  return {
    range: rangeOf(diagnostic.range),
    severity: diagnostic.severity,
    message: diagnostic.message,
    ...(diagnostic.source !== undefined ? { source: diagnostic.source } : {}),
    ...(diagnostic.code !== undefined ? { code: typeof diagnostic.code === "object" ? String(diagnostic.code.value) : diagnostic.code } : {}),
  };
}

/** Locations or links (a link's target: its selection range, else its range), files only. */
function locationsOf(found: Array<vscode.Location | vscode.LocationLink> | undefined): Location[] {
  return (found ?? []).flatMap((item) => {
    const uri = "targetUri" in item ? item.targetUri : item.uri;
    const range = "targetUri" in item ? (item.targetSelectionRange ?? item.targetRange) : item.range;
    return uri.scheme === "file" ? [{ path: uri.fsPath, range: rangeOf(range) }] : [];
  });
}

function outlineOf(symbol: vscode.DocumentSymbol | vscode.SymbolInformation): OutlineSymbol {
  const range = "location" in symbol ? symbol.location.range : symbol.range;
  const detail = "detail" in symbol && symbol.detail ? symbol.detail : undefined;
  return {
    name: symbol.name,
    kind: vscode.SymbolKind[symbol.kind] ?? "Unknown",
    ...(detail ? { detail } : {}),
    range: rangeOf(range),
    children: "children" in symbol ? symbol.children.map(outlineOf) : [],
  };
}
