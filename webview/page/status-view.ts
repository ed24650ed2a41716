// The panel's status, drawn here and nowhere else: the first render's (from
// the HTML's data-status, webview/src/panel-html.ts) and every one after it
// (the extension's `status` messages). The chat's frame is shown or hidden
// with it: a ready chat, or a restart that keeps the old one on screen under
// its message.

import type { PanelStatus } from "../src/panel-messages.js";

/** The places the panel's HTML has for the status. */
export interface StatusElements {
  status: HTMLElement;
  message: HTMLElement;
  detail: HTMLElement;
  retry: HTMLElement;
  /** The chat's iframe, when there is a chat to show. */
  frame: HTMLIFrameElement | null;
}

/** Whether the status puts the chat on screen. */
export function wantsChat(status: PanelStatus): boolean {
  return status.kind === "ready" || (status.kind === "starting" && status.keepChat === true);
}

/**
 * Draws `status`. `loadingLine`: what a ready chat whose page has not loaded yet says instead of a
 * blank area ("Starting the chat…"), or null once it has loaded (or when there is no chat page).
 */
export function drawStatus(elements: StatusElements, status: PanelStatus, loadingLine: string | null): void {
  const { status: area, message, detail, retry, frame } = elements;
  const chatShown = wantsChat(status);
  const loading = status.kind === "ready" && !status.notice && loadingLine !== null;
  const line = loading ? loadingLine : status.kind === "ready" ? (status.notice ?? "") : status.message;
  area.hidden = !line;
  area.dataset.state = status.kind;
  if (loading) area.dataset.loading = "1";
  else delete area.dataset.loading;
  area.classList.toggle("over-chat", chatShown);
  if (frame) frame.hidden = !chatShown;
  message.textContent = line;
  message.className = status.kind === "error" ? "error" : "";
  detail.textContent = status.kind === "error" ? (status.detail ?? "") : "";
  detail.hidden = !detail.textContent;
  retry.hidden = !(status.kind === "stopped" || (status.kind === "error" && status.retry === true));
  retry.textContent = status.kind === "stopped" ? (status.button ?? "Start") : "Retry";
}
