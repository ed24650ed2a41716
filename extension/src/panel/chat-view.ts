// Where the chat shows: the webview view (bottom panel by default; the user
// may drag it to the secondary side bar) and any editor tabs opened with
// "Open Chat in Editor". Each holds the same page — the chat's iframe on the
// panel host's gate, the same conversation — whichever chat runs behind the
// host (Toad or the built-in one). The HTML is rendered once per chat address;
// everything after that (status, focus, theme, mentions) goes to the page as
// messages, so the chat is never reloaded by a status change. Opening a
// surface starts (or reconnects to) the chat. The view's description names the
// agent and its state.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { panelHtml } from "../../../webview/src/panel-html.js";
import type { ActionRequest } from "./chat-bridge.js";
import { chatUrlWith } from "./panel-lifecycle.js";
import { ChatAttention } from "./chat-attention.js";
import { parseFromPanel, type ChatTheme, type PanelStatus, type SelectionMention, type ToPanel } from "../../../webview/src/panel-messages.js";

/**
 * The view's id. It was `symposium.toadView` before any release; VS Code keys a
 * view's saved place and size by its id, and no user has a layout saved under
 * the old one yet.
 */
export const CHAT_VIEW_ID = "symposium.chatView";
/** How long a page showing an older render may wait for the latest one before it is rendered again. */
const STALE_RENDER_MS = 3_000;

/** The editor tab's webview type ("Open Chat in Editor"). */
export const CHAT_EDITOR_TYPE = "symposium.chatEditor";

/** The chat page asked VS Code for something (already checked); `withdrawn` aborts when that page is gone. */
export type BridgeHandler = (request: ActionRequest, withdrawn: AbortSignal) => Promise<ToPanel | undefined>;

/** One webview showing the chat: the view, or an editor tab. */
interface Surface {
  webview: vscode.Webview;
  readonly visible: boolean;
  renderedUrl: string | undefined | null;
  /** The status sequence number of the last HTML given to it: the page says which render it shows. */
  renderedSeq: number;
  /** Set while the page shows an older render: fires a new render unless the latest one's page reports first. */
  staleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests of the page now in it that VS Code has not answered yet (an edit under review), by id. */
  readonly open: Map<string, AbortController>;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly surfaces = new Set<Surface>();
  private readonly editors = new Set<vscode.WebviewPanel>();
  private status: PanelStatus = { kind: "starting", message: "Starting the chat…" };
  private chatUrl: string | undefined;
  private seq = 0;
  private agent: { name: string; state: string } | undefined;
  private readonly opened = new vscode.EventEmitter<void>();
  private readonly retried = new vscode.EventEmitter<void>();
  private readonly conversationMovedTo = new vscode.EventEmitter<string>();
  /** A surface became visible (first time or again): the chat should be there. */
  readonly onDidOpen = this.opened.event;
  /** The panel's Retry (or Start) button. */
  readonly onDidAskRetry = this.retried.event;
  /** The chat page moved to another conversation (its id). */
  readonly onDidMoveConversation = this.conversationMovedTo.event;
  private readonly disposables: vscode.Disposable[] = [this.opened, this.retried, this.conversationMovedTo];
  /** Notifications and the view's badge while the chat is out of view (chat-attention.ts). */
  private readonly attention: ChatAttention;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly request: BridgeHandler,
  ) {
    this.attention = new ChatAttention({
      log,
      seen: () => vscode.window.state.focused && [...this.surfaces].some((surface) => surface.visible),
      agentName: () => this.agent?.name || undefined,
      open: () => this.reveal(),
    });
    this.disposables.push(
      vscode.window.onDidChangeActiveColorTheme(() => this.postAll({ type: "theme", theme: currentTheme() })),
      this.attention,
    );
  }

  /** Whether the view is on screen now. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** What the view shows now (or will show once it opens). */
  get shownStatus(): PanelStatus {
    return this.status;
  }

  /** The view's title line as the user sees it (name and description). */
  get title(): string {
    return [this.view?.title, this.view?.description].filter(Boolean).join(" — ");
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.log.info("chat panel opened");
    // Asked first: after a window reload the first render already says "reconnecting" and
    // shows the kept conversation (webview/page/kept-conversation.ts), never a "starting" screen.
    this.opened.fire();
    const surface = this.addSurface(view.webview, () => view.visible, view.onDidDispose);
    this.attention.setView(view);
    view.onDidDispose(() => {
      this.view = undefined;
      this.attention.setView(undefined);
    });
    view.onDidChangeVisibility(() => {
      if (!view.visible) return;
      this.attention.check();
      this.opened.fire();
      this.post(surface, { type: "focus" });
    });
    this.updateTitle();
  }

  /** "Open Chat in Editor": an editor tab with the same chat (one; a second call reveals it). */
  openInEditor(): void {
    const existing = [...this.editors][0];
    if (existing) return existing.reveal();
    this.adoptEditor(
      vscode.window.createWebviewPanel(CHAT_EDITOR_TYPE, "Symposium", vscode.ViewColumn.Active, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [this.mediaRoot()],
      }),
    );
  }

  /**
   * An editor tab VS Code brings back after a window reload (registered for CHAT_EDITOR_TYPE). It shows the
   * window's conversation, the one the reload returns to, as the panel does; until the chat is back, its page
   * shows its own kept copy of that conversation (the webview's state, which VS Code kept with the tab).
   */
  restoreEditor(panel: vscode.WebviewPanel): void {
    this.log.info("chat editor tab restored");
    this.adoptEditor(panel);
  }

  private adoptEditor(panel: vscode.WebviewPanel): void {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "symposium.svg");
    this.editors.add(panel);
    panel.onDidDispose(() => this.editors.delete(panel));
    panel.onDidChangeViewState(() => this.attention.check());
    this.addSurface(panel.webview, () => panel.visible, panel.onDidDispose);
    this.updateTitle();
    this.opened.fire();
  }

  /** Shows the chat: the editor tab when the chat lives only there, else the view. */
  private async reveal(): Promise<void> {
    const editor = [...this.editors][0];
    if (editor && !this.view) return editor.reveal(undefined, false);
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Puts the mention into the composer of the chat the user sees (an editor tab if one is active, else the view). */
  async mention(mention: SelectionMention): Promise<void> {
    const editor = [...this.editors].find((panel) => panel.visible);
    if (editor) editor.reveal(undefined, false);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    const target = editor?.webview ?? this.view?.webview;
    const surface = [...this.surfaces].find((each) => each.webview === target);
    if (surface) this.post(surface, { type: "mention", ...mention });
  }

  /** Shows a status and, once there is one, the chat. */
  show(status: PanelStatus, chatUrl?: string): void {
    this.status = status;
    this.seq++;
    if (chatUrl !== undefined || status.kind !== "error") this.chatUrl = chatUrl ?? this.chatUrl;
    for (const surface of this.surfaces) {
      if (surface.renderedUrl !== this.chatUrl) this.render(surface);
      else this.post(surface, { type: "status", status, seq: this.seq });
    }
    this.updateTitle();
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    for (const panel of this.editors) panel.dispose();
  }

  private addSurface(webview: vscode.Webview, visible: () => boolean, onDispose: vscode.Event<void>): Surface {
    const surface: Surface = {
      webview,
      get visible() {
        return visible();
      },
      renderedUrl: null,
      renderedSeq: -1,
      staleTimer: undefined,
      open: new Map(),
    };
    webview.options = { enableScripts: true, localResourceRoots: [this.mediaRoot()] };
    this.surfaces.add(surface);
    onDispose(() => {
      stopStaleTimer(surface);
      this.surfaces.delete(surface);
      withdrawAll(surface);
    });
    webview.onDidReceiveMessage((data: unknown) => this.receive(data, surface));
    this.render(surface);
    return surface;
  }

  private receive(data: unknown, surface: Surface): void {
    const message = parseFromPanel(data);
    if (message?.type === "retry") this.retried.fire();
    else if (message?.type === "rendered") this.rendered(message.seq, surface);
    else if (message?.type === "conversation") this.conversationMoved(message.conversation, surface);
    else if (message?.type === "request") {
      const request = message.request;
      if (request.kind === "agent") this.setAgent(request.name, request.state);
      else if (request.kind === "withdrawEdit") surface.open.get(request.id)?.abort();
      else if (request.kind === "attention") this.attention.report(request.reason, request.key);
      else this.handle(request, surface);
    } else this.log.warn(`the panel page sent a message this extension does not take (dropped): ${JSON.stringify(data)?.slice(0, 200)}`);
  }

  /**
   * A surface's chat page went to another conversation (New chat, a History reopen, another agent): it is
   * the window's conversation now. The other surfaces follow, and a tab opened later shows it.
   */
  private conversationMoved(id: string, surface: Surface): void {
    if (!this.chatUrl) return;
    const next = chatUrlWith(this.chatUrl, { conversation: id });
    surface.renderedUrl = next; // that page went there itself: no reload
    this.chatUrl = next;
    this.conversationMovedTo.fire(id);
    for (const other of this.surfaces) if (other.renderedUrl !== next) this.render(other);
  }

  /**
   * The page shows the render of `seq`. An older one is normal for a moment (the newer HTML is still
   * on its way), but a newer HTML set while the window was still loading after a reload can be lost
   * (seen on VS Code 1.139 under load): the panel would say "Reconnecting" for good. So when the
   * latest render's page has not reported a while later, render again.
   */
  private rendered(seq: number, surface: Surface): void {
    stopStaleTimer(surface);
    if (seq >= surface.renderedSeq) return;
    surface.staleTimer = setTimeout(() => {
      this.log.warn(`the chat panel still shows an older page (render ${seq}, the latest is ${surface.renderedSeq}): rendering it again`);
      this.render(surface);
    }, STALE_RENDER_MS);
  }

  /** An answer (an agent's edit: applied or not) goes back to the page that asked only, while it is there. */
  private handle(request: ActionRequest, surface: Surface): void {
    const key = request.kind === "applyEdit" ? request.id : undefined;
    const withdrawn = new AbortController();
    if (key !== undefined) {
      surface.open.get(key)?.abort(); // an id asked again: only the newest may apply
      surface.open.set(key, withdrawn);
    }
    void this.request(request, withdrawn.signal).then((answer) => {
      if (key !== undefined && surface.open.get(key) === withdrawn) surface.open.delete(key);
      if (answer && !withdrawn.signal.aborted) this.post(surface, answer);
    });
  }

  private setAgent(name: string, state: string): void {
    this.agent = { name, state };
    this.updateTitle();
  }

  /** "Chat — demo-agent · Ready"; while the chat itself is not up, what the panel says instead. */
  private updateTitle(): void {
    const hostState = { starting: "starting", stopped: "stopped", error: "failed", ready: undefined }[this.status.kind];
    const agent = this.agent?.name || "Symposium";
    const description = hostState ? `${this.agent?.name ? `${agent} · ` : ""}${hostState}` : `${agent}${this.agent?.state ? ` · ${this.agent.state}` : ""}`;
    if (this.view) this.view.description = description;
    for (const panel of this.editors) panel.title = `${agent} · ${hostState ?? this.agent?.state ?? "chat"}`;
  }

  private postAll(message: ToPanel): void {
    this.surfaces.forEach((surface) => this.post(surface, message));
  }

  private post(surface: Surface, message: ToPanel): void {
    void surface.webview.postMessage(message);
  }

  private render(surface: Surface): void {
    const webview = surface.webview;
    withdrawAll(surface); // the page that asked is replaced by this render
    stopStaleTimer(surface);
    surface.renderedUrl = this.chatUrl;
    surface.renderedSeq = this.seq;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString("base64"),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), "panel.css")).toString(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), "panel.js")).toString(),
      // The theme now, not the one of the URL's first render.
      chatUrl: this.chatUrl && chatUrlWith(this.chatUrl, { theme: currentTheme() }),
      status: this.status,
      seq: this.seq,
    });
  }

  /** The panel page's bundle (scripts/bundle.mjs: webview/page/ → dist/webview/). */
  private mediaRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, "dist", "webview");
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

/** A newer render or report came (or the surface went): the page no longer needs rendering again. */
function stopStaleTimer(surface: Surface): void {
  clearTimeout(surface.staleTimer);
  surface.staleTimer = undefined;
}

/** The surface's page is gone: nothing it asked may be applied any more. */
function withdrawAll(surface: Surface): void {
  for (const request of surface.open.values()) request.abort();
  surface.open.clear();
}
