// Formats editor state as the <editor-context> block (docs/context-block.md).
//
// Everything interpolated comes from the user's editor, so nothing in it may
// change the block's structure: selected text sits in a fence longer than any
// backtick run inside it, any `<editor-context` / `</editor-context` in any
// field has its `<` written as `&lt;`, and one-line fields cannot contain line
// breaks.

import * as path from "node:path";
import type { EditorState, SelectionState } from "../../editor-state/src/index.js";

export const OPEN_TAG = "<editor-context>";
export const CLOSE_TAG = "</editor-context>";
/** Default budget, in characters, for all selected text in one block. */
export const DEFAULT_MAX_SELECTION_CHARS = 32_000;

export interface FormatOptions {
  maxSelectionChars?: number;
  /** Path module to interpret the state's paths with (tests use path.win32). */
  pathModule?: path.PlatformPath;
}

export function formatEditorContext(state: EditorState, options: FormatOptions = {}): string {
  const paths = options.pathModule ?? path;
  const lines: string[] = [OPEN_TAG, describeActive(state, paths)];
  if (state.workspaceFolders.length > 0) {
    lines.push(`Workspace folders: ${state.workspaceFolders.map(oneLine).join(", ")}`);
  }
  if (state.isDirty) {
    lines.push("Unsaved changes: the editor's text differs from the file on disk; the selection below is the editor's text.");
  }
  if (state.selections.length === 0 && state.cursor !== null) {
    lines.push(`Cursor: line ${state.cursor.line}, column ${state.cursor.character} (nothing selected)`);
  }
  lines.push(...formatSelections(state, options.maxSelectionChars ?? DEFAULT_MAX_SELECTION_CHARS));
  lines.push(CLOSE_TAG);
  return lines.join("\n");
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
    lines.push(`Selected text (lines ${selection.startLine}-${selection.endLine}):`);
    lines.push(fence + language, neutraliseTags(text), fence);
    if (text.length < selection.text.length) lines.push(truncationMarker(selection, text));
  }
  const left = state.selections.length - shown.length;
  if (left > 0) lines.push(`[${left} more selection${left === 1 ? "" : "s"} not shown: size limit reached]`);
  return lines;
}

function truncationMarker(selection: SelectionState, shown: string): string {
  const hiddenChars = selection.text.length - shown.length;
  const shownLines = countLines(shown);
  const lastShownLine = selection.startLine + shownLines - 1;
  return `[Selection truncated: showing lines ${selection.startLine}-${lastShownLine} of ${selection.startLine}-${selection.endLine}; ${hiddenChars} more characters not shown]`;
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

/** One fence for all selections: longer than any backtick run in any of them, at least three. */
function codeFence(texts: string[]): string {
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
  // eslint-disable-next-line no-control-regex
  const escaped = value.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (char) => {
    if (char === "\n") return "\\n";
    if (char === "\r") return "\\r";
    if (char === "\t") return "\\t";
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
  return neutraliseTags(escaped);
}
