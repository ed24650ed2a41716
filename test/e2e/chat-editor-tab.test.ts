// One conversation across the panel and its editor tabs, in the current theme, in code-server + Chromium with the demo agent:
// "Open Chat in Editor" shows the conversation the panel shows, whichever way
// it became current (New chat, a History reopen, an agent switch), and the chat
// comes up in VS Code's current theme (New chat and the editor tab alike), not
// in the theme of the URL the panel was first given. And a window reload
// restores "Show Editor Context" rather than leaving an empty group (item 11);
// a cold open says "Starting the chat…" until the chat's page shows (item 8).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import type { Frame } from "playwright-core";
import { e2eSkipReason, openFile } from "../harness/code-server.js";
import { chatFrame, chooseColorTheme, command, demoWindowSuite, waitForText, watchPanel } from "./panel-helpers.js";
import { askInChat, chatFrames, chatTranscript } from "../support/chat-frame.js";

const skip = e2eSkipReason();

/** All chat frames on the page (the view's, an editor tab's). */
function conversationOf(frame: Frame): string | null {
  return new URL(frame.url()).searchParams.get("conversation");
}

describe("Open Chat in Editor: the panel's conversation, in the current theme", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite();
  let frame: Frame;

  async function ask(text: string): Promise<void> {
    await askInChat(frame, text);
    await waitForText(() => chatTranscript(frame), new RegExp(`${text}[\\s\\S]*demo agent`), 30_000); // its answer
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  }

  /** The panel's chat after it moved to another conversation than `from`. */
  async function movedFrom(from: string | null): Promise<Frame> {
    await waitForText(async () => String(conversationOf(frame)), new RegExp(`^(?!${from}$)[A-Za-z0-9_-]+$`), 30_000);
    frame = await chatFrame(demo.page, "#input:visible", 30_000);
    return frame;
  }

  /** Opens the editor tab, checks it shows the panel's conversation (its id and `text`), closes it. */
  async function tabShowsPanelConversation(text: string): Promise<Frame> {
    await command(demo.page, "Symposium: Open Chat in Editor");
    await waitForText(async () => String(chatFrames(demo.page).length), /^2$/, 30_000);
    const tab = chatFrames(demo.page).find((each) => each !== frame)!;
    assert.equal(conversationOf(tab), conversationOf(frame), "the tab names the panel's conversation");
    await waitForText(() => chatTranscript(tab), new RegExp(text), 30_000);
    return tab;
  }

  async function closeTab(): Promise<void> {
    await demo.page.locator(".part.editor .tab.active .tab-actions .action-label").click();
    await waitForText(async () => String(chatFrames(demo.page).length), /^1$/, 10_000);
  }

  it("opens the chat, saying it starts from the first look on, never a blank area", async () => {
    await command(demo.page, "Symposium: Open Chat");
    const looks = await watchPanel(demo.page, (look) => look.chatStatus.includes("Ready"), 60_000);
    const blank = looks.find((look) => !look.status && !look.kept && !look.chat && !look.chatStatus);
    assert.equal(blank, undefined, `every look says something: ${JSON.stringify(looks.slice(0, 3))}…`);
    assert.match(looks[0]!.status, /Starting the chat…/);
    frame = await chatFrame(demo.page, "#input:visible");
    await ask("first question");
  });

  it("after New chat, the tab shows the new conversation", async () => {
    const before = conversationOf(frame);
    await frame.locator("#new-chat").click();
    await movedFrom(before);
    await ask("after new chat");
    const tab = await tabShowsPanelConversation("after new chat");
    assert.doesNotMatch(await chatTranscript(tab), /first question/);
    await closeTab();
  });

  it("after a History reopen, the tab shows the reopened conversation", async () => {
    const before = conversationOf(frame);
    await frame.locator("#history-button").click();
    const entry = frame.locator(".history-entry", { hasText: "first question" });
    await entry.waitFor({ timeout: 15_000 });
    await entry.locator(".history-open").click();
    await movedFrom(before);
    await waitForText(() => chatTranscript(frame), /first question/, 30_000);
    const tab = await tabShowsPanelConversation("first question");
    assert.doesNotMatch(await chatTranscript(tab), /after new chat/);
    await closeTab();
  });

  it("after an agent switch, the tab shows the new agent's conversation", async () => {
    const before = conversationOf(frame);
    const picker = frame.locator("#agent-picker");
    await picker.waitFor({ state: "visible", timeout: 15_000 });
    await picker.locator('option[value="demo"]').waitFor({ state: "attached", timeout: 30_000 }); // the conductor's built-in demo agent
    // Picking the agent a conversation already runs changes nothing: switch away (Kiro CLI, not
    // installed here, ends at once saying so), then back to the demo agent, whose turn follows.
    await picker.selectOption("kiro");
    const away = await movedFrom(before).then(conversationOf);
    await frame.locator("#agent-picker").selectOption("demo");
    await movedFrom(away);
    await ask("after the switch");
    const tab = await tabShowsPanelConversation("after the switch");
    assert.doesNotMatch(await chatTranscript(tab), /first question/);
    await closeTab();
  });

  it("New chat and the editor tab come up in the current theme (dark), not the first URL's (light)", async () => {
    assert.equal(new URL(frame.url()).searchParams.get("theme"), "light", "code-server starts light");
    await chooseColorTheme(demo.page, "Dark Modern");
    await waitForText(() => frame.evaluate(() => document.body.dataset.theme ?? ""), /^dark$/, 15_000);
    const before = conversationOf(frame);
    await frame.locator("#new-chat").click();
    await movedFrom(before);
    assert.equal(await frame.evaluate(() => document.body.dataset.theme), "dark", "New chat comes up dark");
    await ask("in the dark");
    const tab = await tabShowsPanelConversation("in the dark");
    assert.equal(await tab.evaluate(() => document.body.dataset.theme), "dark", "the editor tab comes up dark");
    await closeTab();
  });

  it("Reload Window restores the Editor Context view, leaving no empty editor group", async () => {
    await command(demo.page, "View: Close All Editors");
    await openFile(demo.page, "main.rs");
    await command(demo.page, "Symposium: Show Editor Context"); // beside main.rs: a group of its own
    await demo.page.locator(".part.editor .tab", { hasText: "Editor Context.md" }).waitFor({ timeout: 15_000 });
    assert.equal(await demo.page.locator(".part.editor .editor-group-container").count(), 2);
    assert.equal(await demo.page.locator(".part.editor .editor-group-container.empty").count(), 0);
    await command(demo.page, "Developer: Reload Window");
    await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    await demo.page.locator(".part.editor .tab", { hasText: "Editor Context.md" }).waitFor({ timeout: 30_000 });
    await waitForText(() => demo.page.locator(".part.editor").innerText(), /editor context|No editor context/i, 15_000);
    assert.equal(await demo.page.locator(".part.editor .editor-group-container.empty").count(), 0, "no empty editor group");
  });
});
