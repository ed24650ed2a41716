// Tabs in the chat page, in real Chromium against the real chat server and
// the chat fixture agent (test/fixtures/chat-agent.ts): each tab its own
// conversation and agent process; switching keeps each one's transcript,
// draft, queue and a permission waiting; a tab closes with a button or a key,
// after asking while its agent answers, and its agent ends; more tabs than
// the server's limit are refused with a message, nothing lost.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { eventually, tempDir } from "../../support/processes.js";
import { allGone } from "../../support/webchat-server.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

/** The tab on screen's conversation. */
const shown = (page: Page): Locator => page.locator(".conversation:not([hidden])");
const tabs = (page: Page): Locator => page.locator(".tab-strip [role=tab]");

async function typeInTab(page: Page, text: string): Promise<void> {
  await shown(page).locator("#input").fill(text);
  await shown(page).locator("#input").press("Enter");
}

/** Waits until the tab on screen is in `state` (its section says it; the body follows the tab on screen). */
async function tabState(page: Page, state: string): Promise<void> {
  await page.waitForSelector(`.conversation:not([hidden])[data-state=${state}]`, TIMEOUT);
  assert.equal(await page.evaluate(() => document.body.dataset.state), state);
}

describe("webchat: tabs", { skip }, () => {
  const suite = chatSuite();

  it("each tab its own agent; switching keeps transcript, draft, queue and a waiting permission; closing asks while the agent answers", async () => {
    const server = await suite.serve();
    const page = await openChatPage(suite.browser, server, { conversation: "tabs-first" });
    await page.setViewportSize({ width: 900, height: 560 });
    await typeInTab(page, "hello");
    await shown(page).locator(".message.agent", { hasText: "hello" }).waitFor(TIMEOUT);
    await typeInTab(page, "permission");
    await shown(page).locator(".permission button").first().waitFor(TIMEOUT);
    await shown(page).locator("#input").fill("draft of the first");

    await page.keyboard.press("Alt+Shift+N");
    assert.equal(await tabs(page).count(), 2);
    await tabState(page, "ready");
    assert.equal(await shown(page).locator(".message").count(), 0, "a new tab starts an empty conversation");
    await eventually(() => server.agentPids().length === 2, 10_000, "a second agent process for the second tab");
    await typeInTab(page, "forever");
    await tabState(page, "prompting");
    await typeInTab(page, "queued in the second");
    await shown(page).locator("#input").fill("draft of the second");
    await page.locator(".tab-item.selected .tab.busy").waitFor(TIMEOUT);

    await tabs(page).first().click();
    await tabState(page, "prompting"); // the first tab's turn waits on its permission
    assert.equal(await shown(page).locator("#input").inputValue(), "draft of the first");
    assert.equal(await shown(page).locator(".permission button").first().isVisible(), true, "the permission still waits for an answer");
    assert.deepEqual(await shown(page).locator(".message.user").allInnerTexts(), ["hello", "permission"]);
    assert.equal(await tabs(page).first().getAttribute("class"), "tab waiting", "the strip marks the tab that waits for an answer");
    assert.equal(await tabs(page).first().getAttribute("aria-selected"), "true");
    const dir = SCREENSHOTS ?? tempDir("webchat-shots-");
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      await page.screenshot({ path: path.join(dir, `chat-tabs-${theme}.png`) });
    }
    await shown(page).locator(".permission button").first().click();
    await shown(page).locator(".message.agent", { hasText: "permission outcome: selected" }).waitFor(TIMEOUT);

    await page.keyboard.press("Alt+Shift+PageDown");
    assert.equal(await tabs(page).nth(1).getAttribute("aria-selected"), "true");
    assert.equal(await shown(page).locator("#input").inputValue(), "draft of the second");
    assert.deepEqual(
      await shown(page)
        .locator("#message-queue .queued-text")
        .evaluateAll((items) => items.map((item) => (item as HTMLTextAreaElement).value)),
      ["queued in the second"],
    );

    // Closing the answering tab asks first; Escape keeps it (and its turn), the button closes it.
    await tabs(page).nth(1).click();
    const [, secondAgent] = server.agentPids();
    await page.keyboard.press("Alt+Shift+W");
    await page.locator("#tab-notice", { hasText: "The agent is answering" }).waitFor(TIMEOUT);
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#tab-notice").isHidden(), true);
    assert.equal(await tabs(page).count(), 2);
    await tabState(page, "prompting"); // Escape answered the question: the turn goes on
    await page.locator(".tab-item.selected .tab-close").click();
    await page.locator(".tab-confirm-close").click();
    assert.equal(await tabs(page).count(), 1);
    assert.equal(await tabs(page).first().getAttribute("aria-selected"), "true");
    assert.equal(await shown(page).locator("#input").inputValue(), "draft of the first");
    await allGone([secondAgent!], 10_000);
    await page.close();
  });

  it("a reload brings back the named tabs, their conversations and their text, on the tab that was shown", async () => {
    const server = await suite.serve();
    const page = await openChatPage(suite.browser, server, { conversation: "tabs-reload" });
    await typeInTab(page, "in the first");
    await shown(page).locator(".message.agent", { hasText: "in the first" }).waitFor(TIMEOUT);
    await page.keyboard.press("Alt+Shift+N");
    await tabState(page, "ready");
    await typeInTab(page, "in the second");
    await shown(page).locator(".message.agent", { hasText: "in the second" }).waitFor(TIMEOUT);
    await shown(page).locator("#input").fill("unsent in the second");
    const agents = server.agentPids().length;
    await page.reload();
    await tabState(page, "ready");
    assert.equal(await tabs(page).count(), 2);
    assert.equal(await tabs(page).nth(1).getAttribute("aria-selected"), "true");
    assert.equal(await shown(page).locator("#input").inputValue(), "unsent in the second");
    assert.deepEqual(await shown(page).locator(".message.user").allInnerTexts(), ["in the second"]);
    await page.keyboard.press("Alt+Shift+PageUp");
    await shown(page).locator(".message.user", { hasText: "in the first" }).waitFor(TIMEOUT);
    assert.equal(server.agentPids().length, agents, "the same conversations, attached again: no new agent");
    await page.close();
  });

  it("more tabs than the server's limit: the new-tab button says why, nothing lost", async () => {
    const server = await suite.serve({ extraArgs: ["--max-conversations", "2"] });
    const page = await openChatPage(suite.browser, server);
    await shown(page).locator("#input").fill("kept in the first");
    await page.click("#new-tab");
    await tabState(page, "ready");
    await shown(page).locator("#input").fill("kept in the second");
    await page.click("#new-tab");
    await page.locator("#tab-notice", { hasText: "at most 2 conversations at once" }).waitFor(TIMEOUT);
    assert.equal(await tabs(page).count(), 2);
    assert.equal(await shown(page).locator("#input").inputValue(), "kept in the second");
    // A closed tab makes room: the next one opens.
    await page.locator(".tab-item.selected .tab-close").click();
    assert.equal(await shown(page).locator("#input").inputValue(), "kept in the first");
    await page.keyboard.press("Alt+Shift+N");
    await tabState(page, "ready");
    assert.equal(await tabs(page).count(), 2);
    assert.equal(await page.locator("#tab-notice").isHidden(), true);
    await page.close();
  });
});
