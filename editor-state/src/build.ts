// The writer's half of the format (docs/state-file.md): turns plain facts
// about the editor (what the tracker reads off VS Code) into the object the
// state file holds. Pure, so the caps and line rules are tested without VS Code.
//
// Caps keep a write cheap whatever the user does: selected text is read
// through `textBetween` only up to the remaining budget, so selecting a 50 MB
// file costs one 64 K-character read, not 50 MB.

import {
  STATE_FORMAT_VERSION,
  type CursorState,
  type DiagnosticSeverity,
  type DiagnosticState,
  type DocumentState,
  type EditorToolsState,
  type SelectionState,
  type UnsavedDocumentState,
} from "./index.js";

/** 0-based, as VS Code counts. */
export interface EditorPosition {
  line: number;
  character: number;
}

export interface SelectionFacts {
  start: EditorPosition;
  end: EditorPosition;
  /** Where the cursor is (start or end). */
  active: EditorPosition;
  /** Offsets of start and end in the document's text (UTF-16 code units). */
  startOffset: number;
  endOffset: number;
}

export interface DiagnosticFacts {
  /** 0-based lines of its range. */
  startLine: number;
  endLine: number;
  /** VS Code's DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  source: string | undefined;
  message: string;
}

export interface EditorFacts {
  uri: string;
  scheme: string;
  /** The path on disk, for `file:` documents. */
  fsPath: string;
  /** A short name for documents that are not files (`Untitled-1`). */
  label: string;
  languageId: string;
  isDirty: boolean;
  /** Primary first, as VS Code orders them. */
  selections: SelectionFacts[];
  /** The document's text between two offsets. */
  textBetween(startOffset: number, endOffset: number): string;
  diagnostics: DiagnosticFacts[];
}

export interface StateFacts {
  /** The last text editor the user was in, or null when none is open. */
  editor: EditorFacts | null;
  workspaceFolders: string[];
  writerPid: number;
  now: Date;
  /** The window's unsaved files, their snapshots already written (extension/src/tracker/unsaved-snapshots.ts). */
  unsavedDocuments?: UnsavedDocumentState[];
  /** The editor's tools and the window's live channel (docs/editor-tools.md); absent: not written. */
  editorTools?: EditorToolsState;
}

export interface StateLimits {
  /** All selected text together, in characters. */
  maxSelectionChars: number;
  maxSelections: number;
  maxDiagnostics: number;
  /** All diagnostic entries together, as JSON characters. */
  maxDiagnosticChars: number;
  /** One diagnostic's message. */
  maxMessageChars: number;
}

export const DEFAULT_STATE_LIMITS: StateLimits = {
  maxSelectionChars: 64 * 1024,
  maxSelections: 100,
  maxDiagnostics: 20,
  maxDiagnosticChars: 4 * 1024,
  maxMessageChars: 1000,
};

/** What the tracker writes: every field docs/state-file.schema.json names. */
export interface StateFile {
  version: number;
  activeFile: string | null;
  languageId: string | null;
  selection: SelectionState | null;
  /** Only with more than one selection: one selection is `selection` alone, not written twice. */
  selections?: SelectionState[];
  cursor: CursorState | null;
  isDirty: boolean;
  document: DocumentState | null;
  diagnostics: DiagnosticState[];
  selectionTruncated: boolean;
  omittedSelections: number;
  omittedDiagnostics: number;
  workspaceFolders: string[];
  /** Only when the window has unsaved files: older files have none, and readers take none for none. */
  unsavedDocuments?: UnsavedDocumentState[];
  /** Only from a tracker that runs the channel (or with the tools turned off). */
  editorTools?: EditorToolsState;
  writerPid: number;
  updatedAt: string;
}

export function buildStateFile(facts: StateFacts, limits: StateLimits = DEFAULT_STATE_LIMITS): StateFile {
  const editor = facts.editor;
  const selected = editor ? cappedSelections(editor, limits) : { selections: [], omitted: 0, truncated: false };
  const primary = editor?.selections[0];
  const cursor = primary ? { line: primary.active.line + 1, character: primary.active.character + 1 } : null;
  const diagnostics = editor ? relevantDiagnostics(editor, selected.selections, cursor, limits) : { entries: [], omitted: 0 };
  const isFile = editor?.scheme === "file";
  return {
    version: STATE_FORMAT_VERSION,
    activeFile: editor && isFile ? editor.fsPath : null,
    languageId: editor?.languageId || null,
    selection: selected.selections[0] ?? null,
    ...(selected.selections.length > 1 ? { selections: selected.selections } : {}),
    cursor,
    isDirty: editor?.isDirty ?? false,
    document: editor && !isFile ? { uri: editor.uri, scheme: editor.scheme, label: editor.label || null } : null,
    diagnostics: diagnostics.entries,
    selectionTruncated: selected.truncated,
    omittedSelections: selected.omitted,
    omittedDiagnostics: diagnostics.omitted,
    workspaceFolders: facts.workspaceFolders,
    ...(facts.unsavedDocuments?.length ? { unsavedDocuments: facts.unsavedDocuments } : {}),
    ...(facts.editorTools ? { editorTools: facts.editorTools } : {}),
    writerPid: facts.writerPid,
    updatedAt: facts.now.toISOString(),
  };
}

/**
 * The file's JSON text, and its content apart from the time stamp as `key`
 * (equal keys: nothing worth a write changed); one stringify of the 64 KiB
 * selection serves both.
 */
export function serializeStateFile(file: StateFile): { key: string; text: string } {
  const key = JSON.stringify({ ...file, updatedAt: undefined });
  return { key, text: `${key.slice(0, -1)},"updatedAt":${JSON.stringify(file.updatedAt)}}` };
}

/**
 * The last line that holds selected text, 1-based. A selection ending at
 * column 0 of a later line (Shift+Down) selects nothing on that line.
 */
export function selectionEndLine(start: EditorPosition, end: EditorPosition): number {
  return end.character === 0 && end.line > start.line ? end.line : end.line + 1;
}

function cappedSelections(editor: EditorFacts, limits: StateLimits): { selections: SelectionState[]; omitted: number; truncated: boolean } {
  const selections: SelectionState[] = [];
  let budget = limits.maxSelectionChars;
  let omitted = 0;
  let truncated = false;
  for (const facts of editor.selections) {
    const length = facts.endOffset - facts.startOffset;
    if (length <= 0) continue;
    if (budget <= 0 || selections.length >= limits.maxSelections) {
      omitted++;
      continue;
    }
    const selection = readSelection(editor, facts, Math.min(length, budget));
    if (selection.totalChars !== undefined) truncated = true;
    budget -= selection.text.length;
    selections.push(selection);
  }
  return { selections, omitted, truncated: truncated || omitted > 0 };
}

function readSelection(editor: EditorFacts, facts: SelectionFacts, take: number): SelectionState {
  let text = editor.textBetween(facts.startOffset, facts.startOffset + take);
  const length = facts.endOffset - facts.startOffset;
  const selection: SelectionState = { text, startLine: facts.start.line + 1, endLine: selectionEndLine(facts.start, facts.end) };
  if (text.length < length) {
    // Never keep half of a surrogate pair.
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) text = text.slice(0, -1);
    selection.text = text;
    selection.totalChars = length;
  }
  return selection;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const SEVERITY_NAMES: DiagnosticSeverity[] = ["error", "warning", "information", "hint"];
/** Errors and warnings only: hints and information are noise in a prompt. */
const MAX_SEVERITY = 1;

function relevantDiagnostics(
  editor: EditorFacts,
  selections: SelectionState[],
  cursor: CursorState | null,
  limits: StateLimits,
): { entries: DiagnosticState[]; omitted: number } {
  // 1-based inclusive line spans the user is looking at.
  const spans =
    selections.length > 0
      ? selections.map((selection) => [selection.startLine, selection.endLine] as const)
      : cursor
        ? [[cursor.line, cursor.line] as const]
        : [];
  const relevant = editor.diagnostics
    .filter((diagnostic) => diagnostic.severity <= MAX_SEVERITY && spans.some(([from, to]) => diagnostic.startLine + 1 <= to && diagnostic.endLine + 1 >= from))
    .sort((a, b) => a.severity - b.severity || a.startLine - b.startLine);
  const entries: DiagnosticState[] = [];
  let chars = 0;
  for (const facts of relevant) {
    if (entries.length >= limits.maxDiagnostics) break;
    const entry: DiagnosticState = {
      line: facts.startLine + 1,
      severity: SEVERITY_NAMES[facts.severity] ?? "error",
      source: facts.source || null,
      message: clip(facts.message, limits.maxMessageChars),
    };
    chars += JSON.stringify(entry).length;
    if (chars > limits.maxDiagnosticChars) break;
    entries.push(entry);
  }
  return { entries, omitted: relevant.length - entries.length };
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}
