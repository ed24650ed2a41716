// The state file's format (docs/state-file.md): the one definition the
// tracker (writer, in the extension) and the editor-context proxy (reader)
// share. No imports, no I/O: the compiler keeps this folder free of Node and
// VS Code, so either side can load it.
//
// The writer's side, turning plain editor facts into the file's object, is in
// build.ts (re-exported below).
//
// Parsing goes field by field: a field of the wrong type is dropped, never
// fatal, so a file written by an older or newer tracker still yields what it can.

/** The environment variable naming the state file, set by the extension for Toad and all it starts. */
export const STATE_FILE_ENV = "SYMPOSIUM_EDITOR_STATE_FILE";
/** Readers skip a file last written longer ago than this; the writer refreshes well within it. */
export const MAX_STATE_AGE_MS = 30_000;
/** Readers refuse a larger file without reading it. */
export const MAX_STATE_BYTES = 4 * 1024 * 1024;
/** The format version the tracker writes. */
export const STATE_FORMAT_VERSION = 1;

export interface SelectionState {
  text: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Present only when `text` was cut to the size cap: the selection's full length in characters. */
  totalChars?: number;
}

export interface CursorState {
  /** 1-based. */
  line: number;
  /** 1-based. */
  character: number;
}

export type DiagnosticSeverity = "error" | "warning" | "information" | "hint";

/** An error or warning that touches the selected lines (or the cursor's line). */
export interface DiagnosticState {
  /** 1-based line where it starts. */
  line: number;
  severity: DiagnosticSeverity;
  /** Who reported it (`ts`, `json`, `rustc`...), when known. */
  source: string | null;
  message: string;
}

/** A document that is not a file on disk (untitled buffer, git diff, notebook cell...). */
export interface DocumentState {
  uri: string;
  scheme: string;
  label: string | null;
}

/**
 * A file the window holds unsaved changes to (docs/state-file.md, "Unsaved
 * documents"). Its text as the editor has it is in `snapshot`, a file next to
 * the state file; null when the document is over the snapshot caps.
 */
export interface UnsavedDocumentState {
  /** Absolute path of the file on disk. */
  path: string;
  /** The editor's document version the snapshot holds. */
  version: number;
  /** A bare file name in the state file's directory, or null (too large to share). */
  snapshot: string | null;
}

/** One snapshot's limit, in UTF-8 bytes; a larger document is listed with `snapshot: null`. */
export const MAX_SNAPSHOT_BYTES = 2 * 1024 * 1024;
/** All of a window's snapshots together, in UTF-8 bytes. */
export const MAX_SNAPSHOTS_TOTAL_BYTES = 16 * 1024 * 1024;
/** At most this many unsaved documents are listed (the rest are left out). */
export const MAX_UNSAVED_DOCUMENTS = 500;

/**
 * A snapshot name a reader may open: one plain name (no separator, no `..`,
 * no leading dot), so it can only name a file in the state file's directory.
 */
export function isSnapshotName(name: unknown): name is string {
  return typeof name === "string" && name.length <= 200 && /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name) && !name.endsWith(".");
}

/**
 * The state file's `unsavedDocuments`, entry by entry: a bad entry is dropped,
 * a bad snapshot name read as null (the document is still unsaved). Files
 * from older trackers have none.
 */
export function parseUnsavedDocuments(value: unknown): UnsavedDocumentState[] {
  if (!isObject(value) || !Array.isArray(value.unsavedDocuments)) return [];
  const documents: UnsavedDocumentState[] = [];
  for (const entry of value.unsavedDocuments.slice(0, MAX_UNSAVED_DOCUMENTS)) {
    if (!isObject(entry)) continue;
    const path = nonEmptyString(entry.path);
    const version = positiveInteger(entry.version);
    if (path === null || version === null) continue;
    documents.push({ path, version, snapshot: isSnapshotName(entry.snapshot) ? entry.snapshot : null });
  }
  return documents;
}

/**
 * The editor's tools (docs/editor-tools.md): whether the proxy offers agents
 * the editor's MCP server, and the window's live channel to it. The channel is
 * a Unix domain socket (a named pipe on Windows) and the secret a caller must
 * present; both absent when the window has no channel (or another tracker wrote the file).
 */
export interface EditorToolsState {
  /** False when the user turned the tools off (`symposium.editorTools.enabled`). */
  enabled: boolean;
  /** The socket's path, or the pipe's name (`\\.\pipe\…`). */
  socket: string | null;
  /** The per-window secret, hex. */
  secret: string | null;
}

/** A secret the channel accepts: 32 to 128 hex digits. */
export function isChannelSecret(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{32,128}$/.test(value);
}

/** The state file's `editorTools`; null when it has none (older trackers, hand-written files). */
export function parseEditorTools(value: unknown): EditorToolsState | null {
  if (!isObject(value) || !isObject(value.editorTools)) return null;
  const tools = value.editorTools;
  const socket = nonEmptyString(tools.socket);
  const secret = isChannelSecret(tools.secret) ? tools.secret : null;
  const live = socket !== null && secret !== null && socket.length <= 1024;
  return { enabled: tools.enabled !== false, socket: live ? socket : null, secret: live ? secret : null };
}

export interface EditorState {
  activeFile: string | null;
  languageId: string | null;
  /** Every non-empty selection, primary first. */
  selections: SelectionState[];
  /** Where the cursor is when nothing is selected. */
  cursor: CursorState | null;
  /** The editor holds changes that are not saved to disk. */
  isDirty: boolean;
  document: DocumentState | null;
  workspaceFolders: string[];
  /** Errors and warnings that overlap the selections, or the cursor's line. */
  diagnostics: DiagnosticState[];
  /** Selected text was cut or selections left out to keep the file small. */
  selectionTruncated: boolean;
  /** Non-empty selections the file leaves out (over the caps). */
  omittedSelections: number;
  /** Relevant diagnostics the file leaves out (over the caps). */
  omittedDiagnostics: number;
  /** Format version, when the writer gave one. */
  version: number | null;
  /** The process (a VS Code extension host) that writes the file. */
  writerPid: number | null;
  /** When the writer last wrote it, as it says (ISO 8601). */
  updatedAt: string | null;
}

/** Returns null when the value carries no usable active file or document. */
export function parseEditorState(value: unknown): EditorState | null {
  if (!isObject(value)) return null;
  const activeFile = nonEmptyString(value.activeFile);
  const document = parseDocument(value.document);
  if (activeFile === null && document === null) return null;
  return {
    activeFile,
    languageId: nonEmptyString(value.languageId),
    selections: parseSelections(value.selection, value.selections),
    cursor: parseCursor(value.cursor),
    isDirty: value.isDirty === true,
    document,
    workspaceFolders: Array.isArray(value.workspaceFolders) ? value.workspaceFolders.filter((folder): folder is string => nonEmptyString(folder) !== null) : [],
    diagnostics: Array.isArray(value.diagnostics) ? value.diagnostics.map(parseDiagnostic).filter((diagnostic) => diagnostic !== null) : [],
    selectionTruncated: value.selectionTruncated === true,
    omittedSelections: positiveInteger(value.omittedSelections) ?? 0,
    omittedDiagnostics: positiveInteger(value.omittedDiagnostics) ?? 0,
    version: positiveInteger(value.version),
    writerPid: positiveInteger(value.writerPid),
    updatedAt: nonEmptyString(value.updatedAt),
  };
}

/** The process that last wrote a state file, from its raw JSON text; null when unknown. */
export function stateFileWriterPid(json: string): number | null {
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? positiveInteger(value.writerPid) : null;
  } catch {
    return null;
  }
}

function parseSelections(primary: unknown, all: unknown): SelectionState[] {
  const selections: SelectionState[] = [];
  const seen = new Set<string>();
  const add = (candidate: unknown): void => {
    const selection = parseSelection(candidate);
    if (selection === null) return;
    const key = `${selection.startLine}:${selection.endLine}:${selection.text}`;
    if (seen.has(key)) return;
    seen.add(key);
    selections.push(selection);
  };
  add(primary);
  if (Array.isArray(all)) all.forEach(add);
  return selections;
}

function parseSelection(value: unknown): SelectionState | null {
  if (!isObject(value) || typeof value.text !== "string" || value.text.length === 0) return null;
  const startLine = positiveInteger(value.startLine);
  const endLine = positiveInteger(value.endLine);
  if (startLine === null) return null;
  const selection: SelectionState = { text: value.text, startLine, endLine: endLine !== null && endLine >= startLine ? endLine : startLine };
  const totalChars = positiveInteger(value.totalChars);
  if (totalChars !== null && totalChars > value.text.length) selection.totalChars = totalChars;
  return selection;
}

const SEVERITIES: readonly string[] = ["error", "warning", "information", "hint"] satisfies DiagnosticSeverity[];

function parseDiagnostic(value: unknown): DiagnosticState | null {
  if (!isObject(value)) return null;
  const line = positiveInteger(value.line);
  const message = nonEmptyString(value.message);
  if (line === null || message === null) return null;
  if (typeof value.severity !== "string" || !SEVERITIES.includes(value.severity)) return null;
  const severity = value.severity as DiagnosticSeverity;
  return { line, severity, source: nonEmptyString(value.source), message };
}

function parseCursor(value: unknown): CursorState | null {
  if (!isObject(value)) return null;
  const line = positiveInteger(value.line);
  if (line === null) return null;
  return { line, character: positiveInteger(value.character) ?? 1 };
}

function parseDocument(value: unknown): DocumentState | null {
  if (!isObject(value)) return null;
  const uri = nonEmptyString(value.uri);
  if (uri === null) return null;
  return {
    uri,
    scheme: nonEmptyString(value.scheme) ?? uri.split(":", 1)[0] ?? "unknown",
    label: nonEmptyString(value.label),
  };
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export * from "./build.js";
export * from "./label.js";
export * from "./agent-writes.js";
