// Being told the agent is done or waits while the chat is out of view, in
// code-server + Chromium, driven like a user: a turn ends while the panel shows
// the Output view → a notification whose "Open Chat" brings the chat back, and a
// count on the Symposium tab's badge, gone once the chat is seen; a permission
// asked the same way; `symposium.chat.notifications: false` → neither. The
// agent (test/fixtures/attention-agent.ts) ends its turn when the test creates a
// file, so the chat is out of view first. `SYMPOSIUM_SCREENSHOTS=1` saves
// docs/chat-attention-light.png and docs/chat-attention-dark.png.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { e2eSkipReason } from "../harness/code-server.js";
import { OUT_DIR, REPO_DIR } from "../support/processes.js";
import { chatFrame, chooseColorTheme, command, demoWindowSuite, editSettings, extensionLog, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();
const ATTENTION_AGENT = path.join(OUT_DIR, "test", "fixtures", "attention-agent.js");

/** The chat's tab in the bottom panel, as named when it was last the open one ("Symposium"; VS Code may name it after its one view). */
let chatTab = "Symposium";

/** The count on the chat's tab of the bottom panel ("" when it has none). */
function badge(page: Page): Promise<string> {
  return page
    .locator(".part.panel .composite-bar .action-item", { has: page.locator(`[aria-label^=${JSON.stringify(chatTab)}]`) })
    .locator(".badge:not([style*='display: none']) .badge-content")
    .innerText({ timeout: 1000 })
    .catch(() => "");
}

function toast(page: Page, text: RegExp) {
  return page.locator(".notifications-toasts .notification-toast", { hasText: text });
}

describe("notifications while the chat is out of view", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, async ({ workspace, page }) => {
    fs.writeFileSync(
      path.join(path.dirname(workspace), "config.jsonc"),
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(ATTENTION_AGENT)}`, proxies: [] }),
    );
    // A full HD window: on VS Code 1.139 (its own Chat open in the secondary side bar, the Output view's
    // wider tools) the bottom panel of a 1280-pixel window showing the Output view has no room for tabs:
    // they go into the panel's "…" menu, whose entry says the chat's count instead of a badge
    // (docs/webchat.md), and the Output tab is not there to be seen checked.
    await page.setViewportSize({ width: 1920, height: 1080 });
  });
  let frame: Frame;

  /** Sends `text`, puts the Output view in the chat's place, then lets the agent go on. */
  async function whileAway(text: string, go: string): Promise<void> {
    const input = frame.locator("#input");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await input.click();
    await input.fill(text);
    await input.press("Enter");
    await frame.locator("#status", { hasText: /Answering/ }).waitFor({ timeout: 15_000 });
    const shownTab = await demo.page
      .locator(".part.panel .composite-bar .action-item.checked a")
      .first()
      .getAttribute("aria-label", { timeout: 5_000 })
      .catch(() => null);
    chatTab = (shownTab ?? chatTab).split(" (")[0]!;
    const outputShown = demo.page.locator(".part.panel .composite-bar .action-item.checked", { hasText: /Output/ });
    await command(demo.page, "View: Toggle Output");
    if (
      !(await outputShown.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      ))
    ) {
      // VS Code counted the Output view as open already, so the toggle hid the panel: once more shows it.
      await command(demo.page, "View: Toggle Output");
      await outputShown.waitFor({ timeout: 15_000 });
    }
    fs.writeFileSync(path.join(demo.workspace, go), "");
  }

  it("tells that the turn ended: a notification whose Open Chat shows the chat, and a badge until it is seen", async () => {
    await command(demo.page, "Symposium: Open Chat");
    frame = await chatFrame(demo.page, "#input:visible");
    await whileAway("wait go-1", "go-1");
    await toast(demo.page, /attention-agent has finished its turn/).waitFor({ timeout: 30_000 });
    await waitForText(() => badge(demo.page), /^1$/, 15_000);
    await toast(demo.page, /finished its turn/)
      .getByRole("button", { name: "Open Chat" })
      .click();
    await frame.locator("#input").waitFor({ state: "visible", timeout: 15_000 });
    await frame.locator(".message", { hasText: "done go-1" }).waitFor({ timeout: 15_000 });
    await waitForText(async () => `[${await badge(demo.page)}]`, /^\[\]$/, 15_000);
  });

  it("tells that the agent asks for a permission", async () => {
    await command(demo.page, "Notifications: Clear All Notifications");
    await whileAway("ask go-2", "go-2");
    await toast(demo.page, /attention-agent asks for your permission/).waitFor({ timeout: 30_000 });
    await waitForText(() => badge(demo.page), /^1$/, 15_000);
    await toast(demo.page, /asks for your permission/)
      .getByRole("button", { name: "Open Chat" })
      .click();
    await frame.getByRole("button", { name: "Allow once" }).click();
    await frame.locator(".message", { hasText: "permission go-2: selected" }).waitFor({ timeout: 15_000 });
    await waitForText(async () => `[${await badge(demo.page)}]`, /^\[\]$/, 15_000);
  });

  it("stays quiet with symposium.chat.notifications off", async () => {
    await command(demo.page, "Notifications: Clear All Notifications");
    await editSettings(demo.page, demo.server, { "symposium.chat.notifications": false });
    await command(demo.page, "Symposium: Open Chat");
    await whileAway("wait go-3", "go-3");
    await frame.locator(".message", { hasText: "done go-3" }).waitFor({ state: "attached", timeout: 30_000 });
    // The report reached the extension (its log says what it did with it): only then is "no toast" an answer.
    await waitForText(async () => extensionLog(demo.server), /not notified: symposium\.chat\.notifications is off/, 15_000);
    assert.equal(await toast(demo.page, /attention-agent/).count(), 0, "no notification");
    assert.equal(await badge(demo.page), "", "no badge");
  });

  it("tells again once the setting is back on, in the light and the dark theme (pictured on request)", async () => {
    await editSettings(demo.page, demo.server, { "symposium.chat.notifications": undefined });
    for (const [theme, next] of [
      ["light", "Dark Modern"],
      ["dark", "Light Modern"],
    ] as const) {
      await command(demo.page, "Notifications: Clear All Notifications");
      await command(demo.page, "Symposium: Open Chat");
      await whileAway(`wait go-${theme}`, `go-${theme}`);
      await toast(demo.page, /finished its turn/).waitFor({ timeout: 30_000 });
      await waitForText(() => badge(demo.page), /^1$/, 15_000);
      // The toast slides in: pictured once its transitions have finished.
      const shown = toast(demo.page, /finished its turn/);
      await shown.evaluate((element) => Promise.all(element.getAnimations({ subtree: true }).map((animation) => animation.finished)));
      if (process.env.SYMPOSIUM_SCREENSHOTS) await demo.page.screenshot({ path: path.join(REPO_DIR, "docs", `chat-attention-${theme}.png`) });
      await toast(demo.page, /finished its turn/)
        .getByRole("button", { name: "Open Chat" })
        .click();
      await waitForText(async () => `[${await badge(demo.page)}]`, /^\[\]$/, 15_000);
      await chooseColorTheme(demo.page, next);
    }
  });
});
