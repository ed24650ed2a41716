// Queued messages in the chat page, in real Chromium against the
// real chat server and the chat fixture agent (test/fixtures/chat-agent.ts):
// typed while the agent answers, listed under the composer, edited and
// removed, sent in order as turns end; Stop keeps them waiting; an agent that
// crashes leaves them queued with a note; a message sent before the server has
// taken the last one (a slow connection, or another surface's turn) is queued,
// never lost.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, holdableServerFrames, loadChat, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { tempDir } from "../../support/processes.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

const userTexts = (page: Page): Promise<string[]> => page.locator(".message.user").allInnerTexts();

describe("webchat: queued messages", { skip }, () => {
  const suite = chatSuite();

  it("typed while the agent answers: listed under the composer, edited, removed, then sent in order as turns end", async () => {
    const page = await openChatPage(suite.browser, await suite.serve());
    await page.setViewportSize({ width: 820, height: 520 });
    await typePrompt(page, "stream 25");
    await page.waitForSelector("body[data-state=prompting]", TIMEOUT);
    for (const text of ["first queued", "second queued", "third queued"]) await typePrompt(page, text);
    const queued = page.locator("#message-queue .queued-text");
    assert.equal(await queued.count(), 3);
    assert.equal(await page.locator("#input").inputValue(), "", "the composer is free for the next one");
    await queued.nth(1).fill("second edited");
    await page.locator("#message-queue .queued-remove").nth(2).click();
    assert.equal(await queued.count(), 2);
    const dir = SCREENSHOTS ?? tempDir("webchat-shots-");
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      await page.screenshot({ path: path.join(dir, `acp2026-queue-${theme}.png`) });
    }
    await page.waitForFunction(() => document.querySelectorAll(".message.user").length === 3 && document.body.dataset.state === "ready", undefined, TIMEOUT);
    assert.deepEqual(await userTexts(page), ["stream 25", "first queued", "second edited"]);
    assert.equal(await page.locator("#message-queue").isHidden(), true);
    await page.close();
  });

  it("Stop cancels the turn and keeps the queue waiting; Send queued sends it on", async () => {
    const page = await openChatPage(suite.browser, await suite.serve());
    await typePrompt(page, "forever");
    await page.waitForSelector("body[data-state=prompting]", TIMEOUT);
    await typePrompt(page, "after the stop");
    await page.click("#cancel");
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.locator(".queued-note", { hasText: "Stopped: the queued messages wait." }).waitFor(TIMEOUT);
    assert.deepEqual(await userTexts(page), ["forever"], "nothing sent after Stop");
    await page.click(".queued-resume");
    await page.waitForFunction(() => document.querySelectorAll(".message.user").length === 2, undefined, TIMEOUT);
    assert.deepEqual(await userTexts(page), ["forever", "after the stop"]);
    await page.close();
  });

  it("an agent that crashes leaves what is queued in the queue, with a note", async () => {
    const page = await openChatPage(suite.browser, await suite.serve());
    await typePrompt(page, "stream 15");
    await page.waitForSelector("body[data-state=prompting]", TIMEOUT);
    await typePrompt(page, "crash");
    await typePrompt(page, "kept after the crash");
    await page.waitForSelector("body[data-state=ended]", TIMEOUT);
    await page.locator(".queued-note", { hasText: "The agent has ended: these messages were not sent." }).waitFor(TIMEOUT);
    assert.deepEqual(await page.locator("#message-queue .queued-text").evaluateAll((items) => items.map((item) => (item as HTMLTextAreaElement).value)), [
      "kept after the crash",
    ]);
    await page.close();
  });

  it("a second message sent before the server has taken the first waits in the queue, then goes after the first's turn", async () => {
    const page = await suite.browser.newPage();
    const frames = await holdableServerFrames(page);
    await loadChat(page, await suite.serve(), {}, TIMEOUT.timeout);
    frames.hold(); // the server's "prompting" has not come back when the user presses Enter again
    await typePrompt(page, "stream 3");
    await typePrompt(page, "right after");
    assert.deepEqual(await page.locator("#message-queue .queued-text").evaluateAll((items) => items.map((item) => (item as HTMLTextAreaElement).value)), [
      "right after",
    ]);
    frames.release();
    await page.waitForFunction(() => document.querySelectorAll(".message.agent").length === 2 && document.body.dataset.state === "ready", undefined, TIMEOUT);
    assert.deepEqual(await userTexts(page), ["stream 3", "right after"]);
    assert.equal(await page.locator("#transcript .notice").count(), 0, "the server refused nothing");
    assert.equal(await page.locator("#message-queue").isHidden(), true);
    await page.close();
  });

  it("a message the server refuses (another surface's turn began first) is queued again and sent when that turn ends", async () => {
    const server = await suite.serve();
    const first = await openChatPage(suite.browser, server, { conversation: "shared" }, TIMEOUT.timeout);
    const second = await suite.browser.newPage();
    const frames = await holdableServerFrames(second);
    await loadChat(second, server, { conversation: "shared" }, TIMEOUT.timeout);
    frames.hold(); // the second surface has not heard of the first one's turn
    await typePrompt(first, "stream 8");
    await first.waitForSelector("body[data-state=prompting]", TIMEOUT);
    await typePrompt(second, "from the other surface");
    frames.release();
    await second.locator("#transcript .notice", { hasText: "The agent is still answering" }).waitFor(TIMEOUT);
    for (const page of [first, second]) {
      await page.waitForFunction(() => document.querySelectorAll(".message.user").length === 2 && document.body.dataset.state === "ready", undefined, TIMEOUT);
      await page.waitForFunction(() => document.querySelectorAll(".message.agent").length === 2, undefined, TIMEOUT);
      assert.deepEqual(await userTexts(page), ["stream 8", "from the other surface"]);
    }
    assert.equal(await second.locator("#message-queue").isHidden(), true);
    await Promise.all([first.close(), second.close()]);
  });
});
