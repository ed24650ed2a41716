// Formats editor state as the <editor-context> block (docs/context-block.md).
//
// Everything interpolated comes from the user's editor, so nothing in it may
// change the block's structure: selected text sits in a fence longer than any
// backtick run inside it, any `<editor-context` / `</editor-context` in any
// field has its `<` written as `&lt;`, and one-line fields cannot contain line
// breaks.

import * as path from "node:path";
import type { DiagnosticState, EditorState, SelectionState } from "../../editor-state/src/index.js";

export const OPEN_TAG = "<editor-context>";
export const CLOSE_TAG = "</editor-context>";
/** Default budget, in characters, for all selected text in one block. */
export const DEFAULT_MAX_SELECTION_CHARS = 32_000;

export interface FormatOptions {
  maxSelectionChars?: number;
  /** Path module to interpret the state's paths with (tests use path.win32). */
  pathModule?: path.PlatformPath;
}

export function formatEditorContext(fullState: EditorState, options: FormatOptions = {}): string {
  const state = boundForBlock(fullState);
  const paths = options.pathModule ?? path;
  const lines: string[] = [OPEN_TAG, describeActive(state, paths)];
  if (state.workspaceFolders.length > 0) {
    const shown = state.workspaceFolders.slice(0, MAX_LIST_ITEMS_SHOWN).map(oneLine).join(", ");
    const more = state.workspaceFolders.length - MAX_LIST_ITEMS_SHOWN;
    lines.push(`Workspace folders: ${shown}${more > 0 ? ` (and ${more} more)` : ""}`);
  }
  if (state.isDirty) {
    lines.push("Unsaved changes: the editor's text differs from the file on disk; the selection below is the editor's text.");
  }
  if (state.selections.length === 0 && state.cursor !== null) {
    lines.push(`Cursor: line ${state.cursor.line}, column ${state.cursor.character} (nothing selected)`);
  }
  lines.push(...formatSelections(state, options.maxSelectionChars ?? DEFAULT_MAX_SELECTION_CHARS));
  lines.push(...formatDiagnostics(state));
  lines.push(CLOSE_TAG);
  return lines.join("\n");
}

// The block's size holds whatever a valid state file holds (docs/proxy.md,
// "Guarantees"): a bounded number of list items is formatted (31,000
// selections once overflowed the stack), and every one-line field is cut.
const MAX_LIST_ITEMS_SHOWN = 20;
const MAX_FIELD_CHARS = 1_000;

/** The state with at most MAX_LIST_ITEMS_SHOWN selections and diagnostics; the rest count as omitted. */
function boundForBlock(state: EditorState): EditorState {
  const selections = state.selections.slice(0, MAX_LIST_ITEMS_SHOWN);
  const diagnostics = state.diagnostics.slice(0, MAX_LIST_ITEMS_SHOWN);
  return {
    ...state,
    selections,
    diagnostics,
    omittedSelections: state.omittedSelections + state.selections.length - selections.length,
    omittedDiagnostics: state.omittedDiagnostics + state.diagnostics.length - diagnostics.length,
  };
}

function describeActive(state: EditorState, paths: path.PlatformPath): string {
  const language = state.languageId ? ` (${oneLine(state.languageId)})` : "";
  if (state.activeFile !== null) {
    return `Active file: ${oneLine(displayPath(state.activeFile, state.workspaceFolders, paths))}${language}`;
  }
  // parseEditorState guarantees a document when there is no file.
  const document = state.document!;
  const name = document.label ?? document.uri;
  return `Active document: ${oneLine(name)}${language} [${oneLine(document.scheme)} document, not a file on disk: ${oneLine(document.uri)}]`;
}

/** Relative to the innermost workspace folder that contains it; prefixed by the folder's name in a multi-root workspace. */
export function displayPath(file: string, folders: string[], paths: path.PlatformPath = path): string {
  let best: { folder: string; relative: string } | null = null;
  for (const folder of folders) {
    const relative = paths.relative(folder, file);
    const inside = relative !== "" && !relative.startsWith("..") && !paths.isAbsolute(relative);
    if (inside && (best === null || folder.length > best.folder.length)) best = { folder, relative };
  }
  if (best === null) return file;
  return folders.length > 1 ? paths.join(paths.basename(best.folder), best.relative) : best.relative;
}

function formatSelections(state: EditorState, budget: number): string[] {
  // Cut to the budget first: the fence and escaping only look at what is shown.
  const shown: Array<{ selection: SelectionState; text: string }> = [];
  let remaining = budget;
  for (const selection of state.selections) {
    if (remaining <= 0) break;
    const text = truncate(selection.text, remaining);
    remaining -= text.length;
    shown.push({ selection, text });
  }
  const fence = codeFence(shown.map(({ text }) => text));
  const language = fenceLanguage(state.languageId);
  const lines: string[] = [];
  for (const { selection, text } of shown) {
    lines.push(`Selected text (${lineSpan(selection.startLine, selection.endLine)}):`);
    // A selection made with Shift+Down ends in a line break: no blank line before the fence.
    lines.push(fence + language, neutraliseTags(text.replace(/\r?\n$/, "")), fence);
    if (text.length < fullLength(selection)) lines.push(truncationMarker(selection, text));
  }
  const left = state.selections.length - shown.length + state.omittedSelections;
  if (left > 0) lines.push(`[${left} more selection${left === 1 ? "" : "s"} not shown: size limit reached]`);
  return lines;
}

/** `line 5` for one line, `lines 5-9` for more. */
function lineSpan(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

/** The selection's length before anyone cut it: the tracker records it when it cuts. */
function fullLength(selection: SelectionState): number {
  return selection.totalChars ?? selection.text.length;
}

function truncationMarker(selection: SelectionState, shown: string): string {
  const hiddenChars = fullLength(selection) - shown.length;
  const lastShownLine = Math.min(selection.startLine + countLines(shown) - 1, selection.endLine);
  return `[Selection truncated: showing ${lineSpan(selection.startLine, lastShownLine)} of ${selection.startLine}-${selection.endLine}; ${hiddenChars} more characters not shown]`;
}

/** One line per diagnostic: a message cannot break the block (oneLine), nor start a fence (it follows `- line N`). */
function formatDiagnostics(state: EditorState): string[] {
  if (state.diagnostics.length === 0 && state.omittedDiagnostics === 0) return [];
  const where = state.selections.length > 0 ? "in the selected lines" : "on the cursor's line";
  const lines = [`Problems ${where}:`, ...state.diagnostics.map(describeDiagnostic)];
  const left = state.omittedDiagnostics;
  if (left > 0) lines.push(`[${left} more problem${left === 1 ? "" : "s"} not shown]`);
  return lines;
}

function describeDiagnostic(diagnostic: DiagnosticState): string {
  const source = diagnostic.source ? ` (${oneLine(diagnostic.source)})` : "";
  return `- line ${diagnostic.line}, ${diagnostic.severity}${source}: ${oneLine(diagnostic.message)}`;
}

function countLines(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** Cuts at a line break when one is near the limit, never inside a surrogate pair. */
function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const lineBreak = text.lastIndexOf("\n", end);
  if (lineBreak > limit * 0.8) end = lineBreak;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** One fence for all the texts (the selections; the demo agent's echo): longer than any backtick run in any of them, at least three. */
export function codeFence(texts: string[]): string {
  let longest = 0;
  for (const text of texts) {
    let at = text.indexOf("`");
    while (at !== -1) {
      let end = at + 1;
      while (text.charCodeAt(end) === 0x60) end++;
      longest = Math.max(longest, end - at);
      at = text.indexOf("`", end);
    }
  }
  return "`".repeat(Math.max(3, longest + 1));
}

function fenceLanguage(languageId: string | null): string {
  return (languageId ?? "").replace(/[^\w.+#-]/g, "").slice(0, 40);
}

const TAG_PATTERN = /<(\/?\s*editor-context)/gi;

export function neutraliseTags(text: string): string {
  return text.replace(TAG_PATTERN, "&lt;$1");
}

/** Makes a value safe for a one-line field: no line breaks or control characters, no tags. */
function oneLine(value: string): string {
  const cut = value.length > MAX_FIELD_CHARS ? `${truncate(value, MAX_FIELD_CHARS)}… (${value.length} characters)` : value;
  // eslint-disable-next-line no-control-regex
  const escaped = cut.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (char) => {
    if (char === "\n") return "\\n";
    if (char === "\r") return "\\r";
    if (char === "\t") return "\\t";
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
  return neutraliseTags(escaped);
}
