import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { panelHtml } from "../../../webview/src/panel-html.js";

const base = {
  seq: 1,
  cspSource: "https://webview.example",
  nonce: "n0nce+/=",
  styleUri: "https://webview.example/panel.css",
  scriptUri: "https://webview.example/panel.js",
};

function csp(html: string): string {
  return /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!.replace(/&#39;/g, "'");
}

describe("panel HTML", () => {
  it("allows nothing by default, and frames only the gate's origin", () => {
    const html = panelHtml({ ...base, chatUrl: "http://127.0.0.1:41234/?token=abc&conversation=c1", status: { kind: "ready" } });
    assert.equal(csp(html), "default-src 'none'; style-src https://webview.example; script-src 'nonce-n0nce+/='; frame-src http://127.0.0.1:41234");
    assert.match(
      html,
      /<iframe id="chat" title="Symposium chat" data-src="http:\/\/127\.0\.0\.1:41234\/\?token=abc&#38;conversation=c1" sandbox="allow-scripts allow-same-origin allow-forms allow-popups" hidden><\/iframe>/,
    );
    // The status rides on the body, for the page's script to draw (webview/page/status-view.ts), with its sequence number.
    assert.match(html, /<body data-seq="1" data-status="\{&#34;kind&#34;:&#34;ready&#34;\}">/);
    assert.match(html, /<main id="status" class="status" hidden>\n<p id="message"><\/p>/, "nothing drawn before the script");
  });

  it("frames code-server's forwarded origin when the chat is reached through /proxy/PORT/", () => {
    const html = panelHtml({ ...base, chatUrl: "https://cs.example:8443/proxy/41234/?token=abc", status: { kind: "ready" } });
    assert.match(csp(html), /; frame-src https:\/\/cs\.example:8443$/);
  });

  it("has no frame source at all when there is no chat to show", () => {
    const html = panelHtml({ ...base, status: { kind: "starting", message: "Starting the chat…" } });
    assert.doesNotMatch(csp(html), /frame-src/);
    assert.doesNotMatch(html, /<iframe/);
    assert.match(html, /<script nonce="n0nce\+\/=" src="https:\/\/webview\.example\/panel\.js"><\/script>/);
  });

  it("keeps the iframe behind an error so a status change never reloads the chat (hidden until the script draws the status)", () => {
    const status = { kind: "error", message: "It broke", detail: "last line", retry: true } as const;
    const html = panelHtml({ ...base, chatUrl: "http://127.0.0.1:41234/?token=abc", status });
    assert.match(html, /<iframe id="chat"[^>]* hidden><\/iframe>/);
    const data = /data-status="([^"]*)"/.exec(html)![1]!.replace(/&#34;/g, '"');
    assert.deepEqual(JSON.parse(data), status);
  });

  it("escapes what it shows", () => {
    const html = panelHtml({ ...base, status: { kind: "error", message: "<script>alert(1)</script>", detail: `"quoted" & 'single'` } });
    assert.doesNotMatch(html, /<script>alert/);
    assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    assert.match(html, /\\&#34;quoted\\&#34; &#38; &#39;single&#39;/);
  });
});
