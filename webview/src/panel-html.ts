// The HTML of the Symposium panel. Pure: the extension passes in what it
// knows; nothing here touches VS Code's API, so it is easy to test.
//
// The page is rendered once per chat address: later status changes arrive
// as messages (panel-messages.ts) handled by the page's script (webview/page/),
// because replacing the HTML would reload the iframe and lose the chat. The
// status is drawn by that script only (webview/page/status-view.ts): this HTML
// carries it as data, with its sequence number, and the empty places it fills.
//
// Security: a Content Security Policy that allows nothing by default; styles
// and the one script only from the webview's own resources (the script also
// needs this render's nonce); frames only from the one gate origin the
// extension names. The iframe's sandbox is the one Symposium's VS Code design gives it (docs/panel.md).

import { escapeHtml } from "./html-escape.js";
import type { PanelStatus } from "./panel-messages.js";

export interface PanelHtmlOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A fresh random value for each render. */
  nonce: string;
  /** URIs of the page's stylesheet and script (dist/webview/panel.css and panel.js) as the webview may load them. */
  styleUri: string;
  scriptUri: string;
  /** The chat's address (through the gate); none while there is nothing to show. */
  chatUrl?: string;
  status: PanelStatus;
  /** The status's sequence number: the page ignores status messages older than this. */
  seq: number;
}

export const FRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups";

export function panelHtml(options: PanelHtmlOptions): string {
  const frameSource = options.chatUrl ? originOf(options.chatUrl) : null;
  const csp = ["default-src 'none'", `style-src ${options.cspSource}`, `script-src 'nonce-${options.nonce}'`, frameSource ? `frame-src ${frameSource}` : null]
    .filter(Boolean)
    .join("; ");
  // Hidden until the script has drawn the status: it shows the chat when the status wants it (the chat loads meanwhile).
  const frame = options.chatUrl
    ? `<iframe id="chat" title="Symposium chat" data-src="${escapeHtml(options.chatUrl)}" sandbox="${FRAME_SANDBOX}" hidden></iframe>`
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
<body data-seq="${options.seq}" data-status="${escapeHtml(JSON.stringify(options.status))}">
<main id="status" class="status" hidden>
<p id="message"></p>
<pre id="detail" hidden></pre>
<button id="retry" hidden></button>
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
