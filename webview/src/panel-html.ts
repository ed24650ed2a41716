// The HTML of the Symposium panel. Pure: the extension passes in what it
// knows; nothing here touches VS Code's API, so it is easy to test.
//
// Security: a Content Security Policy that allows nothing by default; styles
// only from the webview's own resource origin; scripts only with this load's
// nonce; frames only from the one Toad origin the extension names.

export type PanelState =
  | { kind: "starting"; message: string }
  | { kind: "error"; message: string; detail?: string }
  | { kind: "chat"; toadUrl: string };

export interface PanelHtmlOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A fresh random value for each render. */
  nonce: string;
  /** URI of webview/media/panel.css as the webview may load it. */
  styleUri: string;
  state: PanelState;
}

export function panelHtml(options: PanelHtmlOptions): string {
  const frameSource = options.state.kind === "chat" ? originOf(options.state.toadUrl) : null;
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource}`,
    `script-src 'nonce-${options.nonce}'`,
    frameSource ? `frame-src ${frameSource}` : null,
  ]
    .filter(Boolean)
    .join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>Symposium</title>
</head>
<body>
${body(options.state)}
</body>
</html>`;
}

function body(state: PanelState): string {
  switch (state.kind) {
    case "starting":
      return `<main class="status" data-state="starting"><p>${escapeHtml(state.message)}</p></main>`;
    case "error":
      return `<main class="status" data-state="error"><p class="error">${escapeHtml(state.message)}</p>${
        state.detail ? `<pre>${escapeHtml(state.detail)}</pre>` : ""
      }</main>`;
    case "chat":
      return `<iframe id="toad" title="Toad chat" src="${escapeHtml(state.toadUrl)}" sandbox="allow-scripts allow-same-origin allow-forms allow-popups"></iframe>`;
  }
}

/** scheme://host:port of a URL: what a CSP source may name. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
