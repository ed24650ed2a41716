// The one policy for an agent's write to a file that is open in the editor,
// whichever frontend runs the agent (Toad, the built-in chat, the editor's MCP
// tools) and whether editor context is shared or not (docs/architecture.md,
// "An agent's write to a file open in the editor"). Each place that sees such a
// write asks this module: the editor-context proxy (a file the state file lists
// as unsaved), the extension for the built-in chat's writes (agent-edits.ts)
// and for propose_edit (editor-tools/src/tools/propose-edit.ts). The user's unsaved work is
// never written over; a write to a clean file is applied at once or reviewed,
// as `symposium.chat.agentEdits` says, and a review waits REVIEW_ANSWER_MS.

/** The user's time to Accept or Reject an agent's edit: the one review deadline. */
export const REVIEW_ANSWER_MS = 10 * 60 * 1000;

/**
 * How much longer than the user's time whoever waits for the window's answer
 * (the chat server, the editor tools' server) waits: the answer's way back. So the
 * agent hears the window's own "unanswered", never a second, different deadline.
 */
export const REVIEW_ANSWER_GRACE_MS = 60 * 1000;

/** `symposium.chat.agentEdits`. */
export type AgentEditsSetting = "apply" | "review";

export interface OpenFileWrite {
  /** The file is open in the editor (a text document of this window). */
  open: boolean;
  /** The editor holds changes to it that are not saved. */
  unsaved: boolean;
  /** The content is too large to show in a review (the bridge's limit). */
  tooLarge?: boolean;
  setting: AgentEditsSetting;
}

/**
 * What becomes of the write: `disk` (not open: written where the agent's client writes),
 * `refuseUnsaved` (nothing written; the agent is told to have the file saved or reverted),
 * `refuseTooLarge` (nothing written), `apply` (applied as one undoable edit, then saved),
 * `review` (shown in a diff with Accept and Reject; nothing written unless accepted in time).
 */
export type WriteDecision = "disk" | "refuseUnsaved" | "refuseTooLarge" | "apply" | "review";

export function decideAgentWrite(write: OpenFileWrite): WriteDecision {
  if (!write.open) return "disk";
  if (write.unsaved) return "refuseUnsaved";
  if (write.tooLarge) return "refuseTooLarge";
  return write.setting;
}

/** What the agent is told when its write meets unsaved changes (`shown`: the path as the user knows it). */
export function unsavedChangesMessage(shown: string): string {
  return `${shown} has unsaved changes in the editor; save or revert it first`;
}

/** What the agent is told when nobody answered the review in time. */
export function unansweredMessage(shown: string): string {
  return `the user did not answer the review of the edit to ${shown} within ${REVIEW_ANSWER_MS / 60_000} minutes; nothing was written`;
}
