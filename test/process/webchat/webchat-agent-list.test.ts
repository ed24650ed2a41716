// The agent's own sessions in History (session/list, docs/webchat.md: the
// agent's sessions), in real Chromium against the real chat server and
// test/fixtures/list-agent.ts: listed under ours one page at a time, "More"
// for the next; Open continues one in a new conversation (session/resume);
// 100,000 sessions, paged or all in one answer, cost a page, not a freeze.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { CHROMIUM } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import { PAGE_LIMIT } from "../../../webchat/src/agent-session-list.js";

const skip = fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`;
const TIMEOUT = { timeout: 15_000 };
const LIST_AGENT = path.join(OUT_DIR, "test", "fixtures", "list-agent.js");
/** WEBCHAT_SCREENSHOT_DIR=docs pictures History with the agent's sessions, light and dark. */
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

describe("webchat: the agent's own sessions in History", { skip }, () => {
  const suite = chatSuite();

  it("lists them under ours a page at a time, and Open continues one with session/resume", async () => {
    const log = path.join(tempDir("list-agent-"), "log");
    const server = await suite.serve({ command: quote([process.execPath, LIST_AGENT, "--count", "5", "--page", "3"]), env: { LIST_AGENT_LOG: log } });
    const page = await openChatPage(suite.browser, server, { conversation: "listing" });
    await page.click("#history-button");
    const rows = page.locator(".agent-session-list .history-entry");
    await rows.nth(2).waitFor(TIMEOUT);
    assert.deepEqual(await page.locator(".agent-session-list .history-title").allInnerTexts(), ["Session 1", "Session 2", "Session 3"]);
    await page.click(".agent-sessions-more");
    await rows.nth(4).waitFor(TIMEOUT);
    assert.equal(await page.locator(".agent-sessions-more").count(), 0, "the last page: no More");
    if (SCREENSHOTS) {
      await page.setViewportSize({ width: 820, height: 520 });
      for (const theme of ["light", "dark"]) {
        await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
        await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
        await page.screenshot({ path: path.join(SCREENSHOTS, `acp2026-agent-sessions-${theme}.png`) });
      }
    }
    await page.locator(".agent-session-list [data-agent-session-id=listed-4] .history-open").click();
    await page.waitForURL(/reopen-agent=listed-4/, TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await typePrompt(page, "go on");
    await page.locator(".message.agent", { hasText: "in listed-4: go on" }).waitFor(TIMEOUT);
    await eventually(() => fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("resume"), 5_000, "the resume");
    assert.deepEqual(fs.readFileSync(log, "utf8").trim().split("\n"), ["list -", "list 3", "resume listed-4"]);
    await page.close();
  });

  for (const [name, flags] of [
    ["paged by 50", ["--page", "50"]],
    ["all in one answer", ["--one-page"]],
  ] as const) {
    it(`shows the first page of 100,000 sessions ${name} at once, the page staying responsive`, async () => {
      const server = await suite.serve({ command: quote([process.execPath, LIST_AGENT, "--count", "100000", ...flags]) });
      const page = await openChatPage(suite.browser, server);
      await page.click("#history-button");
      await page.locator(".agent-sessions-footer", { hasText: name === "paged by 50" ? "More" : "were not shown" }).waitFor(TIMEOUT);
      const shown = await page.locator(".agent-session-list .history-entry").count();
      assert.equal(shown, name === "paged by 50" ? 50 : PAGE_LIMIT);
      if (name !== "paged by 50") assert.match(await page.locator(".agent-sessions-footer").innerText(), new RegExp(`${100000 - PAGE_LIMIT} more`));
      // The page still answers the user: History closes (it stands in the conversation's place), typing goes on as before.
      await page.click(".history-close");
      await typePrompt(page, "still here");
      await page.locator(".message.agent", { hasText: "still here" }).waitFor(TIMEOUT);
      await page.close();
    });
  }
});
