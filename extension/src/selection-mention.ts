// "Symposium: Add Selection to Chat": the mention of the active editor's
// selection put into the chat's composer, `@path:first-last` (1-based lines,
// the path relative to its workspace folder). A selection that ends at the
// start of a line does not take that line (the usual full-line selection).
// Pure: tests run it directly.

export interface LineSpan {
  /** 0-based, as VS Code counts. */
  startLine: number;
  endLine: number;
  endCharacter: number;
}

/** `@src/main.rs:2-3`, `@src/main.rs:2` for one line. */
export function mentionText(file: string, span: LineSpan): string {
  const first = span.startLine + 1;
  const last = Math.max(first, span.endLine + 1 - (span.endLine > span.startLine && span.endCharacter === 0 ? 1 : 0));
  return `@${file.replace(/\\/g, "/")}:${first === last ? first : `${first}-${last}`}`;
}
