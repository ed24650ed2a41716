// The HTML of the walkthrough view. Pure (no VS Code): the extension passes in
// what it knows. The first walkthrough rides on the body as data for the
// page's script to draw (webchat/page/walkthrough.ts), with the URL of the
// mermaid script it loads when a diagram needs it (by this render's nonce,
// which it reads off its own script); the agent's text is never HTML here.
//
// Security: nothing by default; scripts only by this render's nonce (the
// page's and mermaid's);
// styles from the webview's own resources, plus inline ones because mermaid's
// SVG carries its own <style> and style attributes (the agent's Markdown can
// have neither: DOMPurify drops them); images only from the webview's own
// resources, which the extension limits to the workspace folders; no
// connections, no frames, no forms.

import { escapeHtml } from "./html-escape.js";
import type { PageWalkthrough } from "./walkthrough-messages.js";

export interface WalkthroughHtmlOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  nonce: string;
  styleUri: string;
  scriptUri: string;
  /** dist/walkthrough/walkthrough-mermaid.js as the webview reaches it. */
  mermaidUri: string;
  walkthrough: PageWalkthrough;
}

export function walkthroughCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'unsafe-inline'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource}`,
    `font-src ${cspSource}`,
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function walkthroughHtml(options: WalkthroughHtmlOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(walkthroughCsp(options.cspSource, options.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>${escapeHtml(options.walkthrough.title)}</title>
</head>
<body data-walkthrough="${escapeHtml(JSON.stringify(options.walkthrough))}" data-mermaid="${escapeHtml(options.mermaidUri)}">
<main id="walkthrough"></main>
<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>`;
}
