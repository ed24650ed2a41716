// The locations find_definitions and find_references answer: files only,
// duplicates dropped, each with its line's text, read within one bound for the
// whole answer.

import { LIMITS } from "../protocol.js";
import type { Editor, Location } from "./editor.js";
import { capped, inWorkspace, rangeOf } from "./tool.js";

export interface LocationAnswer {
  path: string;
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
  text: string;
}

/** Locations as path and 1-based range, duplicates dropped. */
export function locations(found: readonly Location[]): Array<Omit<LocationAnswer, "text">> {
  const seen = new Set<string>();
  const answers: Array<Omit<LocationAnswer, "text">> = [];
  for (const { path, range } of found) {
    const key = `${path}:${range.start.line}:${range.start.character}`;
    if (seen.has(key)) continue;
    seen.add(key);
    answers.push({ path, ...rangeOf(range) });
  }
  return answers;
}

/**
 * Each location with its line's text (only inside the workspace), for one page: an open document's line, or a
 * file's first lines read from the disk only as far as the last line shown, LIMITS.maxLineTextBytes for the whole
 * answer (a location past it is listed without its text). So a symbol used in a thousand large files reads little.
 */
export function withLineText(page: Array<Omit<LocationAnswer, "text">>, editor: Editor): LocationAnswer[] {
  const lines = new LineReader(page, editor);
  return page.map((location) => {
    const inside = inWorkspace(location.path, editor);
    return { ...location, text: inside ? capped(lines.line(location.path, location.line - 1).trim(), 300) : "" };
  });
}

/** The lines a page of locations shows, from open documents or the disk, each file read once and only as far as needed. */
class LineReader {
  private readonly lastNeeded = new Map<string, number>();
  private readonly read = new Map<string, (index: number) => string>();
  private budget: number = LIMITS.maxLineTextBytes;

  constructor(
    page: ReadonlyArray<{ path: string; line: number }>,
    private readonly editor: Editor,
  ) {
    for (const { path: file, line } of page) this.lastNeeded.set(file, Math.max(this.lastNeeded.get(file) ?? 0, line - 1));
  }

  line(file: string, index: number): string {
    let lineOf = this.read.get(file);
    if (lineOf === undefined) {
      lineOf = this.open(file);
      this.read.set(file, lineOf);
    }
    return lineOf(index);
  }

  private open(file: string): (index: number) => string {
    const real = this.editor.realPath(file);
    const document = this.editor.openDocument(real);
    if (document) return (index) => (index < document.lineCount ? document.lineText(index) : "");
    try {
      const { lines, bytesRead } = this.editor.readLeadingLines(real, (this.lastNeeded.get(file) ?? 0) + 1, this.budget);
      this.budget -= bytesRead;
      return (index) => lines[index] ?? "";
    } catch {
      return () => "";
    }
  }
}
