// editor_state: what the user sees in VS Code now (the active file, its
// selections with their text, the visible lines, the open editors, the
// folders).

import { LIMITS, TOOL } from "../protocol.js";
import type { Editor, EditorDocument, Range } from "./editor.js";
import { object } from "./schema.js";
import type { WindowTool } from "./tool.js";

export const editorState: WindowTool = {
  name: TOOL.editorState,
  description:
    "What the user sees in VS Code right now: the active file and its language, every selection with its text, the visible lines, the open editors (and which have unsaved changes), the workspace folders. Call it first when the user says 'this', 'here', 'the selected code' or 'the open file'.",
  inputSchema: object({}),
  fallsBack: true,
  readOnly: true,
  handle: async (_params, editor) => answer(editor),
};

function answer(editor: Editor): Record<string, unknown> {
  const active = editor.activeEditor();
  const openEditors = editor.openEditors();
  return {
    activeFile: active?.name ?? null,
    languageId: active?.languageId ?? null,
    unsaved: active?.document.unsaved ?? false,
    selections: (active?.selections ?? []).map((selection) => ({
      start: { line: selection.start.line + 1, character: selection.start.character + 1 },
      end: { line: selection.end.line + 1, character: selection.end.character + 1 },
      text: selectedText(active!.document, selection),
    })),
    visibleLines: (active?.visibleRanges ?? []).map((range) => ({ startLine: range.start.line + 1, endLine: range.end.line + 1 })),
    openEditors: openEditors.slice(0, LIMITS.maxOpenEditors),
    omittedEditors: Math.max(0, openEditors.length - LIMITS.maxOpenEditors),
    workspaceFolders: editor.folders(),
  };
}

/** A selection's text, read only up to the cap (a huge selection costs one bounded read). */
function selectedText(document: EditorDocument, selection: Range): string {
  const start = document.offsetAt(selection.start);
  const end = document.offsetAt(selection.end);
  const readTo = Math.min(end, start + LIMITS.maxSelectionChars);
  const text = document.text({ start: selection.start, end: document.positionAt(readTo) });
  return readTo < end ? `${text}… (${end - readTo} more characters)` : text;
}
