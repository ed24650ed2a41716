// The short name of what the editor context points at, as the status bar
// (extension/src/tracker/context-status.ts) and the chat's context chip
// (webchat/src/context-chip.ts) both show it.

import type { EditorState } from "./index.js";

/** `main.rs:10-12` (+N more selections), `main.rs:7` (the cursor's line), or just the name (`Untitled-1`). */
export function editorTargetLabel(state: EditorState): string {
  const name = state.activeFile ? baseName(state.activeFile) : (state.document?.label ?? state.document?.uri ?? "document");
  const selection = state.selections[0];
  if (selection) {
    const more = state.selections.length > 1 ? ` +${state.selections.length - 1}` : "";
    const lines = selection.startLine === selection.endLine ? `${selection.startLine}` : `${selection.startLine}-${selection.endLine}`;
    return `${name}:${lines}${more}`;
  }
  return state.cursor ? `${name}:${state.cursor.line}` : name;
}

/** The last part of a path written on any platform (no node:path here: this folder loads without Node). */
function baseName(filePath: string): string {
  return filePath.split(/[\\/]/).filter(Boolean).pop() ?? filePath;
}
