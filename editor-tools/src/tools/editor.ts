// What the editor tools need of an editor (documents, diagnostics, language
// features, edits), as plain data: the tools (this folder) are written against
// it, the extension implements it once over `vscode`
// (extension/src/tools/vscode-editor.ts), the unit tests over documents in memory
// (test/unit/editor-tools/memory-editor.ts). Lines and characters are 0-based,
// as VS Code counts; the tools answer 1-based.

import type { AgentEditsSetting } from "../../../editor-state/src/index.js";

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A text document as the editor holds it: its text with unsaved changes. */
export interface EditorDocument {
  /** The editor's name for it (a URI), handed back to the language features. */
  readonly uri: string;
  /** Its file's path, as the editor spells it. */
  readonly path: string;
  /** The editor holds changes not saved to the file. */
  readonly unsaved: boolean;
  readonly lineCount: number;
  /** The whole text, or the text of `range`. */
  text(range?: Range): string;
  /** Line `index`'s text, without its line break. */
  lineText(index: number): string;
  offsetAt(position: Position): number;
  positionAt(offset: number): Position;
}

/** The text editor the user is in. */
export interface ActiveEditor {
  /** The file's path, or the document's URI when it is no file. */
  name: string;
  languageId: string;
  document: EditorDocument;
  selections: Range[];
  visibleRanges: Range[];
}

/** An editor tab holding a text file. */
export interface OpenEditorTab {
  path: string;
  unsaved: boolean;
  /** The active tab of the active group. */
  active: boolean;
}

export interface Diagnostic {
  range: Range;
  /** VS Code's DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  message: string;
  source?: string;
  code?: string | number;
}

/** A file's problems, as the editor reports them now. */
export interface FileDiagnostics {
  path: string;
  diagnostics: Diagnostic[];
}

/** A place in a file (a location or a link's target). */
export interface Location {
  path: string;
  range: Range;
}

/** A symbol of a document's outline, with the symbols nested in it. */
export interface OutlineSymbol {
  name: string;
  /** VS Code's SymbolKind by name ("Function", "Class"…). */
  kind: string;
  detail?: string;
  range: Range;
  children: OutlineSymbol[];
}

/** A symbol of the workspace symbol search. */
export interface WorkspaceSymbol {
  name: string;
  kind: string;
  containerName: string;
  /** Its file, or undefined when it is in no file (another scheme). */
  path: string | undefined;
  range: Range;
}

/** Where a language feature is asked about. */
export interface DocumentPosition {
  document: EditorDocument;
  position: Position;
}

/** What the user answered to a proposal shown for review, and the proposal's text then (they may have changed it). */
export interface ReviewAnswer {
  answer: "accepted" | "rejected" | "unanswered";
  text: string;
}

export interface Editor {
  /** The window's workspace folders' paths. */
  folders(): string[];

  // Documents and files.
  /** `file`'s real path (links resolved), or `file` when it has none. */
  realPath(file: string): string;
  /** The document open for real path `real`, if any. */
  openDocument(real: string): EditorDocument | undefined;
  /** The document for `real`, opened from the file when it is not open (unbounded: the tools check the size first). */
  loadDocument(real: string): Promise<EditorDocument>;
  /** The file's size in bytes; throws (with an errno `code`) when it cannot be read. */
  fileSize(real: string): number;
  fileExists(real: string): boolean;
  /** The file's text from the disk (read-disk.ts: bounded, a regular file, its last link not followed). */
  readDisk(real: string): string;
  /** Its first `count` lines from the disk, read no further than `maxBytes` (read-disk.ts). */
  readLeadingLines(real: string, count: number, maxBytes: number): { lines: string[]; bytesRead: number };

  // What the user sees.
  /** The active text editor, or the one the user was last in. */
  activeEditor(): ActiveEditor | undefined;
  openEditors(): OpenEditorTab[];

  // Diagnostics.
  /** Every file's problems (files only). */
  allDiagnostics(): FileDiagnostics[];
  fileDiagnostics(real: string): FileDiagnostics;

  // Language features (VS Code's providers).
  definitions(at: DocumentPosition): Promise<Location[]>;
  references(at: DocumentPosition): Promise<Location[]>;
  /** Each hover's contents as Markdown or plain text. */
  hovers(at: DocumentPosition): Promise<string[]>;
  documentSymbols(document: EditorDocument): Promise<OutlineSymbol[]>;
  workspaceSymbols(query: string): Promise<WorkspaceSymbol[]>;

  // Edits.
  /** Whether the workspace is trusted (an untrusted one takes no edits from agents). */
  trusted(): boolean;
  /** The user's choice for an agent's edits (symposium.chat.agentEdits). */
  agentEdits(): AgentEditsSetting;
  /** Shows `proposed` against `current` as a diff the user may edit, and waits for their answer (agent-edits.ts). */
  review(real: string, current: string, proposed: string, title: string | undefined): Promise<ReviewAnswer>;
  /**
   * `current` → `proposed` as one undoable edit: into `document` (carried over what the user typed meanwhile),
   * or, with none, a new file created and saved. "changed": the user changed the same part meanwhile.
   */
  write(real: string, document: EditorDocument | undefined, current: string, proposed: string): Promise<"applied" | "changed" | "failed">;
}
