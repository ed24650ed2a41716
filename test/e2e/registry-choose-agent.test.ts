// "Symposium: Choose Agent" in a real VS Code (code-server) in Chromium, as a
// user: the chat runs the demo agent, its header listing the custom agent of
// symposium.agents as the quick pick does; the command palette's Choose Agent lists
// the built-in agents, the shipped registry snapshot's and the custom one from
// symposium.agents, the configured one marked current; choosing the custom one
// (the reporting agent) writes the conductor's config, the conversation open
// keeps running the demo agent, and the next
// one, started with New chat, runs the reporting agent.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { e2eSkipReason, type CodeServer } from "../harness/code-server.js";
import { REPORTING_AGENT } from "../support/processes.js";
import { chatFrame, closeDemoWindow, command, openDemoWindow, waitForText } from "./panel-helpers.js";
import { askInChat, chatTranscript } from "../support/chat-frame.js";

const skip = e2eSkipReason();

const CUSTOM_AGENT = {
  id: "my-recorder",
  name: "My recording agent",
  description: "custom, from symposium.agents",
  distribution: { local: { command: process.execPath, args: [REPORTING_AGENT] } },
};

describe("Symposium: Choose Agent in code-server", { skip, timeout: 600_000 }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;

  before(async () => {
    // "": the shipped snapshot, no network.
    ({ workspace, server, browser, page } = await openDemoWindow({ SYMPOSIUM_REGISTRY_URL: "" }, { "symposium.agents": [CUSTOM_AGENT] }));
  });

  after(() => closeDemoWindow(browser, server, workspace));

  it("lists built-in, registry and custom agents, the current one marked; the choice is the next conversation's", async () => {
    await command(page, "Symposium: Open Chat");
    const first = await chatFrame(page, "#input:visible");
    // The chat's header lists what the quick pick lists: symposium.agents reach the chat's conductor too.
    await first.locator('#agent-picker option[value="my-recorder"]').waitFor({ state: "attached", timeout: 30_000 });
    await askInChat(first, "who are you?");
    await waitForText(() => chatTranscript(first), /built-in demo agent/);

    await command(page, "Symposium: Choose Agent");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    const rows = async () =>
      (await page.$$eval(".quick-input-list .monaco-list-row", (elements) => elements.map((row) => row.getAttribute("aria-label") ?? ""))).join(" | ");
    // The palette's own row stays until the agents' list replaces it (VS Code 1.139 shows it a moment longer).
    const all = await waitForText(rows, /My recording agent/);
    for (const name of ["My recording agent", "Claude Code", "Built-in demo agent"]) assert.match(all, new RegExp(name), all);
    assert.equal(all.match(/Claude Code/g)?.length, 1, `one entry per agent: ${all}`);
    const marked = await page.$$eval(".quick-input-list .monaco-list-row", (elements) =>
      elements.map((row) => (row as HTMLElement).innerText.replace(/\s+/g, " ")).filter((text) => text.includes("current ·")),
    );
    assert.equal(marked.length, 1, `one agent marked current: ${marked.join(" | ")}`);
    assert.match(marked[0]!, /Built-in demo agent/);
    await input.fill("gemini");
    await waitForText(rows, /Gemini CLI/);
    await input.fill("My recording agent");
    await page.waitForTimeout(300);
    await page.keyboard.press("Enter");

    // The conversation open keeps its agent; the notification says the next one runs the choice.
    await page.locator(".notification-toast", { hasText: "the next conversation runs My recording agent" }).waitFor({ timeout: 30_000 });
    await askInChat(first, "still you?");
    // The question, then the demo agent's echo of it: the same agent answered.
    await waitForText(() => chatTranscript(first), /still you\?[\s\S]*still you\?/);
    const conversation = (frame: Frame): string | null => new URL(frame.url()).searchParams.get("conversation");
    const before = conversation(first);
    await first.click("#new-chat");
    await waitForText(async () => String(conversation(first)), new RegExp(`^(?!${before}$)`));

    const second = await chatFrame(page, "#input:visible", 60_000);
    await askInChat(second, "hello recorder");
    const text = await waitForText(() => chatTranscript(second), /received/);
    assert.match(text, /hello recorder/);
    const config = fs.readFileSync(process.env.SYMPOSIUM_CONFIG!, "utf8");
    assert.match(config, /"id": "my-recorder"/);
  });
});
