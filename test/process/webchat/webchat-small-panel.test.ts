// The chat page at the size of VS Code's default bottom panel (the chat's
// frame there is 932×232 on VS Code 1.99, 626×225 on 1.139, in a 1280×800
// window), in real Chromium against
// the real chat server: the tab strip shows no scroll arrows with one tab;
// History takes the whole view below the header, its entries in sight and no
// box of its own scrolling inside it; a card taller than the transcript opens
// showing its title, not its end; a new tab is named after its agent until its
// first message names it.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { OUT_DIR } from "../../support/processes.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };
/**
 * The chat's frame in code-server's default bottom panel of a 1280×800 window, as test/e2e/chat-small-panel.test.ts
 * measures it: VS Code 1.99 (the side bar open), and 1.139 (its own Chat in the secondary side bar too).
 */
const BOTTOM_PANELS = [
  { width: 932, height: 232 },
  { width: 626, height: 225 },
];
const BOTTOM_PANEL = BOTTOM_PANELS[0]!;
const FAILING = path.join(OUT_DIR, "test", "fixtures", "failing-start-agent.js");
/** `SYMPOSIUM_SCREENSHOTS=DIR` keeps pictures of what these tests check, light and dark, to look at. */
const SCREENSHOTS = process.env.SYMPOSIUM_SCREENSHOTS;

async function screenshots(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  for (const theme of ["light", "dark"]) {
    await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
    await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${theme}.png`) });
  }
}

/** Elements of `selector` that scroll (a scroll bar, or its arrows, on screen): their classes and overflow in px. */
function scrolling(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    (chosen) =>
      [...document.querySelectorAll<HTMLElement>(chosen)]
        .filter((element) => {
          const style = getComputedStyle(element);
          const scrolls = (overflow: string) => overflow === "auto" || overflow === "scroll";
          return (
            (scrolls(style.overflowY) && element.scrollHeight > element.clientHeight) || (scrolls(style.overflowX) && element.scrollWidth > element.clientWidth)
          );
        })
        .map((element) => `${element.className || element.id}: ${element.scrollWidth - element.clientWidth}×${element.scrollHeight - element.clientHeight}`),
    selector,
  );
}

describe("webchat: in the default bottom panel's size", { skip }, () => {
  const suite = chatSuite();

  for (const size of BOTTOM_PANELS) {
    it(`the tab strip has no scroll arrows with one tab; History fills the view with its entries in sight (${size.width}×${size.height})`, async () => {
      const server = await suite.serve();
      const page = await openChatPage(suite.browser, server, { conversation: "small-first" });
      await page.setViewportSize(size);
      assert.deepEqual(await scrolling(page, ".tab-strip, .tab-strip *"), [], "one tab: nothing in the strip overflows");

      // Three kept conversations (each is kept after its first answer), then History.
      for (const word of ["alpha", "beta", "gamma"]) {
        await typePrompt(page, word);
        await page.locator(".conversation:not([hidden]) .message.agent", { hasText: word }).waitFor(TIMEOUT);
        await page.click(".conversation:not([hidden]) #new-chat");
        await page.waitForSelector(".conversation:not([hidden])[data-state=ready]", TIMEOUT);
      }
      await page.click(".conversation:not([hidden]) #history-button");
      await page.waitForFunction(() => document.querySelectorAll("#history:not([hidden]) .history-entry").length === 3, undefined, TIMEOUT);
      const layout = await page.evaluate(() => {
        const history = document.querySelector<HTMLElement>(".conversation:not([hidden]) #history")!.getBoundingClientRect();
        const header = document.querySelector<HTMLElement>(".conversation:not([hidden]) header")!.getBoundingClientRect();
        const entries = [...document.querySelectorAll<HTMLElement>(".conversation:not([hidden]) .history-entry")].map((entry) => entry.getBoundingClientRect());
        return {
          top: history.top,
          bottom: history.bottom,
          headerBottom: header.bottom,
          entryBottoms: entries.map((entry) => entry.bottom),
          height: innerHeight,
        };
      });
      assert.ok(layout.top - layout.headerBottom < 12, `History starts right under the header (${layout.top} vs ${layout.headerBottom})`);
      assert.ok(layout.height - layout.bottom < 4, `History reaches the bottom of the view (${layout.bottom} of ${layout.height})`);
      assert.ok(
        layout.entryBottoms.every((bottom) => bottom <= layout.height),
        `every entry is in sight at once (${layout.entryBottoms.join(", ")} of ${layout.height})`,
      );
      assert.deepEqual(await scrolling(page, "#history *"), [], "no box inside History scrolls on its own");
      if (size === BOTTOM_PANEL) await screenshots(page, "webchat-history-small");

      // Closed: the conversation is back as it was.
      await page.click(".conversation:not([hidden]) .history-close");
      await page.waitForSelector(".conversation:not([hidden]) #transcript", { state: "visible", ...TIMEOUT });
      assert.equal(await page.locator(".conversation:not([hidden]) footer").isVisible(), true);
      await page.close();
    });
  }

  it("a sign-in card taller than the transcript opens showing its title", async () => {
    const server = await suite.serve({ command: quote([process.execPath, FAILING, "auth", "Locked Agent"]) });
    const page = await suite.browser.newPage();
    await page.setViewportSize(BOTTOM_PANEL);
    await page.goto(server.url.toString());
    await page.bringToFront(); // the page has the focus, as the chat has it in VS Code once clicked: the card's button takes it
    const title = page.locator(".signin .signin-title");
    await title.waitFor(TIMEOUT);
    const seen = await page.evaluate(() => {
      const transcript = document.querySelector<HTMLElement>(".conversation:not([hidden]) #transcript")!.getBoundingClientRect();
      const card = document.querySelector<HTMLElement>(".signin")!.getBoundingClientRect();
      const heading = document.querySelector<HTMLElement>(".signin .signin-title")!.getBoundingClientRect();
      return { transcriptTop: transcript.top, transcriptBottom: transcript.bottom, cardHeight: card.height, headingTop: heading.top };
    });
    assert.ok(seen.cardHeight > seen.transcriptBottom - seen.transcriptTop, `the card is taller than the transcript here (${JSON.stringify(seen)})`);
    assert.ok(seen.headingTop >= seen.transcriptTop && seen.headingTop < seen.transcriptBottom, `the card's title is in sight (${JSON.stringify(seen)})`);
    await page.close();
  });

  it("a new tab is named after its agent until its first message names it", async () => {
    const server = await suite.serve();
    const page = await openChatPage(suite.browser, server, { conversation: "named-first" });
    const label = page.locator(".tab-item.selected .tab-label");
    await page.waitForFunction(() => document.querySelector(".tab-item.selected .tab-label")?.textContent === "chat-agent", undefined, TIMEOUT);
    await page.keyboard.press("Alt+Shift+N");
    await page.waitForSelector(".conversation:not([hidden])[data-state=ready]", TIMEOUT);
    await page.waitForFunction(() => document.querySelector(".tab-item.selected .tab-label")?.textContent === "chat-agent", undefined, TIMEOUT);
    await page.locator(".conversation:not([hidden]) #input").fill("hello there");
    await page.locator(".conversation:not([hidden]) #input").press("Enter");
    await page.waitForFunction(() => document.querySelector(".tab-item.selected .tab-label")?.textContent === "hello there", undefined, TIMEOUT);
    assert.equal(await label.textContent(), "hello there");
    await page.close();
  });
});
