// Walkthroughs in VS Code (docs/walkthroughs.md): present_walkthrough's
// window end (a handler on the editor tools' channel), the view beside the
// editor (a webview panel: webview/src/walkthrough-html.ts and its page,
// webchat/page/walkthrough.ts), the comments in the code
// (walkthrough-comments.ts), what the page's links and buttons do, the last
// walkthroughs kept per workspace to reopen, and the view restored after a
// reload. A new walkthrough replaces the one in the view; a window shows at
// most WALKTHROUGH_LIMITS.maxPerMinute a minute.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { CHANNEL_ERROR, TOOL } from "../../../editor-tools/src/protocol.js";
import {
  WALKTHROUGH_LIMITS,
  WalkthroughFormatError,
  parseGitdiff,
  parseWalkthrough,
  type PresentWalkthroughResult,
  type WalkthroughBlock,
} from "../../../editor-tools/src/walkthrough-format.js";
import { walkthroughHtml } from "../../../webview/src/walkthrough-html.js";
import {
  parseWalkthroughRequest,
  type PageBlock,
  type PageWalkthrough,
  type WalkthroughRequest,
  type WalkthroughShow,
} from "../../../webview/src/walkthrough-messages.js";
import { MAX_REPLY_QUOTE, type SelectionMention } from "../../../webview/src/panel-messages.js";
import { ChannelRefusal, type ChannelHandler } from "../../../editor-tools/src/channel-server.js";
import { REPLY_COMMAND, WalkthroughComments } from "./walkthrough-comments.js";
import { REVISION_SCHEME, RevisionDocuments, openGitdiff } from "./walkthrough-git.js";
import { baseFolderInside, pathInside, resolveLocation, workspaceFolders, type Place } from "./walkthrough-resolve.js";

export const WALKTHROUGH_VIEW_TYPE = "symposium.walkthrough";
export const REOPEN_COMMAND = "symposium.reopenWalkthrough";
const HISTORY_KEY = "symposium.walkthroughs";
/** Walkthroughs kept per workspace (each at most 256 KiB of Markdown). */
const MAX_KEPT = 5;
/** How long the tool's answer waits for the page to say it has painted. */
const PAINT_WAIT_MS = 10_000;

/** A walkthrough as kept: what it takes to show it again (its locations resolved anew). */
interface Kept {
  id: string;
  markdown: string;
  baseFolder: string;
  agent: string;
  title: string;
  at: number;
}

/** The walkthrough in the view: its blocks and where each comment resolved. */
interface Shown {
  kept: Kept;
  blocks: WalkthroughBlock[];
  /** Each comment's places; none with the reason. */
  comments: Array<{ text: string; location: string; places: Place[]; problem?: string }>;
}

export interface WalkthroughDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  /** Puts a mention of a file's lines into the chat's composer (chat-view.ts). */
  mention(mention: SelectionMention): Promise<void>;
}

export class Walkthroughs implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The panel's page has loaded and said so (it has painted), and has not been hidden since: it takes messages. */
  private pageLive = false;
  private shown: Shown | undefined;
  private readonly comments = new WalkthroughComments();
  private readonly recent: number[] = [];
  /** Walkthroughs the tool's answer waits for, each told the page's drawing time once it has painted. */
  private readonly painted = new Map<string, (drawMs: number) => void>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: WalkthroughDeps) {
    this.disposables.push(
      this.comments,
      vscode.window.registerWebviewPanelSerializer(WALKTHROUGH_VIEW_TYPE, { deserializeWebviewPanel: async (panel) => this.restore(panel) }),
      vscode.commands.registerCommand(REOPEN_COMMAND, () => this.reopen()),
      vscode.commands.registerCommand(REPLY_COMMAND, (index: unknown) => this.reply(index)),
      vscode.workspace.registerTextDocumentContentProvider(REVISION_SCHEME, new RevisionDocuments()),
    );
  }

  /** present_walkthrough's handler on the editor tools' channel. */
  readonly handlers: Record<string, ChannelHandler> = { [TOOL.presentWalkthrough]: (params) => this.present(params) };

  dispose(): void {
    this.panel?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }

  private async present(params: Record<string, unknown>): Promise<PresentWalkthroughResult> {
    const { markdown, baseFolder, agent } = params;
    if (typeof markdown !== "string" || typeof baseFolder !== "string")
      throw new ChannelRefusal("markdown and baseFolder must be strings", CHANNEL_ERROR.invalidParams);
    const base = baseFolderInside(baseFolder);
    if (base === undefined)
      throw new ChannelRefusal(
        `baseFolder ${baseFolder} is not a folder inside this window's workspace folders (${workspaceFolders().join(", ") || "none"}): refused`,
        CHANNEL_ERROR.outsideWorkspace,
      );
    this.checkFlood();
    const name = typeof agent === "string" && agent.trim() !== "" ? agent.trim().slice(0, 100) : "Agent";
    const kept: Kept = { id: crypto.randomUUID(), markdown, baseFolder: base, agent: name, title: "", at: Date.now() };
    const started = Date.now();
    const painting = this.waitPainted(kept.id);
    const mode = this.pageLive && this.panel?.visible === true ? "page loaded" : "view, a new page";
    const shown = await this.show(kept);
    const handedOver = Date.now() - started;
    await this.remember(kept);
    const drawMs = await painting;
    this.deps.log.info(
      `walkthrough "${kept.title}" by ${name}: resolved and handed to the ${mode} in ${handedOver} ms, ` +
        (drawMs === undefined ? "not painted yet (view hidden?)" : `painted ${Date.now() - started} ms after the call (the page drew it in ${drawMs} ms)`),
    );
    return summary(shown);
  }

  /** Refuses a walkthrough over the window's rate: a flood replaces nothing. */
  private checkFlood(): void {
    const now = Date.now();
    while (this.recent.length > 0 && now - this.recent[0]! > 60_000) this.recent.shift();
    if (this.recent.length >= WALKTHROUGH_LIMITS.maxPerMinute)
      throw new ChannelRefusal(`${WALKTHROUGH_LIMITS.maxPerMinute} walkthroughs in the last minute is this window's limit: present again in a minute`);
    this.recent.push(now);
  }

  /** Parses, resolves and shows `kept` in the view, its comments in the code. */
  private async show(kept: Kept, panel?: vscode.WebviewPanel): Promise<Shown> {
    let parsed;
    try {
      parsed = parseWalkthrough(kept.markdown);
    } catch (error) {
      if (error instanceof WalkthroughFormatError) throw new ChannelRefusal(error.message, CHANNEL_ERROR.invalidParams);
      throw error;
    }
    kept.title = parsed.title;
    const comments: Shown["comments"] = [];
    for (const block of parsed.blocks) {
      if (block.kind !== "comment") continue;
      const resolution = await resolveLocation(block.location, kept.baseFolder);
      comments.push({ text: block.text, location: block.written, ...resolution });
    }
    const shown: Shown = { kept, blocks: parsed.blocks, comments };
    this.shown = shown;
    // The view first: the editor's comment widgets keep the workbench busy, and the page's message waits behind them.
    this.render(shown, panel);
    this.comments.clear();
    comments.forEach((comment, index) => {
      if (comment.places.length === 1) this.comments.place(index, comment.places[0]!, comment.text, kept.agent, kept.title);
    });
    return shown;
  }

  /**
   * Shows `shown` in the view. A page that is loaded and visible gets it as a message and draws it in place (no
   * new page, no script loaded again: docs/benchmarks.md, W1); otherwise the view is given a page carrying it.
   */
  private render(shown: Shown, adopted?: vscode.WebviewPanel): void {
    if (adopted) this.adopt(adopted);
    const panel = this.panel;
    if (panel && this.pageLive && panel.visible) {
      panel.title = shown.kept.title;
      void panel.webview.postMessage({ type: "show", walkthrough: this.pageFor(shown, panel.webview) } satisfies WalkthroughShow);
      return;
    }
    if (!panel)
      this.adopt(
        vscode.window.createWebviewPanel(
          WALKTHROUGH_VIEW_TYPE,
          shown.kept.title,
          { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
          { enableScripts: true },
        ),
      );
    this.load(this.panel!, shown);
  }

  /** Gives the view a new page that draws `shown` first. */
  private load(panel: vscode.WebviewPanel, shown: Shown): void {
    const media = vscode.Uri.joinPath(this.deps.context.extensionUri, "dist", "walkthrough");
    const roots = [media, ...workspaceFolders().map((folder) => vscode.Uri.file(folder))];
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: roots };
    panel.title = shown.kept.title;
    const webview = panel.webview;
    this.pageLive = false;
    webview.html = walkthroughHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString("base64"),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "walkthrough.css")).toString(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "walkthrough.js")).toString(),
      mermaidUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "walkthrough-mermaid.js")).toString(),
      walkthrough: this.pageFor(shown, webview),
    });
    if (!panel.visible) panel.reveal(undefined, true);
  }

  private pageFor(shown: Shown, webview: vscode.Webview): PageWalkthrough {
    return pageOf(shown, webview.asWebviewUri(vscode.Uri.file(shown.kept.baseFolder)).toString());
  }

  private adopt(panel: vscode.WebviewPanel): void {
    if (this.panel === panel) return;
    this.panel?.dispose();
    this.panel = panel;
    this.pageLive = false;
    panel.iconPath = vscode.Uri.joinPath(this.deps.context.extensionUri, "media", "symposium.svg");
    panel.webview.onDidReceiveMessage((data: unknown) => {
      const request = parseWalkthroughRequest(data);
      if (request) void this.handle(request).catch((error: Error) => this.deps.log.warn(`walkthrough: ${request.type} failed: ${error.message}`));
    });
    // A hidden view's page is unloaded (no retainContextWhenHidden); shown again, it loads the page it was given.
    panel.onDidChangeViewState(() => {
      if (!panel.visible && this.panel === panel) this.pageLive = false;
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
  }

  /** The page's drawing time once it says it has painted walkthrough `id`; undefined if it has not in PAINT_WAIT_MS. */
  private waitPainted(id: string): Promise<number | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.painted.delete(id);
        resolve(undefined);
      }, PAINT_WAIT_MS);
      this.painted.set(id, (drawMs) => {
        clearTimeout(timer);
        resolve(drawMs);
      });
    });
  }

  private async handle(request: WalkthroughRequest): Promise<void> {
    const shown = this.shown;
    if (!shown) return;
    switch (request.type) {
      case "painted":
        this.pageLive = true;
        // A page loaded again after it was hidden draws the walkthrough it was given, maybe not the latest.
        if (request.id !== shown.kept.id) return this.render(shown);
        this.painted.get(request.id)?.(request.drawMs);
        this.painted.delete(request.id);
        if (request.failedDiagrams > 0) this.deps.log.warn(`walkthrough: ${request.failedDiagrams} diagram(s) could not be drawn`);
        return;
      case "openLocation": {
        const real = pathInside(request.path, shown.kept.baseFolder);
        if (typeof real !== "string") return void vscode.window.showWarningMessage("Symposium: that link points outside the workspace, or to no file.");
        return reveal({ path: real, startLine: request.startLine, endLine: request.endLine });
      }
      case "openComment":
        return this.openComment(shown, request.index);
      case "action":
        return this.action(shown, request.index);
      case "gitdiff": {
        const block = shown.blocks.filter((each) => each.kind === "gitdiff")[request.index];
        if (block) await openGitdiff(parseGitdiff(block.written), shown.kept.baseFolder, block.written);
        return;
      }
      case "openUrl":
        await vscode.env.openExternal(vscode.Uri.parse(request.url, true));
    }
  }

  /** A comment with one place: reveal it; with several: the user picks one, and the comment moves there. */
  private async openComment(shown: Shown, index: number): Promise<void> {
    const comment = shown.comments[index];
    if (!comment || comment.places.length === 0) return;
    let place = comment.places[0]!;
    if (comment.places.length > 1) {
      const items = comment.places.map((each) => ({ label: `${vscode.workspace.asRelativePath(each.path, false)}:${each.startLine}`, place: each }));
      const picked = await vscode.window.showQuickPick(items, { title: "Which place does this comment mean?" });
      if (!picked) return;
      place = picked.place;
      this.comments.place(index, place, comment.text, shown.kept.agent, shown.kept.title);
    }
    this.comments.expand(index);
    await reveal(place);
  }

  /**
   * An action's message goes to the chat. The chat takes mentions into its composer, not text, from VS Code
   * (panel-messages.ts), so the message goes to the clipboard and the chat is focused for the user to paste it.
   */
  private async action(shown: Shown, index: number): Promise<void> {
    const block = shown.blocks.filter((each) => each.kind === "action")[index];
    if (!block) return;
    await vscode.env.clipboard.writeText(block.message);
    await vscode.commands.executeCommand("symposium.openChat");
    void vscode.window.showInformationMessage("Symposium: the action's message is on the clipboard: paste it into the chat and send it.");
  }

  /** "Reply in chat" on a comment: in the chat's composer, a mention of its place and the comment quoted. */
  private async reply(index: unknown): Promise<void> {
    const place = typeof index === "number" ? this.comments.placed(index) : undefined;
    const comment = typeof index === "number" ? this.shown?.comments[index] : undefined;
    if (!place || !comment) return;
    const range = place.range;
    await this.deps.mention({
      path: vscode.workspace.asRelativePath(place.uri, false).replace(/\\/g, "/"),
      startLine: (range?.start.line ?? 0) + 1,
      endLine: (range?.end.line ?? 0) + 1,
      inReplyTo: comment.text.slice(0, MAX_REPLY_QUOTE),
    });
  }

  /** The kept walkthroughs, newest first; read back as unknown (an older version may have left anything). */
  private kept(): Kept[] {
    const value = this.deps.context.workspaceState.get<unknown>(HISTORY_KEY);
    return Array.isArray(value) ? value.filter(isKept) : [];
  }

  private async remember(kept: Kept): Promise<void> {
    const others = this.kept().filter((each) => each.id !== kept.id);
    await this.deps.context.workspaceState.update(HISTORY_KEY, [kept, ...others].slice(0, MAX_KEPT));
  }

  /** The view after a window reload: the last walkthrough again (or nothing to show). */
  private async restore(panel: vscode.WebviewPanel): Promise<void> {
    const last = this.kept()[0];
    if (!last) {
      panel.dispose();
      return;
    }
    await this.show(last, panel).catch((error: Error) => {
      this.deps.log.warn(`walkthrough: the last one cannot be shown again: ${error.message}`);
      panel.dispose();
    });
  }

  private async reopen(): Promise<void> {
    const items = this.kept().map((kept) => ({ label: kept.title, description: `${kept.agent} · ${new Date(kept.at).toLocaleString()}`, kept }));
    if (items.length === 0) return void vscode.window.showInformationMessage("Symposium: no walkthrough was presented in this workspace yet.");
    const picked = await vscode.window.showQuickPick(items, { title: "Reopen which walkthrough?" });
    if (picked) await this.show(picked.kept);
  }
}

function isKept(value: unknown): value is Kept {
  const kept = value as Partial<Kept> | null;
  return (
    typeof kept === "object" &&
    kept !== null &&
    typeof kept.id === "string" &&
    typeof kept.markdown === "string" &&
    typeof kept.baseFolder === "string" &&
    typeof kept.agent === "string" &&
    typeof kept.title === "string" &&
    typeof kept.at === "number"
  );
}

async function reveal(place: Place): Promise<void> {
  const selection = new vscode.Range(place.startLine - 1, 0, place.endLine - 1, 0);
  await vscode.window.showTextDocument(vscode.Uri.file(place.path), { viewColumn: vscode.ViewColumn.One, selection, preview: true });
}

/** What the page draws: the blocks, each comment's places as the user reads paths (relative to its folder). */
function pageOf(shown: Shown, imageBase: string): PageWalkthrough {
  const counters = { comment: 0, action: 0, gitdiff: 0 };
  const blocks = shown.blocks.map((block): PageBlock => {
    if (block.kind === "markdown" || block.kind === "mermaid") return { kind: block.kind, text: block.text };
    if (block.kind === "action") return { kind: "action", index: counters.action++, button: block.button };
    if (block.kind === "gitdiff") return { kind: "gitdiff", index: counters.gitdiff++, written: block.written };
    const index = counters.comment++;
    const comment = shown.comments[index]!;
    const places = comment.places.map((place) => ({ ...place, path: vscode.workspace.asRelativePath(place.path, false) }));
    return {
      kind: "comment",
      index,
      location: comment.location,
      text: comment.text,
      places,
      ...(comment.problem !== undefined ? { problem: comment.problem } : {}),
    };
  });
  return { id: shown.kept.id, title: shown.kept.title, agent: shown.kept.agent, imageBase, blocks };
}

function summary(shown: Shown): PresentWalkthroughResult {
  const count = (kind: WalkthroughBlock["kind"]) => shown.blocks.filter((block) => block.kind === kind).length;
  return {
    title: shown.kept.title,
    diagrams: count("mermaid"),
    actions: count("action"),
    gitdiffs: count("gitdiff"),
    placed: shown.comments.filter((comment) => comment.places.length === 1).length,
    ambiguous: shown.comments.flatMap((comment, index) =>
      comment.places.length > 1 ? [{ comment: index + 1, location: comment.location, places: comment.places.length }] : [],
    ),
    unresolved: shown.comments.flatMap((comment, index) =>
      comment.places.length === 0 ? [{ comment: index + 1, location: comment.location, reason: comment.problem ?? "no place" }] : [],
    ),
  };
}
