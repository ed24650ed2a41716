// Fork and Edit and resend in the chat page, in real Chromium against the real
// chat server and an agent that forks its sessions (the draft session/fork;
// test/fixtures/fork-agent.ts): Edit and resend on a message forks the
// conversation into a new tab with the message in its composer; the fork is
// resumed by the new tab's agent and goes on from the whole conversation; the
// first tab is unchanged. An agent without the capability gets neither button.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { OUT_DIR, eventually, tempDir } from "../../support/processes.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 15_000 };
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;
const FORK_AGENT = path.join(OUT_DIR, "test", "fixtures", "fork-agent.js");

const shown = (page: Page): Locator => page.locator(".conversation:not([hidden])");

async function ask(page: Page, text: string): Promise<void> {
  await shown(page).locator("#input").fill(text);
  await shown(page).locator("#input").press("Enter");
  await shown(page)
    .locator(".message.agent", { hasText: `: ${text}` })
    .waitFor(TIMEOUT);
}

describe("webchat: fork and edit and resend", { skip }, () => {
  const suite = chatSuite();

  it("Edit and resend forks the conversation into a new tab, the message in its composer; the fork goes on from the whole conversation", async () => {
    const dir = tempDir("fork-agent-");
    const server = await suite.serve({
      command: quote([process.execPath, FORK_AGENT]),
      env: { FORK_AGENT_DIR: dir },
      extraArgs: ["--state-dir", tempDir("webchat-state-")],
    });
    const page = await openChatPage(suite.browser, server, { conversation: "fork-source" });
    await page.setViewportSize({ width: 900, height: 560 });
    await ask(page, "first");
    await ask(page, "second");
    const source = /in (s-\d+-\d+) after/.exec(await shown(page).locator(".message.agent").first().innerText())![1]!;
    await shown(page)
      .locator("#fork")
      .waitFor({ state: "visible", ...TIMEOUT });

    await shown(page).locator(".message.user", { hasText: "second" }).locator(".edit-resend").click();
    await page.waitForFunction(() => document.querySelectorAll(".tab-strip [role=tab]").length === 2, undefined, TIMEOUT);
    await page.waitForSelector(".conversation:not([hidden])[data-state=ready]", TIMEOUT);
    const log = (): string => (fs.existsSync(path.join(dir, "log")) ? fs.readFileSync(path.join(dir, "log"), "utf8") : "");
    const forked = new RegExp(`^fork ${source} (fork-\\d+-\\d+)$`, "m").exec(log())?.[1];
    assert.ok(forked, `the agent forked ${source}: ${log()}`);
    await eventually(() => log().includes(`resume ${forked}`), 10_000, "the new tab's agent resumes the fork");
    assert.equal(await page.locator(".tab-strip [role=tab]").nth(1).getAttribute("aria-selected"), "true", "the fork's tab is on screen");
    assert.equal(await shown(page).locator("#input").inputValue(), "second", "the message waits in the composer");
    await shown(page).locator(".notice", { hasText: "Forked from “first” to edit a message" }).waitFor(TIMEOUT);
    // The fork's entry in the history shows the conversation it continues.
    await page.waitForFunction(() => document.querySelectorAll(".conversation:not([hidden]) .message.user").length === 2, undefined, TIMEOUT);
    assert.deepEqual(await shown(page).locator(".message.user .body").allInnerTexts(), ["first", "second"]);
    assert.deepEqual(await page.locator(".tab-strip [role=tab]").allInnerTexts(), ["first", "first (fork)"], "the fork's tab says it is one");
    const shots = SCREENSHOTS ?? tempDir("webchat-shots-");
    await shown(page).locator(".message.user").last().hover(); // its Edit and resend shows
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      await page.screenshot({ path: path.join(shots, `chat-fork-${theme}.png`) });
    }

    await ask(page, "second, edited");
    assert.match(await shown(page).locator(".message.agent").last().innerText(), new RegExp(`^in ${forked} after \\[first \\| second\\]: second, edited`));
    await page.locator(".tab-strip [role=tab]").first().click();
    assert.deepEqual(await shown(page).locator(".message.user .body").allInnerTexts(), ["first", "second"], "the first tab's conversation is unchanged");
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll(".tab-strip [role=tab]").length === 2, undefined, TIMEOUT);
    await page.waitForFunction(() => document.querySelectorAll(".tab-strip [role=tab]")[1]?.textContent?.includes("(fork)"), undefined, TIMEOUT);
    await page.close();
  });

  it("a fork answered with an unusable session id: said in the tab, no new tab, the conversation goes on", async () => {
    const server = await suite.serve({ command: quote([process.execPath, FORK_AGENT, "--bad-fork"]), env: { FORK_AGENT_DIR: tempDir("fork-agent-") } });
    const page = await openChatPage(suite.browser, server);
    await ask(page, "before");
    await shown(page).locator("#fork").click();
    await shown(page)
      .locator(".error", { hasText: "The agent did not fork the conversation: the agent answered session/fork without a usable session id" })
      .waitFor(TIMEOUT);
    assert.equal(await page.locator(".tab-strip [role=tab]").count(), 1);
    await ask(page, "after");
    await page.close();
  });

  it("an agent without session/fork: neither Fork nor Edit and resend", async () => {
    const server = await suite.serve({ command: quote([process.execPath, FORK_AGENT, "--no-fork"]), env: { FORK_AGENT_DIR: tempDir("fork-agent-") } });
    const page = await openChatPage(suite.browser, server);
    await ask(page, "only");
    assert.equal(await shown(page).locator("#fork").isVisible(), false);
    assert.equal(await shown(page).locator(".message.user .edit-resend").isVisible(), false);
    await page.close();
  });
});
