// An agent's write from the built-in chat to a document open in VS Code
// (issue 23, item 4; the request came through the bridge: chat-bridge.ts):
// applied as a workspace edit, so the editor shows it and Ctrl+Z undoes it,
// then saved when the document had no unsaved changes (the agent's write means
// "the file now holds this"; a dirty document keeps the user's unsaved work in
// its undo history and stays unsaved). With `symposium.chat.agentEdits`
// "review" the user sees the diff first and accepts or rejects it; with no
// answer in 10 minutes the edit is dropped ("unanswered": nothing is written,
// a later click changes nothing). A file not open in VS Code is "notOpen": the
// chat server writes it to disk as before.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { EditResult } from "../../webview/src/panel-messages.js";
import type { BeforeDocuments } from "./chat-bridge.js";
import { readConfig } from "./config.js";
import { REVIEW_ANSWER_MS, UNANSWERED, answerWithin } from "./review-deadline.js";
import { insideFolders } from "./workspace-path.js";

export const ACCEPT = "Accept";
export const REJECT = "Reject";

export interface AgentEditDeps {
  documents: BeforeDocuments;
  log: vscode.LogOutputChannel;
}

/** Applies (or, in review mode, offers) the agent's new `content` for `file`; what became of it. */
export async function applyAgentEdit(file: string, content: string, deps: AgentEditDeps): Promise<EditResult> {
  const document = openDocument(file);
  if (!document) return "notOpen";
  const mode = readConfig().chatAgentEdits;
  deps.log.info(`the agent writes ${document.uri.fsPath}, open in VS Code: ${mode === "review" ? "asking the user" : "applying it"}`);
  const review = mode === "review" ? await reviewInDiff(document.uri.fsPath, document.getText(), content, deps.documents) : ACCEPT;
  if (review !== ACCEPT) return notApplied(review === UNANSWERED ? "unanswered" : "rejected", document.uri.fsPath, deps.log);
  const wasDirty = document.isDirty;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), content);
  if (!(await vscode.workspace.applyEdit(edit))) {
    deps.log.warn(`VS Code did not apply the agent's edit to ${document.uri.fsPath}: the chat writes it to disk`);
    return "notOpen";
  }
  if (!wasDirty) await document.save();
  return "applied";
}

/** Says why the agent's edit was not applied: the log, and a notice when the review timed out (its question may still be on screen). */
function notApplied(result: "rejected" | "unanswered", file: string, log: vscode.LogOutputChannel): EditResult {
  if (result === "rejected") {
    log.info(`the user rejected the agent's edit to ${file}`);
    return result;
  }
  const minutes = REVIEW_ANSWER_MS / 60_000;
  log.info(`the user did not answer the review of the agent's edit to ${file} in ${minutes} minutes: dropped, nothing written`);
  void vscode.window.showWarningMessage(`The agent's edit to ${path.basename(file)} was dropped: no answer in ${minutes} minutes.`);
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
 * else (dismissing) rejects; UNANSWERED after REVIEW_ANSWER_MS. Also the editor tools' propose_edit
 * (editor-tools-handlers.ts), whose `title` says what the change is for.
 */
export async function reviewInDiff(
  file: string,
  current: string,
  content: string,
  documents: BeforeDocuments,
  title?: string,
  /** An editable right side holding `content` (proposal-documents.ts); else a read-only one. */
  editable?: vscode.Uri,
): Promise<string | undefined | typeof UNANSWERED> {
  const name = path.basename(file);
  const before = documents.add(file, current, "current");
  const after = editable ?? documents.add(file, content, "agent");
  await vscode.commands.executeCommand("vscode.diff", before, after, `${name} (the agent's proposed edit)`, { preview: true });
  const question = title ? `The agent wants to change ${name}: ${title}` : `The agent wants to change ${name}.`;
  const answer = await answerWithin(vscode.window.showInformationMessage(question, ACCEPT, REJECT), REVIEW_ANSWER_MS);
  // What the user typed into an editable proposal is kept (saved into memory, never to disk), so closing never asks.
  const edited = vscode.workspace.textDocuments.find((document) => document.uri.toString() === after.toString());
  if (edited?.isDirty) await edited.save();
  // The diff was only for the question: close it (it is the active editor unless the user moved on).
  if (vscode.window.activeTextEditor?.document.uri.toString() === after.toString()) await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  return answer;
}
