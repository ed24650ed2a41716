// A walkthrough's comments in the code, through VS Code's Comments API: one
// thread per comment that resolved to one place (a comment with several gets
// its thread when the user picks one), authored by the agent's name, folded
// (in the gutter and the Comments view) until the user opens it or follows
// the view's link to it: twenty open widgets in an editor kept the workbench
// busy for seconds (docs/benchmarks.md, W1). The
// agent's text is shown as text, never as Markdown: nothing it wrote becomes a
// link in VS Code. Each comment has a "Reply in chat" link, our own, that puts
// a mention of its place into the chat's composer.

import * as vscode from "vscode";
import type { Place } from "./walkthrough-resolve.js";

export const REPLY_COMMAND = "symposium.walkthroughReply";

export class WalkthroughComments implements vscode.Disposable {
  private readonly controller = vscode.comments.createCommentController("symposium.walkthrough", "Symposium walkthrough");
  private readonly threads = new Map<number, vscode.CommentThread>();

  /** Removes every thread of the walkthrough shown before. */
  clear(): void {
    for (const thread of this.threads.values()) thread.dispose();
    this.threads.clear();
  }

  /** Places comment `index` at `place` (moving it if it was elsewhere). */
  place(index: number, place: Place, text: string, agent: string, title: string): void {
    this.threads.get(index)?.dispose();
    const body = new vscode.MarkdownString();
    body.appendText(text);
    body.appendMarkdown(`\n\n[Reply in chat](command:${REPLY_COMMAND}?${encodeURIComponent(JSON.stringify([index]))})`);
    body.isTrusted = { enabledCommands: [REPLY_COMMAND] };
    const range = new vscode.Range(place.startLine - 1, 0, place.endLine - 1, 0);
    const thread = this.controller.createCommentThread(vscode.Uri.file(place.path), range, [
      { body, mode: vscode.CommentMode.Preview, author: { name: agent } },
    ]);
    thread.canReply = false;
    thread.label = title;
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Collapsed;
    this.threads.set(index, thread);
  }

  /** Opens comment `index`'s thread in the editor (the one the user asked to see). */
  expand(index: number): void {
    const thread = this.threads.get(index);
    if (thread) thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
  }

  /** Where comment `index` is placed now, if it is. */
  placed(index: number): vscode.CommentThread | undefined {
    return this.threads.get(index);
  }

  get count(): number {
    return this.threads.size;
  }

  dispose(): void {
    this.clear();
    this.controller.dispose();
  }
}
