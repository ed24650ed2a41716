// What VS Code does for the chat page's bridge requests (checked first by
// parseFromPanel, webview/src/panel-messages.ts): a chord runs its command from
// the fixed table; a tool call's diff opens in the diff editor (the 'before' is
// a read-only virtual document); a path opens at its line, only inside the
// workspace. Nothing a request carries names a command or a file outside it.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { chordCommand, type BridgeRequest, type ToPanel } from "../../../webview/src/panel-messages.js";
import { applyAgentEdit } from "../turns/agent-edits.js";
import type { BeforeDocuments } from "../turns/before-documents.js";
import { TURN_COMMANDS } from "../turns/agent-turns.js";
import { noticeText } from "../notice-text.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";

export interface BridgeDeps {
  documents: BeforeDocuments;
  log: vscode.LogOutputChannel;
}

/** The requests that act on VS Code (the agent's name and state, withdrawn edits and attention are chat-view.ts's own). */
export type ActionRequest = Exclude<BridgeRequest, { kind: "agent" } | { kind: "withdrawEdit" } | { kind: "attention" }>;

/**
 * Returns the answer to send back to the page that asked, for requests that have one (`applyEdit`).
 * `withdrawn` aborts when that page can no longer answer for the request (an edit under review is then dropped).
 */
export async function handleBridgeRequest(request: ActionRequest, deps: BridgeDeps, withdrawn?: AbortSignal): Promise<ToPanel | undefined> {
  switch (request.kind) {
    case "applyEdit":
      return { type: "editResult", id: request.id, result: await applyAgentEdit(request, { ...deps, withdrawn }) };
    case "chord": {
      const command = chordCommand(request.chord);
      if (command) await vscode.commands.executeCommand(command);
      return undefined;
    }
    case "openDiff":
      await openDiff(request.path, request.oldText, request.newText, deps);
      return undefined;
    case "openFile":
      await openFile(request.path, request.line, deps.log);
      return undefined;
    case "openUrl":
      // parseBridgeRequest let through http and https only: the system's browser, never a command: or file: URI.
      await vscode.env.openExternal(vscode.Uri.parse(request.url, true));
      return undefined;
    case "reviewTurn":
    case "undoTurn":
    case "rewindTurn":
      // agent-turns.ts checks the project is a workspace folder and the turn is recorded there.
      await vscode.commands.executeCommand(TURN_COMMANDS[request.kind], { project: request.project, turn: request.turn });
      return undefined;
  }
}

/**
 * Before: the agent's old text (virtual, read-only). After: the workspace's file itself when it
 * holds the agent's new text (the change is applied: the user may go on editing there), else
 * the agent's new text (virtual), so the diff always shows the change the tool call reports.
 */
async function openDiff(file: string, oldText: string, newText: string, deps: BridgeDeps): Promise<void> {
  const before = deps.documents.add(file, oldText, "before");
  const inside = workspaceFile(file);
  const after = inside && (await holds(inside, newText)) ? vscode.Uri.file(inside) : deps.documents.add(file, newText, "after");
  await vscode.commands.executeCommand("vscode.diff", before, after, `${path.basename(file)} (the agent's change)`, { preview: true });
}

/** `file` inside one of this window's workspace folders (real path), or undefined. */
function workspaceFile(file: string): string | undefined {
  return insideFolders(
    file,
    (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
  );
}

/** Whether the file's text (as VS Code has it, unsaved edits included) is `text`. */
async function holds(file: string, text: string): Promise<boolean> {
  if (!fs.existsSync(file)) return false;
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file)).then(undefined, () => undefined);
  return document?.getText() === text;
}

async function openFile(file: string, line: number | undefined, log: vscode.LogOutputChannel): Promise<void> {
  const inside = workspaceFile(file);
  if (!inside || !fs.existsSync(inside)) {
    log.warn(`the chat asked to open ${JSON.stringify(file)}, which is not a file in this workspace: not opened`);
    void vscode.window.showWarningMessage(`Symposium: ${noticeText(file)} is not a file in this workspace.`);
    return;
  }
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.file(inside), { selection: new vscode.Range(position, position), preview: true });
}
