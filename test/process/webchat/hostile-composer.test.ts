// Oversized messages, the page's side: pasting a prompt over the server's
// message limit and pressing Enter, in real Chromium against the real
// server. The composer keeps the text, says the limit, and sends nothing; the
// connection and the conversation go on.

import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { MAX_PAGE_MESSAGE_BYTES } from "../../../webchat/page/protocol.js";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";
import { openChatPage } from "../../support/chat-browser.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };

describe("hostile input: the composer", { skip }, () => {
  let browser: Browser;
  let server: ChatServer;
  before(async () => {
    [browser, server] = await Promise.all([launchBrowser(), startChatServer()]);
  });
  after(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  it("refuses a prompt over the limit before sending, says the limit, and keeps the chat working", async () => {
    const page = await openChatPage(browser, server, {}, TIMEOUT.timeout);
    const size = MAX_PAGE_MESSAGE_BYTES + 1024 * 1024;
    // As a paste would: the whole text lands in the input at once.
    await page.evaluate((length) => {
      const input = document.querySelector<HTMLTextAreaElement>("#input")!;
      input.value = "é".repeat(length / 2);
      input.dispatchEvent(new Event("input"));
      input.focus();
    }, size);
    await page.keyboard.press("Enter");
    const notice = page.locator("#composer-notice");
    await notice.waitFor({ state: "visible", ...TIMEOUT });
    assert.match(await notice.innerText(), /This message is 5 MB; the chat takes at most 4 MB in one message/);
    assert.equal(await page.evaluate(() => document.querySelector<HTMLTextAreaElement>("#input")!.value.length), size / 2, "the text stays in the input");

    await page.fill("#input", "a prompt that fits");
    assert.equal(await notice.isVisible(), false, "editing the text clears the notice");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (document.querySelector(".message.agent")?.textContent ?? "").includes("a prompt that fits"), undefined, TIMEOUT);
    // The answer came after anything the refused prompt could have set off: the connection held through both.
    assert.equal(await page.locator("#banner").isVisible(), false, "the connection is not lost");
    assert.equal(server.process.child.exitCode, null);
    assert.doesNotMatch(server.process.stderr(), /closed a websocket/, "nothing oversized reached the server");
    await page.close();
  });
});
