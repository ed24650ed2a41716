// The page's HTML. Asset URLs are relative (the page works behind a path
// prefix such as code-server's /proxy/PORT/) and carry the secret, as every
// request must; the one script runs by nonce.

import { escapeHtml } from "../../webview/src/html-escape.js";

export function pageHtml({ nonce, token, title }: { nonce: string; token: string; title: string }): string {
  const query = `token=${encodeURIComponent(token)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="page.css?${query}">
</head>
<body>
<div id="app" data-title="${escapeHtml(title)}"></div>
<script nonce="${escapeHtml(nonce)}" src="page.js?${query}"></script>
</body>
</html>
`;
}
