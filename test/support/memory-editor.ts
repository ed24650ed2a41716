// The editor interface of the editor tools (editor-tools/src/tools/editor.ts)
// over documents and files in memory: the unit tests run each tool's real
// handler against it. A test double, kept honest by the tools' e2e tests in
// code-server (test/e2e/editor-tools.test.ts), which run the same handlers
// over VS Code (extension/src/tools/vscode-editor.ts). Paths live under a root that
// does not exist on the disk, so the one real path check (workspace-paths.ts)
// judges them as they are written.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import type { AgentEditsSetting } from "../../editor-state/src/index.js";
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
} from "../../editor-tools/src/tools/editor.js";
import { ChannelRefusal } from "../../editor-tools/src/tools/tool.js";

/** A folder no test machine has: the workspace of the in-memory editor. */
export const MEMORY_ROOT = path.resolve("/symposium-memory-editor");

/** A document held in memory: its text and whether it is unsaved. */
export class MemoryDocument implements EditorDocument {
  readonly uri: string;
  private starts: number[] = [];

  constructor(
    readonly path: string,
    private content: string,
    public unsaved = false,
  ) {
    this.uri = `file://${path}`;
    this.index();
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** What the user types: the whole text replaced, unsaved. */
  type(content: string): void {
    this.content = content;
    this.unsaved = true;
    this.index();
  }

  text(range?: Range): string {
    return range === undefined ? this.content : this.content.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }

  lineText(index: number): string {
    const end = index + 1 < this.starts.length ? this.starts[index + 1]! - 1 : this.content.length;
    return this.content.slice(this.starts[index], end).replace(/\r$/, "");
  }

  offsetAt(position: Position): number {
    const line = Math.min(Math.max(0, position.line), this.lineCount - 1);
    return Math.min(this.starts[line]! + position.character, this.starts[line]! + this.lineText(line).length);
  }

  positionAt(offset: number): Position {
    const at = Math.min(Math.max(0, offset), this.content.length);
    let line = 0;
    while (line + 1 < this.starts.length && this.starts[line + 1]! <= at) line++;
    return { line, character: at - this.starts[line]! };
  }

  private index(): void {
    this.starts = [0];
    for (let at = this.content.indexOf("\n"); at >= 0; at = this.content.indexOf("\n", at + 1)) this.starts.push(at + 1);
  }
}

/** What the language features answer, set by each test (none by default). */
export interface MemoryLanguage {
  definitions(at: DocumentPosition): Location[];
  references(at: DocumentPosition): Location[];
  hovers(at: DocumentPosition): string[];
  documentSymbols(document: EditorDocument): OutlineSymbol[];
  workspaceSymbols(query: string): WorkspaceSymbol[];
}

export class MemoryEditor implements Editor {
  readonly workspace: string[];
  /** The disk: path → text. */
  readonly files = new Map<string, string>();
  /** Open documents, by path. */
  readonly documents = new Map<string, MemoryDocument>();
  readonly diagnostics = new Map<string, FileDiagnostics["diagnostics"]>();
  readonly language: MemoryLanguage = {
    definitions: () => [],
    references: () => [],
    hovers: () => [],
    documentSymbols: () => [],
    workspaceSymbols: () => [],
  };
  active: ActiveEditor | undefined;
  tabs: OpenEditorTab[] = [];
  isTrusted = true;
  setting: AgentEditsSetting = "apply";
  /** The user's answer to a review (default: accepted as proposed). */
  answerReview: (real: string, current: string, proposed: string, title: string | undefined) => ReviewAnswer = (_real, _current, proposed) => ({
    answer: "accepted",
    text: proposed,
  });
  /** What a write does instead of applying (a conflict, a refusal): none by default. */
  writeOutcome: "changed" | "failed" | undefined;
  /** Every review asked, and every write made. */
  readonly reviews: Array<{ real: string; current: string; proposed: string; title: string | undefined }> = [];
  readonly writes: Array<{ real: string; text: string }> = [];
  /** Paths read from the disk, in order (the line texts' budget). */
  readonly diskReads: string[] = [];

  constructor(folders: string[] = [path.join(MEMORY_ROOT, "project")]) {
    this.workspace = folders;
  }

  /** A path in the first folder. */
  at(relative: string): string {
    return path.join(this.workspace[0]!, relative);
  }

  /** Opens `file` (its disk text, or `text`) as a document; unsaved when given text differing from the disk's. */
  open(file: string, text?: string): MemoryDocument {
    const onDisk = this.files.get(file);
    const document = new MemoryDocument(file, text ?? onDisk ?? "", text !== undefined && text !== onDisk);
    this.documents.set(file, document);
    return document;
  }

  folders(): string[] {
    return [...this.workspace];
  }

  realPath(file: string): string {
    return file;
  }

  openDocument(real: string): EditorDocument | undefined {
    return this.documents.get(real);
  }

  async loadDocument(real: string): Promise<EditorDocument> {
    return this.documents.get(real) ?? this.open(real, this.disk(real));
  }

  fileSize(real: string): number {
    return Buffer.byteLength(this.disk(real));
  }

  fileExists(real: string): boolean {
    return this.files.has(real);
  }

  readDisk(real: string): string {
    this.diskReads.push(real);
    return this.disk(real);
  }

  readLeadingLines(real: string, count: number, maxBytes: number): { lines: string[]; bytesRead: number } {
    this.diskReads.push(real);
    const bytes = Buffer.from(this.disk(real)).subarray(0, maxBytes);
    return { lines: bytes.toString("utf8").split(/\r?\n/).slice(0, count), bytesRead: bytes.length };
  }

  activeEditor(): ActiveEditor | undefined {
    return this.active;
  }

  openEditors(): OpenEditorTab[] {
    return this.tabs;
  }

  allDiagnostics(): FileDiagnostics[] {
    return [...this.diagnostics].map(([file, diagnostics]) => ({ path: file, diagnostics }));
  }

  fileDiagnostics(real: string): FileDiagnostics {
    return { path: real, diagnostics: this.diagnostics.get(real) ?? [] };
  }

  async definitions(at: DocumentPosition): Promise<Location[]> {
    return this.language.definitions(at);
  }

  async references(at: DocumentPosition): Promise<Location[]> {
    return this.language.references(at);
  }

  async hovers(at: DocumentPosition): Promise<string[]> {
    return this.language.hovers(at);
  }

  async documentSymbols(document: EditorDocument): Promise<OutlineSymbol[]> {
    return this.language.documentSymbols(document);
  }

  async workspaceSymbols(query: string): Promise<WorkspaceSymbol[]> {
    return this.language.workspaceSymbols(query);
  }

  trusted(): boolean {
    return this.isTrusted;
  }

  agentEdits(): AgentEditsSetting {
    return this.setting;
  }

  async review(real: string, current: string, proposed: string, title: string | undefined): Promise<ReviewAnswer> {
    this.reviews.push({ real, current, proposed, title });
    return this.answerReview(real, current, proposed, title);
  }

  async write(real: string, document: EditorDocument | undefined, _current: string, proposed: string): Promise<"applied" | "changed" | "failed"> {
    if (this.writeOutcome !== undefined) return this.writeOutcome;
    this.writes.push({ real, text: proposed });
    this.files.set(real, proposed);
    if (document !== undefined) this.open(real);
    return "applied";
  }

  /** The file's text on the disk, or an ENOENT error as Node's. */
  private disk(real: string): string {
    const text = this.files.get(real);
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${real}'`), { code: "ENOENT" });
    return text;
  }
}

/** A range on one line (0-based). */
export function lineRange(line: number, character: number, endCharacter = character): Range {
  return { start: { line, character }, end: { line, character: endCharacter } };
}

/** Asserts that `call` is refused with `code` and a message matching `message`. */
export async function assertRefused(call: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof ChannelRefusal, `a ChannelRefusal, not ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return true;
  });
}
