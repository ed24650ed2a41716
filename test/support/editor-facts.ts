// Plain editor facts (editor-state/src/build.ts's input) for tests of the
// state file's writer side, without VS Code.

import type { EditorFacts, SelectionFacts } from "../../editor-state/src/index.js";

/** A document whose text is `text`, with selections given as [startOffset, endOffset, activeAtStart?]. */
export function editorOn(text: string, ranges: Array<[number, number, boolean?]>, extra: Partial<EditorFacts> = {}): EditorFacts & { reads: number[] } {
  const positionAt = (offset: number) => {
    const before = text.slice(0, offset);
    const line = before.split("\n").length - 1;
    return { line, character: offset - (before.lastIndexOf("\n") + 1) };
  };
  const reads: number[] = [];
  const selections: SelectionFacts[] = ranges.map(([from, to, activeAtStart]) => ({
    start: positionAt(from),
    end: positionAt(to),
    active: positionAt(activeAtStart ? from : to),
    startOffset: from,
    endOffset: to,
  }));
  return {
    uri: "file:///project/src/main.rs",
    scheme: "file",
    fsPath: "/project/src/main.rs",
    label: "main.rs",
    languageId: "rust",
    isDirty: false,
    selections,
    textBetween: (from, to) => {
      reads.push(to - from);
      return text.slice(from, to);
    },
    diagnostics: [],
    reads,
    ...extra,
  };
}
