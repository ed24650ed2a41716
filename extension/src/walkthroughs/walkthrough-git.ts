// A walkthrough's ```gitdiff blocks opened as VS Code's multi-file diff
// (`vscode.changes`): a range or a commit through git (read only: `git diff
// --name-only` and `git show`, no shell, revisions already checked by the
// format), only the files inside the workspace; a turn through the checkpoint
// store, as the chat's Review does (agent-turns.ts).

import { execFile } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import type { GitdiffSpec } from "../../../editor-tools/src/walkthrough-format.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";
import { workspaceFolders } from "./walkthrough-resolve.js";

export const REVISION_SCHEME = "symposium-walkthrough-rev";
const REVIEW_TURN_COMMAND = "symposium.reviewAgentChanges";
const MAX_FILES = 200;

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile("git", args, { cwd, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr.trim() || error.message)) : resolve(stdout),
    ),
  );
}

/** A file's text at a revision (empty when it did not exist there). */
export class RevisionDocuments implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { repo, revision, file } = JSON.parse(uri.query) as { repo: string; revision: string; file: string };
    return git(repo, ["show", `${revision}:${file}`]).catch(() => "");
  }
}

function revisionUri(repo: string, revision: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: REVISION_SCHEME, path: `/${file}`, query: JSON.stringify({ repo, revision, file }) });
}

export async function openGitdiff(spec: GitdiffSpec, base: string, written: string): Promise<void> {
  if (spec.kind === "turn") {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(base));
    await vscode.commands.executeCommand(REVIEW_TURN_COMMAND, { project: folder?.uri.fsPath ?? base, turn: spec.turn });
    return;
  }
  const [from, to] = spec.kind === "range" ? [spec.from, spec.to] : [`${spec.commit}^`, spec.commit];
  const repo = (await git(base, ["rev-parse", "--show-toplevel"])).trim();
  const names = (await git(repo, ["diff", "--name-only", "-z", from, to, "--"])).split("\0").filter((name) => name !== "");
  const inside = names.filter((name) => insideFolders(path.join(repo, name), workspaceFolders()) !== undefined).slice(0, MAX_FILES);
  if (inside.length === 0) {
    void vscode.window.showInformationMessage("Symposium: this diff changes no file inside the workspace.");
    return;
  }
  const resources = inside.map((name) => [vscode.Uri.file(path.join(repo, name)), revisionUri(repo, from, name), revisionUri(repo, to, name)]);
  await vscode.commands.executeCommand("vscode.changes", `Walkthrough diff: ${written}`, resources);
}
