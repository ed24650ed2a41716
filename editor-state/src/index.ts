// The state file's format (docs/state-file.md): the one definition the
// tracker (writer, in the extension) and the editor-context proxy (reader)
// share. No imports, no I/O: the compiler keeps this folder free of Node and
// VS Code, so either side can load it.
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
}

export interface CursorState {
  /** 1-based. */
  line: number;
  /** 1-based. */
  character: number;
}

/** A document that is not a file on disk (untitled buffer, git diff, notebook cell...). */
export interface DocumentState {
  uri: string;
  scheme: string;
  label: string | null;
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
    workspaceFolders: Array.isArray(value.workspaceFolders)
      ? value.workspaceFolders.filter((folder): folder is string => nonEmptyString(folder) !== null)
      : [],
  };
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
  return { text: value.text, startLine, endLine: endLine !== null && endLine >= startLine ? endLine : startLine };
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

function isObject(value: unknown): value is { [key: string]: unknown } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
