// The walkthrough view's page (webchat/page/walkthrough.ts, bundled into
// dist/walkthrough/) in real Chromium, under the HTML and CSP the extension
// gives it (webview/src/walkthrough-html.ts), with VS Code's webview API
// stood in for: the Markdown rendered, a script in it never run, a remote
// image never requested, a mermaid diagram drawn as SVG, and each link and
// button posting the request VS Code acts on (a link of any other kind refused);
// the next walkthrough drawn in the same page from a message, and mermaid's
// script loaded only when a walkthrough has a diagram.

import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { walkthroughHtml } from "../../../webview/src/walkthrough-html.js";
import type { PageWalkthrough, WalkthroughRequest } from "../../../webview/src/walkthrough-messages.js";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { REPO_DIR } from "../../support/processes.js";

const skip = chromiumSkipReason();
const MEDIA = path.join(REPO_DIR, "dist", "walkthrough");

interface Served {
  url: string;
  requested: string[];
  close(): Promise<void>;
}

function serve(handler: (url: string, res: http.ServerResponse) => void): Promise<Served> {
  const requested: string[] = [];
  const server = http.createServer((req, res) => {
    requested.push(req.url ?? "");
    handler(req.url ?? "", res);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requested,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

function walkthroughOf(remote: string, images: string): PageWalkthrough {
  return {
    id: "w1",
    title: "The parser",
    agent: "Test agent",
    imageBase: images,
    blocks: [
      {
        kind: "markdown",
        text: [
          "# The parser",
          "",
          "See [the entry point](src/main.ts:3) and [lines 4 to 9](src/a%20b.ts:4-9), or [the docs](https://example.com/docs).",
          "",
          "A [bad link](javascript:window.pwned=1) and [a data link](data:text/html,hi).",
          "",
          '<script>window.pwned = "script"</script><img src="x" onerror="window.pwned = \'onerror\'">',
          "",
          `![remote](${remote}/remote.png) and ![local](docs/diagram.png) and ![escape](../../outside.png)`,
          "",
          "| a | b |",
          "|---|---|",
          "| 1 | 2 |",
        ].join("\n"),
      },
      { kind: "mermaid", text: "flowchart LR\n  parse[Parse] --> resolve[Resolve] --> show[Show]\n  click parse call alert(1)" },
      { kind: "comment", index: 0, location: "src/main.ts:3", text: "Here **it** starts.", places: [{ path: "src/main.ts", startLine: 3, endLine: 3 }] },
      {
        kind: "comment",
        index: 1,
        location: "symbol:parse",
        text: "Two of them.",
        places: [
          { path: "a.ts", startLine: 1, endLine: 1 },
          { path: "b.ts", startLine: 2, endLine: 2 },
        ],
      },
      { kind: "comment", index: 2, location: "search:src/a.ts:nowhere", text: "Lost.", places: [], problem: "no line of src/a.ts contains nowhere" },
      { kind: "action", index: 0, button: "Run the tests" },
      { kind: "gitdiff", index: 0, written: "HEAD~1..HEAD" },
    ],
  };
}

/** A walkthrough without a diagram. */
const PLAIN: PageWalkthrough = {
  id: "w2",
  title: "No diagram",
  agent: "Test agent",
  imageBase: null,
  blocks: [{ kind: "markdown", text: "# No diagram\n\nJust words." }],
};

describe("the walkthrough view's page in Chromium", { skip }, () => {
  let browser: Browser;
  let view: Served;
  let remote: Served;
  let page: Page;
  const posted = (): Promise<WalkthroughRequest[]> => page.evaluate(() => (window as unknown as { toExtension: WalkthroughRequest[] }).toExtension);

  before(async () => {
    browser = await launchBrowser();
    remote = await serve((_url, res) => res.writeHead(200, { "content-type": "image/png" }).end());
    view = await serve((url, res) => {
      if (url === "/walkthrough.js" || url === "/walkthrough.css" || url === "/walkthrough-mermaid.js")
        return void res.writeHead(200, { "content-type": url.endsWith(".js") ? "text/javascript" : "text/css" }).end(fs.readFileSync(path.join(MEDIA, url)));
      if (url.startsWith("/workspace/")) return void res.writeHead(404).end();
      const html = walkthroughHtml({
        cspSource: view.url,
        nonce: crypto.randomBytes(16).toString("base64"),
        styleUri: `${view.url}/walkthrough.css`,
        scriptUri: `${view.url}/walkthrough.js`,
        mermaidUri: `${view.url}/walkthrough-mermaid.js`,
        walkthrough: url === "/plain.html" ? PLAIN : walkthroughOf(remote.url, `${view.url}/workspace`),
      });
      res.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    page = await browser.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { toExtension: unknown[]; acquireVsCodeApi: () => unknown };
      w.toExtension = [];
      w.acquireVsCodeApi = () => ({ postMessage: (message: unknown) => w.toExtension.push(message), getState: () => undefined, setState: () => {} });
    });
    await page.goto(`${view.url}/walkthrough.html`);
    await page.waitForFunction(() => (window as unknown as { toExtension: Array<{ type: string }> }).toExtension.some((message) => message.type === "painted"));
  });

  after(async () => {
    await browser?.close();
    await Promise.all([view?.close(), remote?.close()]);
  });

  it("renders the Markdown and says when it has painted, every diagram drawn", async () => {
    assert.equal(await page.locator("h1").innerText(), "The parser");
    assert.equal(await page.locator("table td").first().innerText(), "1");
    assert.match(await page.locator(".byline").innerText(), /A walkthrough by Test agent/);
    assert.deepEqual(
      { ...(await posted()).find((message) => message.type === "painted"), drawMs: 0 },
      { type: "painted", id: "w1", failedDiagrams: 0, drawMs: 0 },
    );
  });

  it("draws the mermaid diagram as SVG, offline, with no click handler", async () => {
    const labels = await page.locator("figure.diagram svg").innerHTML();
    for (const label of ["Parse", "Resolve", "Show"]) assert.ok(labels.includes(label), `the diagram shows ${label}`);
    assert.equal(await page.locator("figure.diagram svg [onclick]").count(), 0);
    assert.equal(await page.locator("figure.diagram .diagram-source").isVisible(), false, "the source hides once drawn");
  });

  it("runs no script from the Markdown and loads no remote image; an image inside the base folder loads from there", async () => {
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned), undefined);
    assert.equal(await page.locator("script:not([src])").count(), 0);
    assert.deepEqual(remote.requested, [], "the remote image was never requested");
    const images = await page.locator("img").evaluateAll((all) => all.map((image) => image.getAttribute("src")));
    // `x` is a relative path too: it loads from the base folder, its onerror gone.
    assert.deepEqual(images, [`${view.url}/workspace/x`, `${view.url}/workspace/docs/diagram.png`]);
    assert.equal(await page.locator(".refused-image").count(), 2, "the remote and the escaping image are text");
  });

  it("a path:line link asks VS Code to reveal the code; http(s) to open it; any other link is refused", async () => {
    await page.getByText("the entry point").click();
    await page.getByText("lines 4 to 9").click();
    await page.getByText("the docs").click();
    assert.equal(await page.locator(".refused-link").count(), 2);
    await page.getByText("bad link").click();
    assert.deepEqual(
      (await posted()).filter((message) => message.type !== "painted"),
      [
        { type: "openLocation", path: "src/main.ts", startLine: 3, endLine: 3 },
        { type: "openLocation", path: "src/a b.ts", startLine: 4, endLine: 9 },
        { type: "openUrl", url: "https://example.com/docs" },
      ],
    );
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned), undefined);
  });

  it("comments show their place, their places or why none; comments, actions and diffs post their index", async () => {
    assert.match(await page.locator(".comment").nth(1).innerText(), /symbol:parse: 2 places — pick one/);
    assert.match(await page.locator(".comment").nth(2).innerText(), /search:src\/a\.ts:nowhere: not found — no line of src\/a\.ts contains nowhere/);
    await page.evaluate(() => ((window as unknown as { toExtension: unknown[] }).toExtension.length = 0));
    await page.locator(".comment a.location").first().click();
    await page.getByText("Run the tests").click();
    await page.getByText("Open diff: HEAD~1..HEAD").click();
    assert.deepEqual(await posted(), [
      { type: "openComment", index: 0 },
      { type: "action", index: 0 },
      { type: "gitdiff", index: 0 },
    ]);
  });

  it("loads mermaid's script only for a diagram: the page's own script is small, a walkthrough without one never asks for it", async () => {
    const pageBytes = fs.statSync(path.join(MEDIA, "walkthrough.js")).size;
    assert.ok(pageBytes < 512 * 1024, `the page's script is ${pageBytes} bytes: mermaid is not in it`);
    const plain = await browser.newPage();
    const before = view.requested.length;
    await plain.addInitScript(() => {
      const w = window as unknown as { toExtension: unknown[]; acquireVsCodeApi: () => unknown };
      w.toExtension = [];
      w.acquireVsCodeApi = () => ({ postMessage: (message: unknown) => w.toExtension.push(message) });
    });
    await plain.goto(`${view.url}/plain.html`);
    await plain.waitForFunction(() =>
      (window as unknown as { toExtension: Array<{ type: string }> }).toExtension.some((message) => message.type === "painted"),
    );
    assert.equal(await plain.locator("h1").innerText(), "No diagram");
    assert.ok(view.requested.slice(before).includes("/walkthrough.js"), "the page's own script loaded");
    assert.ok(!view.requested.slice(before).includes("/walkthrough-mermaid.js"), "mermaid's script never requested");
    await plain.close();
  });

  it("draws the next walkthrough VS Code sends in the same page, and says when it has painted", async () => {
    await page.evaluate(() => ((window as unknown as { toExtension: unknown[] }).toExtension.length = 0));
    const next: PageWalkthrough = {
      ...PLAIN,
      id: "w3",
      title: "Next",
      blocks: [
        { kind: "markdown", text: "# Next" },
        { kind: "mermaid", text: "flowchart LR\n  one --> two" },
      ],
    };
    await page.evaluate((walkthrough) => window.postMessage({ type: "show", walkthrough }, "*"), next);
    await page.waitForFunction(() => (window as unknown as { toExtension: Array<{ type: string }> }).toExtension.some((message) => message.type === "painted"));
    assert.deepEqual(
      (await posted()).map((message) => ({ ...message, drawMs: 0 })),
      [{ type: "painted", id: "w3", failedDiagrams: 0, drawMs: 0 }],
    );
    assert.equal(await page.locator("h1").innerText(), "Next");
    assert.equal(await page.locator(".comment").count(), 0, "the last walkthrough's comments are gone");
    assert.equal(await page.locator("figure.diagram svg").count(), 1);
    assert.equal(view.requested.filter((url) => url === "/walkthrough-mermaid.js").length, 1, "mermaid's script loaded once");
  });
});
