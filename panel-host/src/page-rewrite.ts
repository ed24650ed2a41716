// Makes a frontend's page work through the gate. Toad's page (textual-serve)
// names every resource with absolute URLs built from `http://HOST:PORT` (in
// attributes and in a CSS `url("…")`), and its websocket with
// `ws://HOST:PORT/ws` in a data attribute (docs/panel.md; checked against
// batrachian-toad 0.6.20, textual-serve 1.1.3 in test/toad/toad-real.test.ts): as served, it works
// only when the browser reaches the frontend's private port directly, which
// the gate exists to prevent, and never through code-server's /proxy/PORT/.
// So, in HTML only: absolute URLs on the private origin become relative ones
// carrying the secret, and a small script resolves websocket URLs on the
// private origin against the page's own location. A page that already uses
// relative URLs (the built-in chat) passes through unchanged but for that
// script, which then never fires.
// Pure.

import { TOKEN_PARAM } from "../../loopback-auth/src/index.js";

/**
 * Rewrites `page` (HTML) served by the frontend at `privateOrigin`
 * (`http://127.0.0.1:PORT`), adding `secret` to each rewritten URL.
 */
export function rewriteFrontendPage(page: string, privateOrigin: string, secret: string): string {
  const { host } = new URL(privateOrigin);
  const names = [host, host.replace(/^127\.0\.0\.1/, "localhost")];
  let rewritten = page;
  for (const name of names) {
    const absolute = new RegExp(`(["'])(?:https?|wss?)://${escapeRegExp(name)}/([^"']*)\\1`, "g");
    rewritten = rewritten.replace(absolute, (match, quote: string, rest: string) =>
      match.slice(1).startsWith("ws") ? match : `${quote}${withSecret(`./${rest}`, secret)}${quote}`,
    );
  }
  // Only a page that names the private origin needs the shim (and a page with
  // its own strict CSP, like the built-in chat's, would refuse it anyway).
  return rewritten === page && !names.some((name) => page.includes(`//${name}/`)) ? page : injectScript(rewritten, websocketShim(names));
}

/** `./static/x.js?v=1` + secret → `./static/x.js?v=1&token=…` (attribute-safe: base64url secret). */
function withSecret(relative: string, secret: string): string {
  const hashAt = relative.indexOf("#");
  const [path, hash] = hashAt === -1 ? [relative, ""] : [relative.slice(0, hashAt), relative.slice(hashAt)];
  const separator = path.includes("?") ? "&amp;" : "?";
  return `${path}${separator}${TOKEN_PARAM}=${encodeURIComponent(secret)}${hash}`;
}

/**
 * A script that runs before the page's own: websocket URLs on the private
 * origin are resolved against the page's location (so behind code-server's
 * /proxy/PORT/ too) and given the page's own secret.
 */
function websocketShim(privateHosts: string[]): string {
  return (
    `<script>(function(){var hosts=${JSON.stringify(privateHosts)};var Native=window.WebSocket;` +
    `function Gated(url,protocols){var u=new URL(String(url),location.href);` +
    `if(hosts.indexOf(u.host)!==-1){var page=new URL(location.href);var target=new URL("."+u.pathname,page);` +
    `target.protocol=page.protocol==="https:"?"wss:":"ws:";u.searchParams.forEach(function(v,k){target.searchParams.set(k,v)});` +
    `var token=page.searchParams.get(${JSON.stringify(TOKEN_PARAM)});if(token)target.searchParams.set(${JSON.stringify(TOKEN_PARAM)},token);u=target}` +
    `return protocols===undefined?new Native(u.href):new Native(u.href,protocols)}` +
    `Gated.prototype=Native.prototype;["CONNECTING","OPEN","CLOSING","CLOSED"].forEach(function(k){Gated[k]=Native[k]});` +
    `window.WebSocket=Gated})();</script>`
  );
}

function injectScript(page: string, script: string): string {
  const head = /<head[^>]*>/i.exec(page);
  if (head) return page.slice(0, head.index + head[0].length) + script + page.slice(head.index + head[0].length);
  return script + page;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
