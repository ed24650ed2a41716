// Telling the user the agent is done or waits for them while they are not
// looking at the chat (the chat out of view, or the window without focus): a
// notification whose "Open Chat" shows it, and a count on the view's badge,
// cleared once the chat is seen. `symposium.chat.notifications` turns both off.
// The chat page reports the occasions (webchat/page/attention.ts); what is said
// is attention-notice.ts's.

import * as vscode from "vscode";
import type { AttentionReason } from "../../../webview/src/panel-messages.js";
import { readConfig } from "../config.js";
import { AttentionOccasions, attentionMessage } from "./attention-notice.js";

const OPEN_CHAT = "Open Chat";
const SETTINGS = "Settings";

export interface AttentionDeps {
  log: vscode.LogOutputChannel;
  /** Whether the user sees the chat now: some surface on screen in a focused window. */
  seen(): boolean;
  /** The agent's name as the view's title has it. */
  agentName(): string | undefined;
  /** Shows the chat (the view, or the editor tab the user chose). */
  open(): Promise<void>;
}

export class ChatAttention implements vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private unseen = 0;
  private readonly occasions = new AttentionOccasions();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly deps: AttentionDeps) {
    this.disposables = [vscode.window.onDidChangeWindowState(() => this.check())];
  }

  /** The view now shown (its badge carries the count). */
  setView(view: vscode.WebviewView | undefined): void {
    this.view = view;
    this.showBadge();
  }

  /** A surface came into view, or the window got focus: what was waiting is seen. */
  check(): void {
    if (this.unseen === 0 || !this.deps.seen()) return;
    this.unseen = 0;
    this.showBadge();
  }

  /** A page's report: notified only while the chat is not seen, once per occasion, when the setting allows. */
  report(reason: AttentionReason, key: string | undefined): void {
    if (!this.occasions.isNew(reason, key, Date.now())) return;
    if (this.deps.seen()) return;
    if (readConfig().chatNotifications === false) return this.deps.log.info(`chat not in view: ${reason} not notified: symposium.chat.notifications is off`);
    const message = attentionMessage(reason, this.deps.agentName());
    this.deps.log.info(`chat not in view: notified "${message}"`);
    this.unseen++;
    this.showBadge(message);
    void vscode.window.showInformationMessage(`Symposium: ${message}`, OPEN_CHAT, SETTINGS).then((choice) => {
      if (choice === OPEN_CHAT) return this.deps.open();
      if (choice === SETTINGS) return vscode.commands.executeCommand("workbench.action.openSettings", "symposium.chat.notifications");
      return undefined;
    });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }

  private showBadge(latest?: string): void {
    if (!this.view) return;
    const tooltip = latest ?? this.view.badge?.tooltip ?? "";
    // A badge of 0 is not shown; `undefined` leaves the last one on screen in VS Code 1.99.
    this.view.badge = { value: this.unseen, tooltip: this.unseen > 0 ? tooltip : "" };
  }
}
