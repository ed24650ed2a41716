// Files dragged from VS Code's Explorer into the built-in chat, in
// code-server + Chromium, driven like a user: the mouse goes down on the Explorer's row,
// Shift is held, the mouse moves in steps onto the chat and lets go. VS Code keeps a drag
// out of every webview unless Shift is held (its WebviewWindowDragMonitor sets
// `pointer-events: none` on the webview's frame), so without Shift nothing may land. The
// drop reaches the chat's own frame (nested in the webview) directly, in the view and in an
// editor tab. The agent is test/fixtures/mention-agent.ts, which records each prompt it receives.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Locator, Page } from "playwright-core";
import { e2eSkipReason, type CodeServer } from "../harness/code-server.js";
import { OUT_DIR } from "../support/processes.js";
import { chatFrame, closeDemoWindow, command, openDemoWindow, panelStatusFrame, waitForText } from "./panel-helpers.js";
import { chatFrames } from "../support/chat-frame.js";

const skip = e2eSkipReason();
const MENTION_AGENT = path.join(OUT_DIR, "test", "fixtures", "mention-agent.js");

interface Block {
  type: string;
  uri?: string;
  name?: string;
  text?: string;
  resource?: { uri: string; text?: string };
}

/** The conductor reads its config for each session: the next chat runs the mention agent. */
function useMentionAgent(workspace: string, prompts: string, embedded: boolean): void {
  const agent = [process.execPath, MENTION_AGENT, "--out", prompts, ...(embedded ? ["--embedded"] : [])].map((part) => JSON.stringify(part)).join(" ");
  fs.writeFileSync(path.join(path.dirname(workspace), "config.jsonc"), JSON.stringify({ agent, proxies: [] }));
}

function explorerRow(page: Page, name: string): Locator {
  return page.locator(".explorer-folders-view .monaco-list-row", { hasText: new RegExp(`^${name.replace(/\./g, "\\.")}$`) }).first();
}

async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${locator.toString()} is not on screen`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** A user's drag: down on the Explorer's row, (Shift held,) in steps onto `target`, up. */
async function drag(page: Page, row: Locator, target: Locator, shift: boolean): Promise<void> {
  const from = await centre(row);
  const to = await centre(target);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 8, from.y + 8, { steps: 2 }); // the drag starts
  if (shift) await page.keyboard.down("Shift");
  await page.mouse.move(to.x, to.y, { steps: 15 });
  await page.mouse.up();
  if (shift) await page.keyboard.up("Shift");
}

/** Counts, without touching them, the drags the workbench starts and the drag events the chat page sees. */
async function countDrags(page: Page, frame: Frame): Promise<() => Promise<{ started: number; inChat: number }>> {
  await page.evaluate(() => {
    const counts = window as unknown as { dragsStarted?: number };
    counts.dragsStarted = 0;
    window.addEventListener("dragstart", () => (counts.dragsStarted! += 1), true);
  });
  await frame.evaluate(() => {
    const counts = window as unknown as { dragEvents?: number };
    counts.dragEvents = 0;
    for (const type of ["dragenter", "dragover", "drop"]) document.addEventListener(type, () => (counts.dragEvents! += 1), true);
  });
  return async () => ({
    started: await page.evaluate(() => (window as unknown as { dragsStarted: number }).dragsStarted),
    inChat: await frame.evaluate(() => (window as unknown as { dragEvents: number }).dragEvents),
  });
}

function promptsAt(file: string): Block[][] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Block[]);
}

async function nthPrompt(file: string, count: number): Promise<Block[]> {
  await waitForText(async () => String(promptsAt(file).length), new RegExp(`^${count}$`), 30_000);
  return promptsAt(file)[count - 1]!;
}

describe("files dragged from VS Code's Explorer into the chat", { skip, timeout: 600_000 }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let frame: Frame;
  let prompts: string;
  let drags: () => Promise<{ started: number; inChat: number }>;

  before(async () => {
    ({ workspace, server, browser, page } = await openDemoWindow({}));
    prompts = path.join(path.dirname(workspace), "prompts.jsonl");
    useMentionAgent(workspace, prompts, false);
    await command(page, "Symposium: Open Chat");
    frame = await chatFrame(page, "#input:visible");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await command(page, "View: Show Explorer");
    await explorerRow(page, "src").click();
    await explorerRow(page, "main.rs").waitFor({ timeout: 15_000 });
    drags = await countDrags(page, frame);
  });

  after(() => closeDemoWindow(browser, server, workspace));

  it("without Shift, VS Code keeps the drag out of the chat; the composer says to Shift+drag", async () => {
    await drag(page, explorerRow(page, "README.md"), frame.locator("#input"), false);
    await page.waitForTimeout(1000);
    const seen = await drags();
    assert.equal(seen.started, 1, "the Explorer started a drag");
    assert.equal(seen.inChat, 0, "no drag event reached the chat page");
    assert.equal(await frame.locator("#input").inputValue(), "");
    assert.match((await frame.locator("#input").getAttribute("placeholder")) ?? "", /@ or Shift\+drag for files/);
  });

  it("Shift+drag of a file from the Explorer onto the composer inserts its mention", async () => {
    await drag(page, explorerRow(page, "README.md"), frame.locator("#input"), true);
    await waitForText(() => frame.locator("#input").inputValue(), /^@README\.md $/, 10_000);
    assert.ok((await drags()).inChat > 0, "the drag reached the chat page");
    assert.equal(await frame.locator("#composer-notice").isHidden(), true, "nothing refused");
  });

  it("several files selected in the Explorer, Shift+dragged onto the transcript, all become mentions", async () => {
    await frame.locator("#input").fill("");
    await explorerRow(page, "README.md").click();
    await explorerRow(page, "main.rs").click({ modifiers: ["Control"] });
    await drag(page, explorerRow(page, "main.rs"), frame.locator("#transcript"), true);
    await waitForText(() => frame.locator("#input").inputValue(), /^@README\.md @src\/main\.rs $/, 10_000);
  });

  it("sent, the dropped files reach the agent as resource_links", async () => {
    await frame.locator("#input").press("End");
    await frame.locator("#input").pressSequentially("what are these?");
    await frame.locator("#input").press("Enter");
    const prompt = await nthPrompt(prompts, 1);
    const links = prompt.filter((block) => block.type === "resource_link");
    assert.deepEqual(
      links.map((block) => [block.uri, block.name]),
      [
        [pathToFileURL(path.join(workspace, "README.md")).href, "README.md"],
        [pathToFileURL(path.join(workspace, "src", "main.rs")).href, "main.rs"],
      ],
      JSON.stringify(prompt),
    );
    assert.equal(prompt.filter((block) => block.type === "resource").length, 0, "no embedded resource: the agent does not take them");
  });

  it("with an agent that takes embedded context, a dropped file reaches it as an embedded resource holding the file", async () => {
    useMentionAgent(workspace, prompts, true);
    const before = { frame, url: frame.url() };
    await command(page, "Symposium: Restart Chat");
    await panelStatusFrame(page, /new conversation/, 60_000);
    // The panel keeps showing the old conversation until the new one is ready: wait until it is gone.
    await waitForText(async () => String(before.frame.isDetached() || before.frame.url() !== before.url), /^true$/, 60_000);
    frame = await chatFrame(page, "#input:visible", 60_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await command(page, "View: Show Explorer");
    await explorerRow(page, "main.rs").click(); // main.rs alone selected: the drag carries only it
    await drag(page, explorerRow(page, "main.rs"), frame.locator("#input"), true);
    await waitForText(() => frame.locator("#input").inputValue(), /^@src\/main\.rs $/, 10_000);
    await frame.locator("#input").press("Enter");
    const prompt = await nthPrompt(prompts, 2);
    const embedded = prompt.filter((block) => block.type === "resource");
    assert.deepEqual(
      embedded.map((block) => [block.resource?.uri, block.resource?.text]),
      [[pathToFileURL(path.join(workspace, "src", "main.rs")).href, fs.readFileSync(path.join(workspace, "src", "main.rs"), "utf8")]],
      JSON.stringify(prompt),
    );
  });

  it("Shift+drag onto the chat in an editor tab (Open Chat in Editor) inserts the mention there", async () => {
    await command(page, "Symposium: Open Chat in Editor");
    await waitForText(async () => String(chatFrames(page).length), /^2$/, 30_000);
    const tab = chatFrames(page).find((each) => each !== frame)!;
    await tab.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await drag(page, explorerRow(page, "README.md"), tab.locator("#input"), true);
    await waitForText(() => tab.locator("#input").inputValue(), /^@README\.md $/, 10_000);
  });
});
