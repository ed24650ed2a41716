// propose_edit's arguments, checked once for both ends (the MCP server before
// it sends them, the window before it shows them), and the proposal's whole
// new text from the file's current text. Pure: no I/O.

import { LIMITS, type ProposeEditParams } from "./protocol.js";

/** A proposal that cannot be made: the message says why, for the agent. */
export class ProposalError extends Error {
  override name = "ProposalError";
}

/** The arguments as a proposal: newText or edits (not both), within LIMITS.maxProposalBytes. */
export function checkProposal(params: unknown): ProposeEditParams {
  const proposal = (typeof params === "object" && params !== null ? params : {}) as ProposeEditParams;
  const edits: unknown = proposal.edits;
  const validEdits =
    edits === undefined ||
    (Array.isArray(edits) &&
      edits.every((edit: unknown) => {
        const candidate = edit as { oldText?: unknown; newText?: unknown } | null;
        return typeof candidate?.oldText === "string" && candidate.oldText !== "" && typeof candidate.newText === "string";
      }));
  if (typeof proposal.path !== "string" || proposal.path === "") throw new ProposalError("path must be a non-empty string");
  if ((typeof proposal.newText === "string") === (edits !== undefined) || !validEdits) {
    throw new ProposalError("Give either newText (the whole new content) or edits ([{oldText, newText}]), not both and not neither.");
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

/** The file's text after the proposal: `newText`, or each edit's oldText (found exactly once, in order) replaced. */
export function proposedText(current: string, proposal: ProposeEditParams): string {
  if (typeof proposal.newText === "string") return proposal.newText;
  let text = current;
  for (const [index, edit] of (proposal.edits ?? []).entries()) {
    const first = text.indexOf(edit.oldText);
    if (first < 0) throw new ProposalError(`edit ${index + 1}: oldText does not occur in the file (read it again: it may have unsaved changes)`);
    if (text.includes(edit.oldText, first + 1)) throw new ProposalError(`edit ${index + 1}: oldText occurs more than once; include more context`);
    text = text.slice(0, first) + edit.newText + text.slice(first + edit.oldText.length);
  }
  return text;
}
