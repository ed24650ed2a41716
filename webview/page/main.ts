// The panel page's script (the one its CSP allows): draws the status the
// extension sends without reloading the chat's iframe, moves focus into the
// chat, passes the theme, mentions and edit results on to the chat page, keeps
// the chat page's copy of its conversation for the next window reload, and is
// the middle of the bridge: the chat page's requests (only from the chat's own
// frame and origin, checked) go to the extension, which checks them again.
// Every message, from either side, goes through one dispatcher; the protocol
// is webview/src/panel-messages.ts.

import "./panel.css"; // bundled into panel.css beside panel.js
import {
  CHAT_MESSAGE,
  parseFromChat,
  parseStatus,
  parseToPanel,
  type FromChat,
  type FromPanel,
  type PanelStatus,
  type ToPanel,
} from "../src/panel-messages.js";
import { ChatFrame } from "./chat-frame.js";
import { ConversationCopy } from "./kept-conversation.js";
import { drawStatus, wantsChat, type StatusElements } from "./status-view.js";

/** How long a notice stays above a ready chat (unless another status comes). */
const NOTICE_MS = 8000;

const vscode = acquireVsCodeApi();
const toExtension = (message: FromPanel) => vscode.postMessage(message);
const frameElement = document.getElementById("chat");
const chat = frameElement instanceof HTMLIFrameElement ? new ChatFrame(frameElement, chatLoaded) : null;
const elements: StatusElements = {
  status: element("status"),
  message: element("message"),
  detail: element("detail"),
  retry: element("retry"),
  frame: chat?.element ?? null,
};
const kept = new ConversationCopy(vscode, chat?.element ?? elements.status.nextSibling);
/** The first render's status (the HTML's data), then the latest the extension sent. */
let status: PanelStatus = parseStatus(parseJson(document.body.dataset.status)) ?? { kind: "starting", message: "" };
let seq = Number(document.body.dataset.seq) || 0;
kept.wantChat(wantsChat(status), false); // a reload's first render may say "starting": the copy is kept until a status says the chat starts afresh
draw(status);
// Which render this is: a newer HTML set while the window was still loading can be lost, and the extension then renders again.
toExtension({ type: "rendered", seq });

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  const message = fromExtension(event) ? parseToPanel(event.data) : chat?.sent(event) ? parseFromChat(event.data) : null;
  if (message) dispatch(message);
});
elements.retry.addEventListener("click", () => toExtension({ type: "retry" }));
document.addEventListener("click", () => chat?.focus());
window.addEventListener("focus", () => chat?.focus());

/** Every message the page takes: the extension's (ToPanel) and the chat page's (FromChat). */
function dispatch(message: ToPanel | FromChat): void {
  switch (message.type) {
    case "status":
      // VS Code may deliver a message posted before this page was rendered: older statuses are ignored.
      if (message.seq < seq) return;
      seq = message.seq;
      return showStatus(message.status);
    case "focus":
      return chat?.focus();
    case "theme":
      return chat?.post({ type: CHAT_MESSAGE.theme, theme: message.theme });
    case "mention": {
      const { path, startLine, endLine, inReplyTo } = message;
      chat?.focus();
      return chat?.postWhenLoaded({ type: CHAT_MESSAGE.mention, path, startLine, endLine, ...(inReplyTo !== undefined ? { inReplyTo } : {}) });
    }
    case "editResult":
      return chat?.post({ type: CHAT_MESSAGE.editResult, id: message.id, result: message.result });
    case CHAT_MESSAGE.request:
      return toExtension({ type: "request", request: message.request });
    case CHAT_MESSAGE.conversation:
      // The chat page moved to a new conversation ("New chat"): the extension remembers it for the next reload.
      return toExtension({ type: "conversation", conversation: message.conversation });
    case CHAT_MESSAGE.transcript:
      return kept.replace(message.entries);
  }
}

function showStatus(next: PanelStatus): void {
  const wasShown = chat !== null && !chat.element.hidden;
  kept.wantChat(wantsChat(next), next.kind === "starting" && !wantsChat(next));
  draw(next);
  // The chat takes the keys when it appears only if the panel has them now: a
  // user who went back to the editor while it started keeps typing there.
  if (wantsChat(next) && !wasShown && document.hasFocus()) chat?.focus();
}

/** Draws `next`; a notice above a ready chat goes after a while (unless another status came since). */
function draw(next: PanelStatus): void {
  status = next;
  redraw();
  if (next.kind === "ready" && next.notice) setTimeout(() => status === next && draw({ kind: "ready" }), NOTICE_MS);
}

/** Until the chat's page has loaded, a ready chat is said to be starting (its area would be blank). */
function redraw(): void {
  drawStatus(elements, status, chat && !chat.hasLoaded ? kept.loadingLine : null);
}

function chatLoaded(): void {
  redraw();
  kept.chatLoaded();
}

/**
 * Whether a message is the extension's: VS Code's webview host, the window this page is a frame
 * of, relays what the extension posts, from this page's own origin. (The host deletes
 * `window.parent` before this script runs: it is found as the window whose frames hold this one.)
 * Any other frame in the window (the chat's, another extension's webview, a page in Simple
 * Browser, the workbench) can reach this page through `top.frames` and post to it: never the
 * extension.
 */
function fromExtension(event: MessageEvent<unknown>): boolean {
  const source = event.source as Window | null;
  if (!source || source === window || event.origin !== window.origin) return false;
  try {
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- a Window is not iterable
    for (let index = 0; index < source.length; index++) if (source[index] === window) return true;
  } catch {
    return false; // not a window
  }
  return false;
}

/** An element the panel's HTML always has (webview/src/panel-html.ts). */
function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the panel page has no #${id}`);
  return found;
}

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "null");
  } catch {
    return null;
  }
}
