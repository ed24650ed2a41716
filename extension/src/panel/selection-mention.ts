// "Symposium: Add Selection to Chat": the active editor's selection as the
// mention the chat's composer receives — the path relative to its workspace
// folder and the lines, 1-based — sent as these fields (panel-messages.ts:
// SelectionMention); the chat page writes the mention's text, quoting the path
// when it needs it. A selection that ends at the start of a line does not take
// that line (the usual full-line selection). Pure: tests run it directly.

import type { SelectionMention } from "../../../webview/src/panel-messages.js";

export interface LineSpan {
  /** 0-based, as VS Code counts. */
  startLine: number;
  endLine: number;
  endCharacter: number;
}

/** `src/main.rs`, lines 2 to 3 (1-based), for a selection of 0-based lines 1 to 2. */
export function selectionMention(file: string, span: LineSpan): SelectionMention {
  const startLine = span.startLine + 1;
  const endLine = Math.max(startLine, span.endLine + 1 - (span.endLine > span.startLine && span.endCharacter === 0 ? 1 : 0));
  return { path: file.replace(/\\/g, "/"), startLine, endLine };
}
