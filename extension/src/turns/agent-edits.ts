// An agent's write from the built-in chat to a document open in VS Code (the
// request came through the bridge: chat-bridge.ts), decided by the one policy
// for such writes (editor-state/src/agent-writes.ts, the same the proxy and
// propose_edit follow): a document with unsaved changes is not written
// ("unsaved"); otherwise the write is applied as a workspace edit, so the
// editor shows it and Ctrl+Z undoes it, then saved (the agent's write means
// "the file now holds this"; if the user typed into it during a review, it
// stays unsaved). With `symposium.chat.agentEdits` "review" the user sees the
// diff first and accepts or rejects it; with no answer in the review's time the
// edit is dropped ("unanswered": nothing is written, a later click changes
// nothing). A file not open in VS Code is "notOpen": the chat server writes it
// to disk as before.
// Fails closed: the edit is applied as the one region it
// changes, carried over what the user typed during the review ("changed" when
// the user edited the same lines); an Accept after the chat page that asked
// went away (`withdrawn`) applies nothing; any error is "failed", never
// "notOpen" (which would have the server write to disk behind the editor). An
// edit too large for the bridge (`tooLarge`) to a file open here is refused.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { decideAgentWrite, type WriteDecision } from "../../../editor-state/src/index.js";
import type { EditResult } from "../../../webview/src/panel-messages.js";
import type { BeforeDocuments } from "./before-documents.js";
import { readConfig } from "../config.js";
import { changeBetween, rebaseChange, type TextChange } from "./edit-rebase.js";
import { REVIEW_ANSWER_MS, UNANSWERED, answerWithin } from "./review-deadline.js";
import { noticeText } from "../notice-text.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";

export const ACCEPT = "Accept";
export const REJECT = "Reject";
/** What a review ends in when the chat page that asked went away first. */
const WITHDRAWN = Symbol("withdrawn");

export interface AgentEditDeps {
  documents: BeforeDocuments;
  log: vscode.LogOutputChannel;
  /** Aborted when the chat page that asked can no longer answer for the edit (closed, reloaded, disconnected). */
  withdrawn?: AbortSignal;
}

export interface ReviewOptions {
  /** What the change is for, in the question. */
  title?: string;
  /** An editable right side holding the content (proposal-documents.ts); else a read-only one. */
  editable?: vscode.Uri;
  /** Aborted when whoever asked can no longer answer for the change. */
  withdrawn?: AbortSignal;
}

export interface AgentEdit {
  path: string;
  content: string;
  /** Over the bridge's limit: `content` is not here, and an open file is not changed. */
  tooLarge?: boolean;
}

/** Applies (or, in review mode, offers) the agent's new content for the file; what became of it. Never throws. */
export async function applyAgentEdit(edit: AgentEdit, deps: AgentEditDeps): Promise<EditResult> {
  try {
    return await applyOrReview(edit, deps);
  } catch (error) {
    deps.log.error(`the agent's edit to ${edit.path} failed, nothing written: ${(error as Error).message}`);
    return "failed";
  }
}

async function applyOrReview(edit: AgentEdit, deps: AgentEditDeps): Promise<EditResult> {
  const document = openDocument(edit.path);
  const decision = openFileDecision(document, edit.tooLarge);
  if (!document || decision === "disk") return "notOpen";
  const file = document.uri.fsPath;
  if (decision === "refuseUnsaved") {
    deps.log.info(`the agent writes ${file}, which has unsaved changes in VS Code: refused, nothing written`);
    return "unsaved";
  }
  if (decision === "refuseTooLarge") {
    deps.log.warn(`the agent's edit to ${file}, open in VS Code, is too large to review here: refused, nothing written`);
    void vscode.window.showWarningMessage(`The agent's edit to ${noticeText(path.basename(file))} was refused: it is too large to review in VS Code.`);
    return "failed";
  }
  deps.log.info(`the agent writes ${file}, open in VS Code: ${decision === "review" ? "asking the user" : "applying it"}`);
  const original = document.getText();
  const review = decision === "review" ? await reviewInDiff(file, original, edit.content, deps.documents, { withdrawn: deps.withdrawn }) : ACCEPT;
  if (review === WITHDRAWN) return notApplied("withdrawn", file, deps.log);
  if (review !== ACCEPT) return notApplied(review === UNANSWERED ? "unanswered" : "rejected", file, deps.log);
  return apply(document, changeBetween(original, edit.content), original, deps.log);
}

/** The one policy's decision (agent-writes.ts) for a write to `document` (undefined: not open here). */
export function openFileDecision(document: vscode.TextDocument | undefined, tooLarge = false): WriteDecision {
  return decideAgentWrite({ open: document !== undefined, unsaved: document?.isDirty ?? false, tooLarge, setting: readConfig().chatAgentEdits ?? "apply" });
}

/** The agent's change (made against `original`) applied to the document as it is now, then saved if it was clean. */
async function apply(document: vscode.TextDocument, change: TextChange, original: string, log: vscode.LogOutputChannel): Promise<EditResult> {
  const applied = await applyChange(document, change, original);
  const file = document.uri.fsPath;
  if (applied === "changed") {
    log.warn(`the agent's edit to ${file} overlaps what the user changed during the review: not applied`);
    void vscode.window.showWarningMessage(`The agent's edit to ${noticeText(path.basename(file))} was not applied: you changed the same lines meanwhile.`);
  } else if (applied === "failed") log.warn(`VS Code did not apply the agent's edit to ${file}: nothing written`);
  return applied;
}

/**
 * The agent's change (made against `original`) applied as one undoable edit to the document as it is
 * now, carried over what the user typed meanwhile ("changed" when the user changed the same lines),
 * then saved if the document was clean. Also propose_edit's (vscode-editor.ts).
 */
export async function applyChange(document: vscode.TextDocument, change: TextChange, original: string): Promise<"applied" | "changed" | "failed"> {
  // The user may have closed the file during the review: the same document, reopened from disk.
  const now = document.isClosed ? await vscode.workspace.openTextDocument(document.uri) : document;
  const rebased = rebaseChange(original, now.getText(), change);
  if (!rebased) return "changed";
  const wasDirty = now.isDirty;
  const workspaceEdit = new vscode.WorkspaceEdit();
  workspaceEdit.replace(now.uri, new vscode.Range(now.positionAt(rebased.start), now.positionAt(rebased.end)), rebased.text);
  if (!(await vscode.workspace.applyEdit(workspaceEdit))) return "failed";
  if (!wasDirty) await now.save();
  return "applied";
}

/** Says why the agent's edit was not applied: the log, and a notice when its question may still be on screen. */
function notApplied(result: "rejected" | "unanswered" | "withdrawn", file: string, log: vscode.LogOutputChannel): EditResult {
  if (result === "rejected") {
    log.info(`the user rejected the agent's edit to ${file}`);
    return result;
  }
  if (result === "withdrawn") {
    log.info(`the chat closed during the review of the agent's edit to ${file}: not applied, nothing written`);
    void vscode.window.showWarningMessage(`The agent's edit to ${noticeText(path.basename(file))} was dropped: the chat closed before you answered.`);
    return "unanswered"; // nobody hears it: the server already told the agent nothing was written
  }
  const minutes = REVIEW_ANSWER_MS / 60_000;
  log.info(`the user did not answer the review of the agent's edit to ${file} in ${minutes} minutes: dropped, nothing written`);
  void vscode.window.showWarningMessage(`The agent's edit to ${noticeText(path.basename(file))} was dropped: no answer in ${minutes} minutes.`);
  return result;
}

/** The open text document for `file` (a real path inside this window's workspace), or undefined. */
function openDocument(file: string): vscode.TextDocument | undefined {
  const inside = insideFolders(
    file,
    (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
  );
  if (!inside) return undefined;
  return vscode.workspace.textDocuments.find((document) => document.uri.scheme === "file" && !document.isClosed && realPath(document.uri.fsPath) === inside);
}

function realPath(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/**
 * Shows the change of `file` from `current` to `content` in the diff editor and asks: ACCEPT, anything
 * else (dismissing) rejects; UNANSWERED after REVIEW_ANSWER_MS; WITHDRAWN as soon as `options.withdrawn`
 * aborts (the chat page that asked went away: a later click changes nothing). Also the editor tools'
 * propose_edit (vscode-editor.ts), whose `title` says what the change is for.
 */
export async function reviewInDiff(
  file: string,
  current: string,
  content: string,
  documents: BeforeDocuments,
  options: ReviewOptions = {},
): Promise<string | undefined | typeof UNANSWERED | typeof WITHDRAWN> {
  if (options.withdrawn?.aborted) return WITHDRAWN;
  const name = path.basename(file);
  const before = documents.add(file, current, "current");
  const after = options.editable ?? documents.add(file, content, "agent");
  await vscode.commands.executeCommand("vscode.diff", before, after, `${name} (the agent's proposed edit)`, { preview: true });
  const text = options.title ? `The agent wants to change ${noticeText(name)}: ${noticeText(options.title)}` : `The agent wants to change ${noticeText(name)}.`;
  const question = vscode.window.showInformationMessage(text, ACCEPT, REJECT);
  const answer = await answerWithin(Promise.race([question, whenAborted(options.withdrawn)]), REVIEW_ANSWER_MS);
  // What the user typed into an editable proposal is kept (saved into memory, never to disk), so closing never asks.
  const edited = vscode.workspace.textDocuments.find((document) => document.uri.toString() === after.toString());
  if (edited?.isDirty) await edited.save();
  // The diff was only for the question: close it (it is the active editor unless the user moved on).
  if (vscode.window.activeTextEditor?.document.uri.toString() === after.toString()) await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  // Checked after the answer too: the page may have gone while the click was on its way.
  return options.withdrawn?.aborted ? WITHDRAWN : answer;
}

/** Settles with WITHDRAWN when `signal` aborts; never otherwise. */
function whenAborted(signal: AbortSignal | undefined): Promise<typeof WITHDRAWN> {
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(WITHDRAWN), { once: true }));
}
