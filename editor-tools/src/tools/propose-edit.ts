// propose_edit: a change the agent proposes, shown to the user as a diff with
// Accept and Reject (or applied at once when the user chose so). The one
// policy for an agent's write to an open file (editor-state/src/agent-writes.ts),
// as for the chat's writes; the result applied as one undoable edit.

import { decideAgentWrite, unansweredMessage, unsavedChangesMessage } from "../../../editor-state/src/index.js";
import { CHANNEL_ERROR, LIMITS, TOOL, type ProposeEditResult } from "../protocol.js";
import { ProposalError, checkProposal, proposedText } from "../proposal.js";
import type { Editor, EditorDocument } from "./editor.js";
import { object, path } from "./schema.js";
import { ChannelRefusal, capped, loadDocument, resolvePath, type WindowTool } from "./tool.js";

export const proposeEdit: WindowTool = {
  name: TOOL.proposeEdit,
  description: `Propose a change to a file and let the user decide: VS Code shows it as a diff with Accept and Reject (the user may change it before accepting), unless the user chose to apply edits at once. Answers what the user decided and, when applied, the file's final text. Give \`newText\` (the whole new content; creates the file if missing) or \`edits\` (each \`oldText\` must occur exactly once in the current text). Applied in the editor, undoable; refused (unsaved) while the user has unsaved changes to the file. At most ${LIMITS.maxProposalBytes / 1024 / 1024} MiB.`,
  inputSchema: object(
    {
      path,
      newText: { type: "string", description: "The file's whole new content." },
      edits: {
        type: "array",
        minItems: 1,
        maxItems: LIMITS.maxEdits,
        description: "Replacements instead of newText, each oldText found in the current text (not in another edit's result), none overlapping.",
        items: {
          type: "object",
          properties: {
            oldText: { type: "string", minLength: 1, description: "Text to replace, exactly as in the file; must occur once." },
            newText: { type: "string" },
          },
          required: ["oldText", "newText"],
        },
      },
      title: { type: "string", maxLength: 200, description: "A short summary the user sees." },
    },
    ["path"],
  ),
  fallsBack: false,
  readOnly: false,
  handle: async (params, editor) => answer(params, editor),
};

/** `make()`, its ProposalError as the window's refusal of bad arguments. */
function asRefusal<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof ProposalError) throw new ChannelRefusal(error.message, CHANNEL_ERROR.invalidParams);
    throw error;
  }
}

async function answer(params: Record<string, unknown>, editor: Editor): Promise<ProposeEditResult> {
  if (!editor.trusted()) throw new ChannelRefusal("this workspace is not trusted: VS Code takes no edits from agents in it");
  const proposal = asRefusal(() => checkProposal(params));
  const real = resolvePath(proposal.path, editor);
  const exists = editor.fileExists(real);
  const open = editor.openDocument(real);
  // The one policy for a write to a file open in the editor (agent-writes.ts), as for the chat's writes.
  const decision = decideAgentWrite({ open: open !== undefined, unsaved: open?.unsaved ?? false, setting: editor.agentEdits() });
  if (decision === "refuseUnsaved") return { path: real, decision: "unsaved", message: `${unsavedChangesMessage(real)}; nothing was changed` };
  const document = exists ? await loadDocument(real, editor) : undefined;
  const current = document?.text() ?? "";
  const proposed = asRefusal(() => proposedText(current, proposal));
  if (exists && proposed === current)
    return { path: real, decision: "applied", finalText: current, message: "nothing to change: the file already holds this text" };
  if (editor.agentEdits() !== "review") return applyProposal(editor, real, document, current, proposed, "applied");
  const title = typeof proposal.title === "string" ? proposal.title.slice(0, 200) : undefined;
  const reviewed = await editor.review(real, current, proposed, title);
  if (reviewed.answer === "unanswered") return { path: real, decision: "unanswered", message: unansweredMessage(real) };
  if (reviewed.answer !== "accepted") return { path: real, decision: "rejected", message: "the user rejected the proposal; nothing was changed" };
  return applyProposal(editor, real, document, current, reviewed.text, "accepted", reviewed.text !== proposed);
}

/**
 * One undoable edit: the change from `current` carried over what the user typed meanwhile, as for the chat's
 * writes (extension/src/turns/agent-edits.ts applyChange); saved when the document had no unsaved changes.
 */
async function applyProposal(
  editor: Editor,
  real: string,
  document: EditorDocument | undefined,
  current: string,
  proposed: string,
  decision: "accepted" | "applied",
  changedByUser = false,
): Promise<ProposeEditResult> {
  const applied = await editor.write(real, document, current, proposed);
  if (applied === "changed") {
    return {
      path: real,
      decision: "conflict",
      message: "the user changed the same part of the file while reviewing the proposal; nothing was changed: read it again and propose anew",
    };
  }
  if (applied === "failed") return { path: real, decision: "conflict", message: "VS Code did not apply the edit (the file may have changed or be read-only)" };
  const after = editor.openDocument(real) ?? (await editor.loadDocument(real));
  const note = after.unsaved ? " (the user typed into the file meanwhile: it stays unsaved)" : "";
  const accepted = changedByUser ? "the user changed the proposal, then accepted it (finalText is what was applied)" : "the user accepted the proposal";
  return { path: real, decision, finalText: capped(after.text(), LIMITS.maxAnswerChars), message: `${decision === "accepted" ? accepted : "applied"}${note}` };
}
