// The panel page (webview/page/, bundled into dist/webview/) in real Chromium:
// the kept copy of the conversation it shows at once after a window reload,
// the status it draws, and the messages it passes between the extension and
// the chat page.
// The panel page (webview/src/panel-html.ts, with its CSP) is served from one
// loopback origin, the chat from another, as in VS Code; VS Code's webview API
// is a stand-in that keeps the page's state, and a host page frames the panel
// page as VS Code's webview host does. The copy shows as text only, only
// the chat frame may replace it, and a chat that starts afresh forgets it.

import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { panelHtml } from "../../../webview/src/panel-html.js";
import type { PanelStatus } from "../../../webview/src/panel-messages.js";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { REPO_DIR } from "../../support/processes.js";

const skip = chromiumSkipReason();
const MEDIA = path.join(REPO_DIR, "dist", "webview");
/** A stand-in chat page: it records what the panel page posts to it. */
const CHAT_PAGE = `<!DOCTYPE html><p>the chat page</p><script>window.received = []; addEventListener("message", (event) => received.push(event.data));</script>`;
const RECONNECTING: PanelStatus = { kind: "starting", message: "Reconnecting to the chat…", keepChat: true };
const KEPT = [
  { role: "user", text: 'What does this line do? <img src="x" id="injected">' },
  { role: "agent", text: "It prints a greeting." },
];

interface Served {
  url: string;
  close(): Promise<void>;
}

function serve(handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

describe("the panel's kept copy of the conversation", { skip }, () => {
  let browser: Browser;
  let chat: Served;
  let panel: Served;
  /** What the next /panel.html shows. */
  let shown: { status: PanelStatus; chatUrl?: string } = { status: RECONNECTING };

  before(async () => {
    browser = await launchBrowser();
    chat = await serve((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(CHAT_PAGE));
    panel = await serve((req, res) => {
      if (req.url === "/host.html")
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            '<!DOCTYPE html><iframe id="panel" src="/panel.html" style="width: 800px; height: 600px"></iframe><iframe id="other" srcdoc="another frame"></iframe>',
          );
      const file = req.url === "/panel.js" || req.url === "/panel.css" ? req.url.slice(1) : undefined;
      if (file)
        return void res.writeHead(200, { "content-type": file.endsWith(".js") ? "text/javascript" : "text/css" }).end(fs.readFileSync(path.join(MEDIA, file)));
      const html = panelHtml({
        cspSource: panel.url,
        nonce: crypto.randomBytes(16).toString("base64"),
        styleUri: `${panel.url}/panel.css`,
        scriptUri: `${panel.url}/panel.js`,
        ...shown,
        seq: 1,
      });
      res.writeHead(200, { "content-type": "text/html" }).end(html);
    });
  });

  after(async () => {
    await browser?.close();
    await Promise.all([chat?.close(), panel?.close()]);
  });

  /** The panel page, framed by a stand-in for VS Code's webview host, with VS Code's webview API stood in for, its state starting as `state`. */
  async function openPanel(state: unknown): Promise<{ page: Page; panel: Frame }> {
    const page = await browser.newPage();
    await page.addInitScript((initial) => {
      const w = window as unknown as { keptState: unknown; toExtension: unknown[] };
      w.keptState = initial;
      w.toExtension = [];
      (window as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => ({
        postMessage: (message: unknown) => w.toExtension.push(message),
        getState: () => w.keptState,
        setState: (next: unknown) => (w.keptState = next),
      });
    }, state);
    await page.goto(`${panel.url}/host.html`);
    for (;;) {
      const frame = page.frames().find((each) => each.url().endsWith("/panel.html"));
      if (frame && (await frame.evaluate(() => document.readyState === "complete").catch(() => false))) return { page, panel: frame };
      await page.waitForTimeout(20);
    }
  }

  /** A status as the extension sends it: posted by the panel page's host (its parent), from the page's origin. */
  const fromHost = (page: Page, message: object) =>
    page.evaluate((data) => (document.getElementById("panel") as HTMLIFrameElement).contentWindow!.postMessage(data, location.origin), message);

  const keptText = (panel: Frame) =>
    panel.evaluate(() => (document.getElementById("kept")?.hidden === false ? document.getElementById("kept")!.innerText : ""));
  const state = (panel: Frame) => panel.evaluate(() => (window as unknown as { keptState: unknown }).keptState);

  async function chatFrame(page: Page, panel: Frame): Promise<Frame> {
    await panel.waitForFunction(() => document.querySelector("iframe#chat") !== null);
    for (;;) {
      const frame = page.frames().find((each) => each.url().startsWith(chat.url));
      if (frame && (await frame.evaluate(() => document.readyState === "complete").catch(() => false))) return frame;
      await page.waitForTimeout(20);
    }
  }

  it("shows the copy at once, as text, while the chat reconnects; a chat that starts afresh forgets it", async () => {
    shown = { status: RECONNECTING };
    const { page, panel } = await openPanel({ kept: KEPT });
    try {
      const text = await keptText(panel);
      assert.match(text, /What does this line do\? <img src="x" id="injected">\s+It prints a greeting\./);
      assert.equal(await panel.locator("#injected").count(), 0, "the copy is text, never markup");
      assert.match(await panel.locator("#message").innerText(), /Reconnecting to the chat/);
      // The remembered host was gone: a new chat starts, a new conversation.
      await fromHost(page, { type: "status", status: { kind: "starting", message: "Starting the chat…" }, seq: 2 });
      await panel.waitForFunction(() => document.getElementById("kept")?.hidden === true);
      assert.deepEqual(await state(panel), { kept: [] });
    } finally {
      await page.close();
    }
  });

  it("keeps it over the loading chat until the chat frame sends its own copy, which is bounded and replaces it", async () => {
    shown = { status: { kind: "ready" }, chatUrl: `${chat.url}/?token=t` };
    const { page, panel } = await openPanel({ kept: KEPT });
    try {
      assert.match(await keptText(panel), /It prints a greeting/);
      const frame = await chatFrame(page, panel);
      // Anyone but the chat frame (here the panel's own window) may not set the copy.
      await panel.evaluate(() => window.postMessage({ type: "symposium/transcript", entries: [{ role: "user", text: "forged" }] }, "*"));
      await page.waitForTimeout(200);
      assert.match(await keptText(panel), /It prints a greeting/, "still the kept copy");
      assert.doesNotMatch(JSON.stringify(await state(panel)), /forged/);
      await frame.evaluate(() => {
        const entries: unknown[] = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? "agent" : "user", text: `entry ${i}` }));
        entries.push({ role: "system", text: "an unknown role" }, { role: "agent", text: "x".repeat(10_000) }, "not an entry");
        window.parent.postMessage({ type: "symposium/transcript", entries }, "*");
      });
      await panel.waitForFunction(() => document.getElementById("kept")?.hidden === true);
      const saved = (await state(panel)) as { kept: Array<{ role: string; text: string }> };
      assert.ok(saved.kept.length <= 60, `at most 60 entries (${saved.kept.length})`);
      assert.equal(saved.kept.at(-1)!.text.length, 4000, "each entry cut to 4,000 characters");
      assert.ok(
        saved.kept.every((entry) => ["user", "agent", "other"].includes(entry.role)),
        "known roles only",
      );
      assert.equal(await panel.locator("#chat:not([hidden])").count(), 1, "the chat shows");
    } finally {
      await page.close();
    }
  });

  it("takes the extension's messages only from its host: not from itself, another frame, or the chat frame", async () => {
    shown = { status: { kind: "ready" }, chatUrl: `${chat.url}/?token=t` };
    const { page, panel } = await openPanel({ kept: [] });
    try {
      const frame = await chatFrame(page, panel);
      await panel.waitForFunction(() => document.getElementById("status")?.hidden === true); // the chat's page loaded
      const forged = { type: "status", status: { kind: "error", message: "FORGED" }, seq: 99 };
      await panel.evaluate((data) => window.postMessage(data, "*"), forged);
      const other = page.frames().find((each) => each.url() === "about:srcdoc")!;
      await other.evaluate((data) => window.top!.frames[0]!.postMessage(data, "*"), forged);
      await frame.evaluate((data) => window.parent.postMessage(data, "*"), forged);
      await page.waitForTimeout(300);
      assert.equal(await panel.locator("#status").isHidden(), true, "no forged status shown (from itself, a sibling frame, the chat frame)");
      await fromHost(page, { type: "status", status: { kind: "error", message: "from the host" }, seq: 101 });
      await panel.locator("#message", { hasText: "from the host" }).waitFor({ timeout: 5_000 });
    } finally {
      await page.close();
    }
  });

  /** What the page shows of its status: the line, the detail, the button (when shown), the state, and whether the chat is on screen. */
  const drawn = (panel: Frame) =>
    panel.evaluate(() => {
      const shown = (id: string) => (document.getElementById(id)!.hidden ? null : document.getElementById(id)!.textContent);
      const status = document.getElementById("status")!;
      const chat = document.getElementById("chat");
      return {
        line: shown("message"),
        detail: shown("detail"),
        button: shown("retry"),
        state: status.dataset.state,
        overChat: status.classList.contains("over-chat"),
        chat: chat ? !chat.hidden : null,
        error: document.getElementById("message")!.className === "error",
      };
    });

  it("draws the status in one place: the first render's and each one the extension sends, as text", async () => {
    shown = { status: { kind: "error", message: "<b>It broke</b>", detail: "last line", retry: true }, chatUrl: `${chat.url}/?token=t` };
    const { page, panel } = await openPanel({ kept: [] });
    try {
      assert.deepEqual(await drawn(panel), {
        line: "<b>It broke</b>",
        detail: "last line",
        button: "Retry",
        state: "error",
        overChat: false,
        chat: false,
        error: true,
      });
      assert.equal(await panel.locator("b").count(), 0, "the message is text, never markup");
      await chatFrame(page, panel);
      // A restart keeps the chat on screen, under its message.
      await fromHost(page, { type: "status", status: { kind: "starting", message: "Restarting the chat…", keepChat: true }, seq: 2 });
      await panel.locator("#message", { hasText: "Restarting" }).waitFor({ timeout: 5_000 });
      assert.deepEqual(await drawn(panel), {
        line: "Restarting the chat…",
        detail: null,
        button: null,
        state: "starting",
        overChat: true,
        chat: true,
        error: false,
      });
      // A status older than the one shown is ignored.
      await fromHost(page, { type: "status", status: { kind: "error", message: "stale" }, seq: 1 });
      await fromHost(page, { type: "status", status: { kind: "ready", notice: "The chat restarted: this is a new conversation." }, seq: 3 });
      await panel.locator("#message", { hasText: "new conversation" }).waitFor({ timeout: 5_000 });
      assert.deepEqual(await drawn(panel), {
        line: "The chat restarted: this is a new conversation.",
        detail: null,
        button: null,
        state: "ready",
        overChat: true,
        chat: true,
        error: false,
      });
      await fromHost(page, { type: "status", status: { kind: "stopped", message: "The chat is stopped." }, seq: 4 });
      await panel.locator("#retry", { hasText: "Start" }).waitFor({ timeout: 5_000 });
      assert.deepEqual(await drawn(panel), {
        line: "The chat is stopped.",
        detail: null,
        button: "Start",
        state: "stopped",
        overChat: false,
        chat: false,
        error: false,
      });
      await panel.locator("#retry").click();
      // First the page said which render it shows (the HTML's status number), then the button's retry.
      assert.deepEqual(await panel.evaluate(() => (window as unknown as { toExtension: unknown[] }).toExtension), [
        { type: "rendered", seq: 1 },
        { type: "retry" },
      ]);
    } finally {
      await page.close();
    }
  });

  it("passes the chat page's requests on rebuilt, and the extension's mention, theme and edit result to the chat as fields", async () => {
    shown = { status: { kind: "ready" }, chatUrl: `${chat.url}/?token=t` };
    const { page, panel } = await openPanel({ kept: [] });
    try {
      const frame = await chatFrame(page, panel);
      await frame.evaluate(() => {
        const post = (message: unknown) => window.parent.postMessage(message, "*");
        post({ type: "symposium/request", request: { kind: "openFile", path: "/w/a b.rs", line: 2, command: "workbench.action.terminal.new" } });
        post({ type: "symposium/request", request: { kind: "openUrl", url: "https://example.com/sign-in" } });
        post({ type: "symposium/request", request: { kind: "chord", chord: "ctrl+w" } }); // not in the table: dropped
        post({ type: "symposium/conversation", conversation: "../x" }); // not a conversation id: dropped
        post({ type: "symposium/conversation", conversation: "c2" });
      });
      const sent = () => panel.evaluate(() => (window as unknown as { toExtension: unknown[] }).toExtension);
      await panel.waitForFunction(() => (window as unknown as { toExtension: unknown[] }).toExtension.length >= 4);
      assert.deepEqual(await sent(), [
        { type: "rendered", seq: 1 },
        { type: "request", request: { kind: "openFile", path: "/w/a b.rs", line: 2 } },
        { type: "request", request: { kind: "openUrl", url: "https://example.com/sign-in" } },
        { type: "conversation", conversation: "c2" },
      ]);
      await fromHost(page, { type: "mention", path: "docs/my notes.md", startLine: 2, endLine: 3, text: "@docs/my" });
      await fromHost(page, { type: "mention", path: "docs/x.md", startLine: 3, endLine: 2 }); // an empty range: dropped
      await fromHost(page, { type: "theme", theme: "dark" });
      await fromHost(page, { type: "editResult", id: "e1", result: "applied" });
      const received = () =>
        frame.evaluate(() =>
          (window as unknown as { received: Array<{ type: string }> }).received.filter((each) => !["symposium/chords", "symposium/focus"].includes(each.type)),
        );
      await frame.waitForFunction(() =>
        (window as unknown as { received: Array<{ type: string }> }).received.some((each) => each.type === "symposium/editResult"),
      );
      assert.deepEqual(await received(), [
        { type: "symposium/mention", path: "docs/my notes.md", startLine: 2, endLine: 3 },
        { type: "symposium/theme", theme: "dark" },
        { type: "symposium/editResult", id: "e1", result: "applied" },
      ]);
    } finally {
      await page.close();
    }
  });
});
