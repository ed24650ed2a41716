// The HTML of the Symposium panel. Pure: the extension passes in what it
// knows; nothing here touches VS Code's API, so it is easy to test.
//
// The page is rendered once per chat address: later status changes arrive
// as messages (panel-messages.ts) handled by media/panel.js, because
// replacing the HTML would reload the iframe and lose the chat.
//
// Security: a Content Security Policy that allows nothing by default; styles
// and the one script only from the webview's own resources (the script also
// needs this render's nonce); frames only from the one gate origin the
// extension names. The iframe's sandbox is the one Symposium's VS Code design gives it (docs/panel.md).
// The chords the chat may hand back (panel-messages.ts) ride on the body, for
// panel.js to pass on to the chat page and to check its requests against.

import { escapeHtml } from "./html-escape.js";
import { CHORD_COMMANDS, type PanelStatus } from "./panel-messages.js";

export interface PanelHtmlOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A fresh random value for each render. */
  nonce: string;
  /** URIs of webview/media/panel.css and panel.js as the webview may load them. */
  styleUri: string;
  scriptUri: string;
  /** The chat's address (through the gate); none while there is nothing to show. */
  chatUrl?: string;
  status: PanelStatus;
  /** The status's sequence number: the page ignores status messages older than this. */
  seq: number;
}

/** Shown over a ready chat until its page has loaded. */
export const CHAT_LOADING = "Starting the chat…";

export const FRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups";

export function panelHtml(options: PanelHtmlOptions): string {
  const frameSource = options.chatUrl ? originOf(options.chatUrl) : null;
  const csp = ["default-src 'none'", `style-src ${options.cspSource}`, `script-src 'nonce-${options.nonce}'`, frameSource ? `frame-src ${frameSource}` : null]
    .filter(Boolean)
    .join("; ");
  const status = options.status;
  const chatShown = status.kind === "ready" || (status.kind === "starting" && status.keepChat === true);
  // A ready chat's page takes a moment to load: until it has, the panel says so (panel.js hides it), never a blank area.
  const loading = chatShown && status.kind === "ready" && !status.notice && options.chatUrl !== undefined;
  const line = loading ? CHAT_LOADING : status.kind === "ready" ? (status.notice ?? "") : status.message;
  const frame = options.chatUrl
    ? `<iframe id="chat" title="Symposium chat" src="${escapeHtml(options.chatUrl)}" sandbox="${FRAME_SANDBOX}"${chatShown ? "" : " hidden"}></iframe>`
    : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>Symposium</title>
</head>
<body data-seq="${options.seq}" data-chords="${escapeHtml(Object.keys(CHORD_COMMANDS).join(" "))}">
<main id="status" class="status${chatShown && line ? " over-chat" : ""}" data-state="${status.kind}"${loading ? ' data-loading="1"' : ""}${line ? "" : " hidden"}>
<p id="message"${status.kind === "error" ? ' class="error"' : ""}>${escapeHtml(line)}</p>
<pre id="detail"${status.kind === "error" && status.detail ? "" : " hidden"}>${escapeHtml(status.kind === "error" ? (status.detail ?? "") : "")}</pre>
<button id="retry"${(status.kind === "error" && status.retry) || status.kind === "stopped" ? "" : " hidden"}>${escapeHtml(status.kind === "stopped" ? (status.button ?? "Start") : "Retry")}</button>
</main>
${frame}
<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>`;
}

/** scheme://host:port of a URL: what a CSP source may name. */
export function originOf(url: string): string {
  return new URL(url).origin;
}
