// Where a streamed Markdown message can be cut so that the part before the
// cut never changes its rendering again: after a blank line, outside a fenced
// code block, where the next line starts at column 0 (so it opens a new
// top-level block, never a list item's continuation or indented code). The
// page renders each settled part once and re-renders only the part after the
// last cut, so a chunk costs the same at the end of a long answer as at its
// start. Pure: no DOM.
//
// What a cut can change, compared with rendering the whole text at once: a
// loose list whose items are split by blank lines becomes consecutive lists
// (numbering kept by the `start` attribute), and a reference-style link whose
// definition comes in a later part stays literal text.

/** An open fenced code block: its marker character and length. */
export interface Fence {
  char: string;
  length: number;
}

export interface Settled {
  /** Offset of the last safe cut at or after `from` (equal to `from` when there is none). */
  end: number;
  /** The fence open at `scannedTo` (null outside a code block). */
  fence: Fence | null;
  /** Where scanning stopped: the start of the first incomplete line. Resume from here. */
  scannedTo: number;
  /** Whether the line before `scannedTo` was blank outside a code block. */
  blankBefore: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Scans the complete lines of `text` from `state.scannedTo` (a line start)
 * and returns the last safe cut (with `first`: the first one), with the state
 * to resume from next time.
 */
export function findSettled(text: string, state: Settled, first = false): Settled {
  let { end, fence, blankBefore } = state;
  let lineStart = state.scannedTo;
  for (let newline = text.indexOf("\n", lineStart); newline !== -1; newline = text.indexOf("\n", lineStart)) {
    const line = text.slice(lineStart, newline);
    if (fence === null && blankBefore && startsBlock(line)) {
      if (first && lineStart > state.end) return { end: lineStart, fence, scannedTo: lineStart, blankBefore }; // resumes at this line
      end = lineStart;
    }
    const marker = FENCE.exec(line)?.[1];
    if (fence === null) {
      if (marker) fence = { char: marker[0]!, length: marker.length };
      blankBefore = marker === undefined && line.trim() === "";
    } else {
      if (marker?.startsWith(fence.char) && marker.length >= fence.length && line.trim() === marker) fence = null;
      blankBefore = false;
    }
    lineStart = newline + 1;
  }
  // The incomplete last line can already show that a new block starts there.
  if (fence === null && blankBefore && lineStart < text.length && startsBlock(text.slice(lineStart, lineStart + 1))) end = lineStart;
  return { end, fence, scannedTo: lineStart, blankBefore };
}

/**
 * Like findSettled, but the cut is the last one at most `maxPart` characters
 * past `state.end` when the text has one there, else the first one after, so a
 * long settled stretch renders as parts no longer than `maxPart` where it can,
 * and a block longer than that is a part on its own. Each window is scanned as
 * a prefix of the text, as if it had streamed so far.
 */
export function findSettledPart(text: string, state: Settled, maxPart: number): Settled {
  let next = state;
  for (let limit = state.end + maxPart; limit < text.length;) {
    next = findSettled(text.slice(0, limit), next, next !== state);
    if (next.end > state.end) return next;
    // The next window takes at least one more complete line: a line longer than a window is read once.
    const newline = text.indexOf("\n", Math.max(limit, next.scannedTo));
    if (newline === -1) break;
    limit = Math.max(limit + maxPart, newline + 1);
  }
  return findSettled(text, next, next !== state);
}

export function startOfText(): Settled {
  return { end: 0, fence: null, scannedTo: 0, blankBefore: false };
}

function startsBlock(line: string): boolean {
  const first = line[0];
  return first !== undefined && first !== " " && first !== "\t" && first !== "\r";
}
