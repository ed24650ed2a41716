// The chat opened in an editor tab ("Symposium: Open Chat in Editor") survives a window
// reload, as the panel's chat does: VS Code brings the tab back (the extension's webview
// panel serializer) and it shows the conversation it showed before, in code-server +
// Chromium with the demo agent (issue 50, defect 5).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { e2eSkipReason, runCommand } from "../harness/code-server.js";
import { chatFrame, command, demoWindowSuite, symposiumActive, waitForText } from "./panel-helpers.js";
import { askInChat, chatFrames, chatTranscript } from "../support/chat-frame.js";

const skip = e2eSkipReason();

describe("Open Chat in Editor: the tab comes back after a window reload, with its conversation", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) => symposiumActive(window.page));

  it("reopens the editor tab showing the conversation it had", async () => {
    await command(demo.page, "Symposium: Open Chat in Editor");
    const frame = await chatFrame(demo.page, "#input:visible", 60_000);
    await askInChat(frame, "a question asked in the tab");
    await waitForText(() => chatTranscript(frame), /a question asked in the tab[\s\S]*demo agent/, 30_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    const conversation = new URL(frame.url()).searchParams.get("conversation");
    assert.equal(chatFrames(demo.page).length, 1, "only the tab shows the chat (the panel was never opened)");

    // From the palette (the helper's click to reach the workbench would land in the tab's chat).
    await runCommand(demo.page, "Developer: Reload Window");
    await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    // The tab is back (its title names the agent and its state), and its chat shows the conversation.
    await demo.page
      .locator(".part.editor .tab", { hasText: /demo|Symposium/i })
      .first()
      .waitFor({ timeout: 60_000 });
    const back = await chatFrame(demo.page, "#input:visible", 60_000);
    await waitForText(() => chatTranscript(back), /a question asked in the tab[\s\S]*demo agent/, 30_000);
    assert.equal(new URL(back.url()).searchParams.get("conversation"), conversation, "the same conversation");
  });
});
