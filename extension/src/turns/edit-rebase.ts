// An agent's write as a change to one region of a document, and that change
// carried over edits the user made meanwhile (a review takes minutes; the user
// may go on typing in the file). Without `vscode`, so tests drive it directly.
// Offsets are UTF-16 code units, as VS Code's `positionAt` counts them.

/** `before.slice(start, end)` became `text`. */
export interface TextChange {
  start: number;
  end: number;
  text: string;
}

/** The one region where `after` differs from `before` (everything outside it is kept as it is). */
export function changeBetween(before: string, after: string): TextChange {
  const limit = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < limit && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  prefix = cleanCut(before, prefix, -1);
  let suffix = 0;
  while (suffix < limit - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  while (suffix > 0 && cleanCut(before, before.length - suffix, 1) !== before.length - suffix) suffix--;
  return { start: prefix, end: before.length - suffix, text: after.slice(prefix, after.length - suffix) };
}

/**
 * The agent's change to `original` as a change to `current` (the document now), or undefined when
 * the user changed the same region (or right against it): then the two cannot both be kept safely.
 */
export function rebaseChange(original: string, current: string, agent: TextChange): TextChange | undefined {
  if (original === current) return agent;
  const user = changeBetween(original, current);
  if (user.end < agent.start) {
    const shift = user.text.length - (user.end - user.start);
    return { start: agent.start + shift, end: agent.end + shift, text: agent.text };
  }
  if (user.start > agent.end) return agent;
  return undefined;
}

/** `offset` moved (by `step`) off the middle of a surrogate pair or a CRLF, so a range never splits one. */
function cleanCut(text: string, offset: number, step: -1 | 1): number {
  let cut = offset;
  while (cut > 0 && cut < text.length && splits(text, cut)) cut += step;
  return cut;
}

function splits(text: string, offset: number): boolean {
  const before = text.charCodeAt(offset - 1);
  const after = text.charCodeAt(offset);
  return (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) || (before === 13 && after === 10);
}
