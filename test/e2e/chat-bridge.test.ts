// The chat and VS Code working together, in code-server + Chromium, driven
// like a user: VS Code's chords typed in the chat, "Open diff" and
// a tool call's path, "Add Selection to Chat", "Open Chat in Editor", the
// view's title, Stop → "stopped" + Start; and the bridge refusing what is not
// on its lists. One user's session: each step builds on the one before.
// The agent is test/fixtures/bridge-agent.ts. `SYMPOSIUM_SCREENSHOTS=1` saves
// docs/chat-bridge-dark.png and docs/chat-bridge-light.png.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { e2eSkipReason, openFile, visibleText } from "../harness/code-server.js";
import { OUT_DIR, REPO_DIR } from "../support/processes.js";
import { chatFrame, chooseColorTheme, command, demoWindowSuite, extensionLog, gatePort, panelStatusFrame, waitForText } from "./panel-helpers.js";
import { askInChat, chatFrames } from "../support/chat-frame.js";

const skip = e2eSkipReason();
const BRIDGE_AGENT = path.join(OUT_DIR, "test", "fixtures", "bridge-agent.js");

async function selectLines2To3(page: Page, file = "main.rs"): Promise<void> {
  await openFile(page, file);
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Shift+ArrowDown");
  await page.keyboard.press("Shift+End");
}

async function paletteOpen(page: Page): Promise<boolean> {
  return page.locator(".quick-input-widget .quick-input-box input").isVisible();
}

/**
 * Waits until the palette's input has the keyboard, out of the chat's frame. VS Code 1.139 shows the
 * palette a moment before its input takes the focus: a key pressed in between still goes to the chat.
 */
async function paletteHasKeys(page: Page): Promise<void> {
  await page.waitForFunction(() => document.hasFocus() && document.activeElement?.matches(".quick-input-widget .quick-input-box input") === true, null, {
    timeout: 10_000,
  });
}

describe("the chat and VS Code (bridge, keyboard, diff, selection, editor tab, stop)", { skip, timeout: 600_000 }, () => {
  // The conductor reads its config for each session: run the bridge's agent instead of the demo's.
  const demo = demoWindowSuite({}, {}, ({ workspace }) => {
    fs.writeFileSync(
      path.join(path.dirname(workspace), "config.jsonc"),
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(BRIDGE_AGENT)}`, proxies: [] }),
    );
    // A file whose name has a space, for "Add Selection to Chat".
    fs.mkdirSync(path.join(workspace, "docs"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "docs", "my notes.md"), "one\ntwo\nthree\nfour\n");
  });
  let frame: Frame;

  it("opens without a toast about Toad, and names the agent and its state in the view's title", async () => {
    await command(demo.page, "Symposium: Open Chat");
    frame = await chatFrame(demo.page, "#input:visible");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    // The view's description: in the panel tab's hover, and beside the view's name wherever VS Code
    // shows its header (alone in the bottom panel it shows none; in a side bar with other views it does).
    await demo.page.locator(".part.panel [aria-label='Chat - bridge-agent · Ready']").waitFor({ state: "attached", timeout: 15_000 });
    assert.equal(await demo.page.locator(".part.panel .pane-header .description", { hasText: /^bridge-agent · Ready$/ }).count(), 1);
    assert.equal(await demo.page.locator(".notifications-toasts .notification-toast").count(), 0, "no toast");
    assert.match(extensionLog(demo.server), /was not found on PATH, so the panel uses the built-in chat/);
  });

  it("toggles editor context from the status bar's command without offering a restart (it applies to the next prompt)", async () => {
    await command(demo.page, "Symposium: Toggle Editor Context Sharing");
    await demo.page.waitForTimeout(2000);
    await command(demo.page, "Symposium: Toggle Editor Context Sharing");
    await demo.page.waitForTimeout(2000);
    assert.equal(await demo.page.locator(".notifications-toasts .notification-toast", { hasText: /Restart/ }).count(), 0, "no restart offered");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 5_000 });
  });

  it("runs VS Code's chords typed in the chat: Ctrl+Shift+P opens the palette, Ctrl+P Quick Open, each with the keys", async () => {
    const palette = demo.page.locator(".quick-input-widget .quick-input-box input");
    await frame.locator("#input").click();
    await frame.locator("#input").press("Control+Shift+P");
    await paletteHasKeys(demo.page);
    assert.match(await palette.inputValue(), /^>/);
    await demo.page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden", timeout: 10_000 });
    await frame.locator("#input").click();
    await frame.locator("#input").press("Control+P");
    await paletteHasKeys(demo.page);
    assert.equal(await palette.inputValue(), "");
    await demo.page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden", timeout: 10_000 });
    assert.equal(await frame.locator("#input").inputValue(), "", "the chords typed nothing into the composer");
  });

  it("drops what is not on the bridge's lists: a chord outside the table, a message not from the chat frame, a file outside the workspace", async () => {
    await frame.evaluate(() => {
      window.parent.postMessage({ type: "symposium/request", request: { kind: "chord", chord: "ctrl+w" } }, "*");
      window.parent.postMessage({ type: "symposium/request", request: { kind: "command", command: "workbench.action.showCommands" } }, "*");
      window.parent.postMessage({ type: "symposium/request", request: { kind: "openFile", path: "/etc/passwd" } }, "*");
    });
    const panel = frame.parentFrame()!;
    // The panel's own window is not the chat frame: its message is no request.
    await panel.evaluate(() => window.postMessage({ type: "symposium/request", request: { kind: "chord", chord: "ctrl+shift+p" } }, "*"));
    await demo.page.waitForTimeout(1500);
    assert.equal(await paletteOpen(demo.page), false, "no palette");
    assert.equal(await demo.page.locator(".part.editor .tab").count(), 0, "no editor opened");
    await waitForText(async () => extensionLog(demo.server), /not a file in this workspace: not opened/, 10_000);
  });

  it("Add Selection to Chat (Ctrl+Alt+.) puts the selection's mention into the composer", async () => {
    await selectLines2To3(demo.page);
    await demo.page.keyboard.press("Control+Alt+.");
    await waitForText(() => frame.locator("#input").inputValue(), /@src\/main\.rs:2-3 $/, 10_000);
    await frame.locator("#input").fill("");
    // The path and lines travel as fields; the chat writes the mention, the path quoted, so that it reads back whole.
    await selectLines2To3(demo.page, "my notes.md");
    await demo.page.keyboard.press("Control+Alt+.");
    await waitForText(() => frame.locator("#input").inputValue(), /^@"docs\/my notes\.md":2-3 $/, 10_000);
    await frame.locator("#input").fill("");
  });

  it("Open diff opens VS Code's diff editor; the tool call's path opens the file at its line", async () => {
    await command(demo.page, "View: Close All Editors");
    await askInChat(frame, "edit");
    const openDiff = frame.locator(".tool-call .open-diff");
    await openDiff.waitFor({ timeout: 15_000 });
    await openDiff.click();
    await demo.page.locator(".part.editor .monaco-diff-editor").first().waitFor({ timeout: 15_000 });
    const tab = await demo.page.locator(".part.editor .tab.active").getAttribute("aria-label");
    assert.match(tab ?? "", /main\.rs \(the agent's change\)/);
    const after = await waitForText(() => visibleText(demo.page, ".part.editor .monaco-diff-editor .editor.modified"), /hello from the agent/, 10_000);
    assert.match(after, /hello from the agent/);
    assert.match(await visibleText(demo.page, ".part.editor .monaco-diff-editor .editor.original"), /hello from the sample workspace/);
    await frame.locator(".tool-call .tool-location").click();
    await waitForText(async () => (await demo.page.locator(".part.editor .tab.active").getAttribute("aria-label")) ?? "", /^main\.rs/, 10_000);
    await waitForText(() => demo.page.locator(".statusbar").innerText(), /Ln 2, Col 1/, 10_000);
    if (process.env.SYMPOSIUM_SCREENSHOTS) await screenshots(demo.page);
  });

  it("Open Chat in Editor shows the same conversation in an editor tab", async () => {
    await command(demo.page, "Symposium: Open Chat in Editor");
    await waitForText(async () => String(chatFrames(demo.page).length), /^2$/, 30_000);
    const tabFrame = chatFrames(demo.page).find((each) => each !== frame)!;
    await waitForText(
      () =>
        tabFrame
          .locator("#transcript")
          .innerText()
          .catch(() => ""),
      /Edit main\.rs/,
      30_000,
    );
    const tab = await waitForText(async () => (await demo.page.locator(".part.editor .tab.active").getAttribute("aria-label")) ?? "", /bridge-agent/, 15_000);
    assert.match(tab, /bridge-agent/);
    // Closed with the tab's own button: the tab's webview has the keys and covers the editor area.
    await demo.page.locator(".part.editor .tab.active .tab-actions .action-label").click();
    await waitForText(async () => String(chatFrames(demo.page).length), /^1$/, 10_000);
  });

  it("Stop says the chat is stopped and offers Start, with no stale disconnection banner; Start brings it back", async () => {
    await command(demo.page, "Symposium: Stop Chat");
    const panel = await panelStatusFrame(demo.page, /stopped/, 30_000);
    assert.equal(await panel.locator("#retry").innerText(), "Start");
    assert.equal(await panel.locator("#chat").isHidden(), true);
    await panel.locator("#retry").click();
    frame = await chatFrame(demo.page, "#input:visible", 60_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  });

  it("Restart keeps the conversation on screen until the new chat is ready, then says a new conversation started", async () => {
    await askInChat(frame, "hello");
    await waitForText(() => frame.locator("#transcript").innerText(), /you said: hello/);
    const oldPort = gatePort(frame);
    await command(demo.page, "Symposium: Restart Chat");
    const panel = await panelStatusFrame(demo.page, /Restarting the chat/, 15_000);
    assert.equal(await panel.locator("#chat").isVisible(), true, "the old chat stays on screen");
    assert.match(await frame.locator("#transcript").innerText(), /you said: hello/);
    await panelStatusFrame(demo.page, /new conversation/, 60_000);
    const fresh = await chatFrame(demo.page, "#input:visible", 60_000, oldPort);
    await fresh.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  });
});

/** The panel maximized after the edit turn, in the light theme (code-server's default) and the dark one. */
async function screenshots(page: Page): Promise<void> {
  await command(page, "View: Close All Editors");
  await command(page, "Notifications: Clear All Notifications");
  for (const [theme, next] of [
    ["light", "Dark Modern"],
    ["dark", "Light Modern"],
  ] as const) {
    await command(page, "View: Toggle Maximized Panel");
    await page.waitForTimeout(1000); // the chat follows the theme by a message
    await page.screenshot({ path: path.join(REPO_DIR, "docs", `chat-bridge-${theme}.png`) });
    await command(page, "View: Toggle Maximized Panel");
    await chooseColorTheme(page, next);
  }
}
