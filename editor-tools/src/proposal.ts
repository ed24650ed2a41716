// propose_edit's arguments, checked once for both ends (the MCP server before
// it sends them, the window before it shows them), and the proposal's whole
// new text from the file's current text. Pure: no I/O.
//
// The work is bounded whatever a proposal carries: at most LIMITS.maxEdits
// edits and LIMITS.maxProposalBytes of text (both ends), and the window scans
// the text at most LIMITS.maxEditScanChars characters in all (edits × the
// text's length: each edit's oldText is looked for once over the whole text),
// then builds the new text in one pass. Every oldText is found in the current
// text, not in the text earlier edits made, so no edit rebuilds the text.

import { LIMITS, type ProposeEditParams } from "./protocol.js";

/** A proposal that cannot be made: the message says why, for the agent. */
export class ProposalError extends Error {
  override name = "ProposalError";
}

interface Edit {
  oldText: string;
  newText: string;
}

/** The arguments as a proposal: newText or edits (not both), within LIMITS.maxEdits and LIMITS.maxProposalBytes. */
export function checkProposal(params: unknown): ProposeEditParams {
  const proposal = (typeof params === "object" && params !== null ? params : {}) as ProposeEditParams;
  const edits: unknown = proposal.edits;
  if (typeof proposal.path !== "string" || proposal.path === "") throw new ProposalError("path must be a non-empty string");
  if ((typeof proposal.newText === "string") === (edits !== undefined) || (edits !== undefined && !validEdits(edits))) {
    throw new ProposalError("Give either newText (the whole new content) or edits ([{oldText, newText}]), not both and not neither.");
  }
  const count = proposal.edits?.length ?? 0;
  if (count > LIMITS.maxEdits) {
    throw new ProposalError(`The proposal has ${count} edits, over the limit of ${LIMITS.maxEdits}; propose fewer, larger edits, or newText.`);
  }
  const texts = [proposal.newText ?? "", ...(proposal.edits ?? []).flatMap((edit) => [edit.oldText, edit.newText])];
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  if (bytes > LIMITS.maxProposalBytes) {
    throw new ProposalError(
      `The proposal is ${bytes} bytes, over the ${LIMITS.maxProposalBytes}-byte limit; propose smaller edits (edits: [{oldText, newText}]).`,
    );
  }
  return proposal;
}

function validEdits(edits: unknown): edits is Edit[] {
  return (
    Array.isArray(edits) &&
    edits.length > 0 &&
    edits.every((edit: unknown) => {
      const candidate = edit as { oldText?: unknown; newText?: unknown } | null;
      return typeof candidate?.oldText === "string" && candidate.oldText !== "" && typeof candidate.newText === "string";
    })
  );
}

/**
 * The file's text after the proposal: `newText`, or each edit's oldText (found exactly once in `current`, no two
 * overlapping) replaced. Refused before any scan when edits × the text's length is over LIMITS.maxEditScanChars.
 */
export function proposedText(current: string, proposal: ProposeEditParams, maxScanChars: number = LIMITS.maxEditScanChars): string {
  if (typeof proposal.newText === "string") return proposal.newText;
  const edits = proposal.edits ?? [];
  checkScanBound(edits.length, current.length, maxScanChars);
  const found = edits.map((edit, index) => ({ edit, index, at: onlyOccurrence(current, edit.oldText, index) })).sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  let copied = 0;
  for (const { edit, index, at } of found) {
    if (at < copied) throw new ProposalError(`edit ${index + 1}: oldText overlaps another edit's oldText; merge the two edits into one`);
    parts.push(current.slice(copied, at), edit.newText);
    copied = at + edit.oldText.length;
  }
  parts.push(current.slice(copied));
  return parts.join("");
}

/** Edits × characters a proposal's edits scan, refused over the bound with what to do instead. */
export function checkScanBound(edits: number, textLength: number, maxScanChars: number = LIMITS.maxEditScanChars): void {
  if (edits * textLength <= maxScanChars) return;
  const most = Math.max(1, Math.floor(maxScanChars / Math.max(1, textLength)));
  throw new ProposalError(
    `${edits} edits on a file of ${textLength} characters is more work than one proposal may ask (edits × characters at most ${maxScanChars}); ` +
      `send at most ${most} edits per propose_edit, or the whole new content as newText`,
  );
}

/** Where `oldText` occurs in `text`: one scan (the search for a second occurrence goes on from the first). */
function onlyOccurrence(text: string, oldText: string, index: number): number {
  const first = text.indexOf(oldText);
  if (first < 0) throw new ProposalError(`edit ${index + 1}: oldText does not occur in the file (read it again: it may have unsaved changes)`);
  if (text.includes(oldText, first + 1)) throw new ProposalError(`edit ${index + 1}: oldText occurs more than once; include more context`);
  return first;
}
