import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { panelHtml } from "../webview/src/panel-html.js";

const base = { cspSource: "https://webview.example", nonce: "n0nce+/=", styleUri: "https://webview.example/panel.css" };

function csp(html: string): string {
  return /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!.replace(/&#39;/g, "'");
}

describe("panel HTML", () => {
  it("allows nothing by default, and frames only Toad's origin", () => {
    const html = panelHtml({ ...base, state: { kind: "chat", toadUrl: "http://127.0.0.1:41234/some/path?x=1" } });
    assert.equal(csp(html), "default-src 'none'; style-src https://webview.example; script-src 'nonce-n0nce+/='; frame-src http://127.0.0.1:41234");
    assert.match(html, /<iframe id="toad" title="Toad chat" src="http:\/\/127\.0\.0\.1:41234\/some\/path\?x=1" sandbox="allow-scripts allow-same-origin allow-forms allow-popups"><\/iframe>/);
  });

  it("has no frame source at all when there is no chat to show", () => {
    const html = panelHtml({ ...base, state: { kind: "starting", message: "Starting Toad…" } });
    assert.doesNotMatch(csp(html), /frame-src/);
    assert.doesNotMatch(html, /<iframe/);
  });

  it("escapes what it shows", () => {
    const html = panelHtml({ ...base, state: { kind: "error", message: "<script>alert(1)</script>", detail: `"quoted" & 'single'` } });
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    assert.match(html, /&#34;quoted&#34; &#38; &#39;single&#39;/);
  });
});
