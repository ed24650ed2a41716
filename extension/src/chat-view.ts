// The webview view in the bottom panel that holds the chat's iframe, whichever
// chat runs behind the panel host (Toad or the built-in one). The HTML is
// rendered once per chat address; everything after that (status, focus,
// theme) goes to the page as messages, so the chat is never reloaded by a
// status change. Opening the view starts (or reconnects to) the chat.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { panelHtml } from "../../webview/src/panel-html.js";
import { parseFromPanel, type ChatTheme, type PanelStatus, type ToPanel } from "../../webview/src/panel-messages.js";

/**
 * The view's id. It was `symposium.toadView` before any release; VS Code keys a
 * view's saved place and size by its id, and no user has a layout saved under
 * the old one yet.
 */
export const CHAT_VIEW_ID = "symposium.chatView";

export interface ChatViewEvents {
  /** The view became visible (first time or again). */
  opened(): void;
  retry(): void;
  /** The chat page moved to another conversation. */
  conversation(id: string): void;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private status: PanelStatus = { kind: "starting", message: "Starting the chat…" };
  private chatUrl: string | undefined;
  private renderedUrl: string | undefined | null = null;
  private seq = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly events: ChatViewEvents,
  ) {
    this.disposables.push(vscode.window.onDidChangeActiveColorTheme(() => this.post({ type: "theme", theme: currentTheme() })));
  }

  /** Whether the view is on screen now. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** What the view shows now (or will show once it opens). */
  get shownStatus(): PanelStatus {
    return this.status;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.renderedUrl = null;
    view.webview.options = { enableScripts: true, localResourceRoots: [this.mediaRoot()] };
    view.onDidDispose(() => {
      this.view = undefined;
    });
    view.onDidChangeVisibility(() => {
      if (!view.visible) return;
      this.events.opened();
      this.post({ type: "focus" });
    });
    view.webview.onDidReceiveMessage((data: unknown) => this.receive(data));
    this.render();
    this.log.info("chat panel opened");
    this.events.opened();
  }

  /** Shows a status and, once there is one, the chat. */
  show(status: PanelStatus, chatUrl?: string): void {
    this.status = status;
    this.seq++;
    if (chatUrl !== undefined || status.kind !== "error") this.chatUrl = chatUrl ?? this.chatUrl;
    if (this.renderedUrl !== this.chatUrl) this.render();
    else this.post({ type: "status", status, seq: this.seq });
  }

  dispose(): void {
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  private receive(data: unknown): void {
    const message = parseFromPanel(data);
    if (message?.type === "retry") this.events.retry();
    else if (message?.type === "conversation") this.events.conversation(message.conversation);
    else this.log.warn(`the panel page sent a message this extension does not know: ${JSON.stringify(data)?.slice(0, 200)}`);
  }

  private post(message: ToPanel): void {
    void this.view?.webview.postMessage(message);
  }

  private render(): void {
    if (!this.view) return;
    const webview = this.view.webview;
    this.renderedUrl = this.chatUrl;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString("base64"),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), "panel.css")).toString(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), "panel.js")).toString(),
      chatUrl: this.chatUrl,
      status: this.status,
      seq: this.seq,
    });
  }

  private mediaRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, "webview", "media");
  }
}

export function currentTheme(): ChatTheme {
  switch (vscode.window.activeColorTheme.kind) {
    case vscode.ColorThemeKind.Light:
      return "light";
    case vscode.ColorThemeKind.HighContrast:
    case vscode.ColorThemeKind.HighContrastLight:
      return "high-contrast";
    default:
      return "dark";
  }
}
