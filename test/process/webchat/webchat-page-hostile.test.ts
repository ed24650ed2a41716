// The chat page against an agent whose output attacks it, in
// real Chromium against the real server: links cannot navigate the
// chat's frame, agent HTML cannot take the page's look, bidirectional controls
// show in what asks for a decision, and hostile Markdown renders each message
// on its own, within its caps, while the rest of its batch still applies.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { hostilePayloads } from "../../fixtures/hostile-markdown.js";
import { OUT_DIR } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";
import { loadChat, typePrompt } from "../../support/chat-browser.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };
const HOSTILE_AGENT = path.join(OUT_DIR, "test", "fixtures", "hostile-agent.js");
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** How each payload shows: as plain text (and why), or as Markdown with its emphasis markers kept as written. */
const SHOWN_AS: Record<string, "too-deep" | "too-long" | "as written"> = {
  blockquote: "too-deep",
  indentedList: "too-long",
  dashList: "too-deep",
  emphasis: "as written",
  underscores: "as written",
  html: "too-long",
  table: "too-long",
  long: "too-long",
  openers: "as written",
  paragraphs: "as written",
};

interface Opened {
  page: Page;
  /** Text of every websocket frame the page received. */
  frames: string[];
}

describe("webchat page against a hostile agent", { skip }, () => {
  let browser: Browser;
  let server: ChatServer;
  before(async () => {
    [browser, server] = await Promise.all([launchBrowser(), startChatServer({ command: quote([process.execPath, HOSTILE_AGENT]) })]);
  });
  after(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  async function openChat(): Promise<Opened> {
    const page = await browser.newPage();
    const frames: string[] = [];
    page.on("websocket", (socket) => socket.on("framereceived", (frame) => frames.push(String(frame.payload))));
    // Times the page's whole handling of each frame (parse, render, DOM), layout excluded.
    await page.addInitScript(() => {
      const handled: number[] = ((window as unknown as { handled: number[] }).handled = []);
      // WebSocket inherits addEventListener from EventTarget, which this leaves as it is.
      WebSocket.prototype.addEventListener = function (
        this: WebSocket,
        type: string,
        listener: EventListenerOrEventListenerObject,
        options?: boolean | AddEventListenerOptions,
      ) {
        if (type !== "message" || typeof listener !== "function") return EventTarget.prototype.addEventListener.call(this, type, listener, options);
        return EventTarget.prototype.addEventListener.call(
          this,
          type,
          function (this: WebSocket, event: Event) {
            const started = performance.now();
            try {
              listener.call(this, event);
            } finally {
              handled.push(performance.now() - started);
            }
          },
          options,
        );
      } as typeof WebSocket.prototype.addEventListener;
    });
    await loadChat(page, server, {}, TIMEOUT.timeout);
    return { page, frames };
  }

  const ask = typePrompt;

  it("opens every link the agent writes outside the frame, or not at all (SVG href and xlink:href included)", async () => {
    const { page } = await openChat();
    const navigations: string[] = [];
    // A navigation's request leaves as its click is handled, before anything a later click sets off.
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations.push(request.url());
    });
    await ask(page, "links");
    await page.waitForSelector(".message.agent svg", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    const links = await page.evaluate(() =>
      [...document.querySelectorAll(".message.agent *")]
        .filter((element) => [...element.attributes].some((attribute) => attribute.localName === "href"))
        .map((element) => ({
          tag: `${element.namespaceURI === "http://www.w3.org/1999/xhtml" ? "html" : "foreign"}:${element.localName}`,
          target: element.getAttribute("target"),
          rel: (element.getAttribute("rel") ?? "").split(/\s+/).sort().join(" "),
        })),
    );
    const leaving = links.filter(
      (link) => !(link.tag === "html:a" || link.tag === "html:area") || link.target !== "_blank" || link.rel !== "noopener noreferrer",
    );
    assert.deepEqual(leaving, [], `links that could navigate the chat's frame: ${JSON.stringify(links)}`);
    assert.ok(
      links.some((link) => link.tag === "html:a"),
      "the Markdown and HTML links stay links",
    );
    // Clicking the SVG links leaves the chat where it is: a Markdown link clicked after them opens
    // a new window, not in the frame, and by then no navigation of the frame was asked for.
    for (const label of ["svg href", "svg xlink"]) await page.locator(".message.agent svg text", { hasText: label }).click();
    const popup = page.waitForEvent("popup", TIMEOUT);
    await page.locator(".message.agent a", { hasText: "markdown link" }).click();
    await (await popup).close();
    assert.deepEqual(navigations, [], "the chat's frame did not navigate");
    assert.equal(await page.locator("#transcript").count(), 1);
    await page.close();
  });

  it("strips class, id, style and data attributes from agent HTML: no fake user bubble or permission card", async () => {
    const { page } = await openChat();
    await ask(page, "disguise");
    await page.waitForFunction(() => (document.querySelector(".message.agent")?.textContent ?? "").includes("Here is the answer"), undefined, TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    const styled = await page.evaluate(() =>
      [...document.querySelectorAll(".message.agent .body > .part *, .message.agent .body > .live *")]
        .filter((element) => [...element.attributes].some((attribute) => /^(class|id|style|data-.*)$/.test(attribute.name)))
        .map((element) => element.outerHTML.slice(0, 120)),
    );
    assert.deepEqual(styled, [], "agent elements with the page's own hooks");
    assert.equal(await page.locator(".message.user").count(), 1, "only the user's own prompt is a user bubble");
    assert.equal(await page.locator(".permission, .permission-title, .permission-option").count(), 0, "no permission card");
    assert.equal(await page.locator("[id=send]").count(), 1);
    assert.equal(await page.evaluate(() => document.getElementById("send")?.tagName), "BUTTON");
    await page.close();
  });

  it("shows bidirectional control characters escaped in permission titles and options, tool titles and diff paths", async () => {
    const { page } = await openChat();
    await ask(page, "bidi");
    await page.waitForSelector(".permission button", TIMEOUT);
    const shown = await page.evaluate(() => {
      const read = (selector: string) => {
        const element = document.querySelector<HTMLElement>(selector)!;
        const escape = [...element.querySelectorAll<HTMLElement>("*")].find((child) => /<U\+202E>|<U\+2066>/.test(child.textContent ?? ""));
        return { text: element.textContent ?? "", distinct: escape !== undefined && getComputedStyle(escape).color !== getComputedStyle(element).color };
      };
      return {
        permission: read(".permission-title"),
        option: read(".permission button"),
        tool: read(".tool-title"),
        diff: read(".diff-file"),
        added: read(".diff-line.added"),
      };
    });
    for (const [where, { text, distinct }] of Object.entries(shown)) {
      assert.doesNotMatch(text, BIDI, `${where}: no raw bidirectional control in ${JSON.stringify(text)}`);
      assert.ok(distinct, `${where}: the escape has its own style`);
    }
    assert.equal(shown.permission.text, "Write src/<U+202E>gnp.exe");
    assert.equal(shown.option.text, "Allow <U+202E>ecno");
    assert.equal(shown.tool.text, "Read <U+2066>notes<U+2069> <U+200F><U+061C><U+200E> done");
    assert.equal(shown.diff.text, "src/<U+202E>gnp.exe");
    assert.equal(shown.added.text, "+ b<U+202E>");
    await page.click(".permission button[data-option-id=reject]");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("bidi outcome: selected reject"), undefined, TIMEOUT);
    await page.close();
  });

  it("renders each hostile Markdown message on its own, within its caps, and the rest of its batch", async () => {
    const { page, frames } = await openChat();
    await page.evaluate(() => {
      const state = window as unknown as { renders: number[]; longTasks: number[] };
      state.renders = [];
      state.longTasks = [];
      document
        .getElementById("transcript")!
        .addEventListener("rendered", (event) => state.renders.push((event as CustomEvent<{ renderMs: number }>).detail.renderMs));
      new PerformanceObserver((list) => state.longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({ type: "longtask" });
    });
    const figures: string[] = [];
    assert.deepEqual(Object.keys(SHOWN_AS).sort(), Object.keys(hostilePayloads()).sort());
    for (const [name, shownAs] of Object.entries(SHOWN_AS)) {
      await page.evaluate(() => {
        const state = window as unknown as { renders: number[]; longTasks: number[]; handled: number[] };
        state.renders.length = 0;
        state.longTasks.length = 0;
        state.handled.length = 0;
      });
      const framesBefore = frames.length;
      const agentMessages = await page.locator(".message.agent").count();
      await ask(page, `deep ${name}`);
      // The message after the hostile one, sent with it, renders; the turn ends and Send is back.
      await page.waitForFunction((label) => [...document.querySelectorAll(".message.agent strong")].some((strong) => strong.textContent === label), name, {
        timeout: 60_000,
      });
      await page.waitForSelector("body[data-state=ready]", TIMEOUT);
      assert.equal(await page.locator("#send").isDisabled(), false, `${name}: Send is enabled again`);
      assert.match(await page.locator("#status").innerText(), /Ready/);
      assert.equal(await page.locator(`.tool-call[data-tool-call-id="after-${name}"]`).count(), 1, `${name}: the tool call after it renders`);
      // The hostile message itself shows: as capped Markdown or as plain text.
      const hostile = page.locator(".message.agent").nth(agentMessages);
      const reasons = await hostile.locator(".plain-text").evaluateAll((blocks) => [...new Set(blocks.map((block) => (block as HTMLElement).dataset.reason))]);
      assert.deepEqual(reasons, shownAs === "as written" ? [] : [shownAs], `${name}: shown ${shownAs}`);
      if (shownAs === "as written") assert.match((await hostile.textContent()) ?? "", /\*a \*a|_a _a/, `${name}: the markers show as written`);
      else assert.ok(((await hostile.locator(".plain-body").textContent()) ?? "").length > 1000, `${name}: the text shows`);
      if (name === "blockquote") {
        const batch = frames
          .slice(framesBefore)
          .find((frame) => frame.startsWith('{"type":"batch"') && frame.includes(">>>>>") && frame.includes("after **blockquote**"));
        assert.ok(
          batch,
          `the hostile message and the next one came in one batch: ${frames
            .slice(framesBefore)
            .map((frame) => frame.slice(0, 150))
            .join("\n")}`,
        );
      }
      const { renders, longTasks, handled } = await page.evaluate(() => {
        const state = window as unknown as { renders: number[]; longTasks: number[]; handled: number[] };
        return { renders: state.renders, longTasks: state.longTasks, handled: state.handled };
      });
      const longest = Math.max(0, ...renders);
      const size = (hostilePayloads()[name]!.length / 1024).toFixed(0);
      figures.push(
        `${name} (${size} KiB): render ${longest.toFixed(1)} ms, frame handled ${Math.max(0, ...handled).toFixed(1)} ms, longest task ${Math.max(0, ...longTasks).toFixed(0)} ms`,
      );
    }
    process.stderr.write(`hostile Markdown render times:\n  ${figures.join("\n  ")}\n`);
    await page.close();
  });
});
