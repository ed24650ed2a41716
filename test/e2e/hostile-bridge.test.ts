// Hostile pages and agents at the bridge, in code-server + Chromium: the bridge between
// the chat page, the panel page and the extension against a foreign frame in
// the same window, and the extension's side of an agent's edit under review.
// - A frame of another origin (as Simple Browser, a notebook's output or
//   another extension's webview would be) posts forged `status`, `mention` and
//   `editResult` messages to every frame it can reach through `top.frames`:
//   the panel shows none of them, the composer stays empty, the edit under
//   review stays unwritten.
// - The chat page leaves while VS Code reviews its edit (New chat): a later
//   Accept applies nothing.
// - The user types in the file during the review: Accept keeps the typing and
//   applies the agent's lines; typing on the agent's lines makes Accept refuse.
// - A write too large for the bridge to a file open in VS Code is refused, and
//   the file on disk is untouched.
// The agent is test/fixtures/edit-agent.ts; agent edits are reviewed.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { e2eSkipReason, openFile, visibleText } from "../harness/code-server.js";
import { OUT_DIR } from "../support/processes.js";
import { chatFrame, command, demoWindowSuite, extensionLog, panelStatusFrame, waitForText } from "./panel-helpers.js";
import { askInChat } from "../support/chat-frame.js";
import { waitForState } from "./tracker-helpers.js";

const skip = e2eSkipReason();
const EDIT_AGENT = path.join(OUT_DIR, "test", "fixtures", "edit-agent.js");
const NOTES = "notes.txt";
const EDITOR = ".part.editor .monaco-editor";
const ORIGINAL = "line one\nline two\nline three\n";

describe("the bridge against foreign frames, and the extension's side of a review", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, { "files.autoSave": "off", "symposium.chat.agentEdits": "review" }, ({ workspace }) => {
    fs.writeFileSync(path.join(workspace, NOTES), ORIGINAL);
    fs.writeFileSync(
      path.join(path.dirname(workspace), "config.jsonc"),
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(EDIT_AGENT)}`, proxies: [] }),
    );
  });
  let frame: Frame;
  const notes = () => path.join(demo.workspace, NOTES);

  const ask = (text: string): Promise<void> => askInChat(frame, text);

  /** The review's notification, once it shows. */
  async function reviewToast(page: Page) {
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: `The agent wants to change ${NOTES}` });
    await toast.waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\nthe chat's transcript: ${await frame.locator("#transcript").innerText()}`);
    });
    return toast;
  }

  it("opens the chat with notes.txt open in the editor", async () => {
    await openFile(demo.page, NOTES);
    await command(demo.page, "Symposium: Open Chat");
    frame = await chatFrame(demo.page, "#input:visible");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  });

  it("ignores a foreign frame's forged status, mention and editResult: nothing shown, typed or written", async () => {
    await ask(`write ${NOTES} forged\\n`);
    const toast = await reviewToast(demo.page);
    const forgeries = await watchForgeries(demo.page);
    await postFromForeignFrame(demo.page);
    // Both forgers reached the panel page (the workbench's origin, and an opaque one); their editResults
    // carried the sequential ids the server once used.
    const origins = await waitForText(async () => [...new Set(await forgeries())].sort().join(" "), /^http:\/\/127\.0\.0\.1:\d+ null$/, 10_000);
    assert.match(origins, /null/);
    await demo.page.waitForTimeout(2000);
    assert.equal(fs.readFileSync(notes(), "utf8"), ORIGINAL, "the edit under review is not written");
    assert.equal(await frame.locator("#input").inputValue(), "", "no forged mention in the composer");
    assert.doesNotMatch(await frame.locator("#transcript").innerText(), /wrote notes\.txt/);
    const forgedStatus = await Promise.all(
      demo.page.frames().map((each) =>
        each
          .locator("text=FORGED STATUS")
          .count()
          .catch(() => 0),
      ),
    );
    assert.equal(
      forgedStatus.reduce((a, b) => a + b, 0),
      0,
      "no forged status in any panel",
    );
    assert.equal(await frame.locator("#input").isVisible(), true, "the chat is still on screen");
    await toast.getByRole("button", { name: "Reject" }).click();
    await waitForText(() => frame.locator("#transcript").innerText(), /write failed: the user rejected the edit/, 30_000);
  });

  it("applies nothing on an Accept given after the chat page that asked went away (New chat)", async () => {
    await ask(`write ${NOTES} after the page left\\n`);
    const toast = await reviewToast(demo.page);
    await frame.locator("#new-chat").click();
    frame = await chatFrame(demo.page, "#input:visible");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await waitForText(async () => extensionLog(demo.server), /the chat closed during the review of the agent's edit to .*notes\.txt: not applied/, 15_000);
    if (await toast.isVisible()) await toast.getByRole("button", { name: "Accept" }).click();
    await demo.page.waitForTimeout(1500);
    assert.equal(fs.readFileSync(notes(), "utf8"), ORIGINAL, "nothing written");
    await openFile(demo.page, NOTES);
    assert.doesNotMatch(await visibleText(demo.page, EDITOR), /after the page left/, "nothing applied in the editor");
  });

  it("keeps what the user typed during the review, and applies the agent's lines around it", async () => {
    await ask(`write ${NOTES} line one\\nthe agent's line two\\nline three\\n`);
    const toast = await reviewToast(demo.page);
    await typeAtEndOfLine(demo.page, notes(), 3, " (typed meanwhile)");
    await toast.getByRole("button", { name: "Accept" }).click();
    await waitForText(() => frame.locator("#transcript").innerText(), /wrote notes\.txt/, 30_000);
    const text = await waitForText(() => visibleText(demo.page, EDITOR), /the agent's line two/, 10_000);
    assert.match(text, /line one\nthe agent's line two\nline three \(typed meanwhile\)/);
    // Applied to the document, which the user's typing left unsaved: saved by the user (the next write needs it clean).
    assert.equal(fs.readFileSync(notes(), "utf8"), ORIGINAL, "not saved behind the user's unsaved typing");
    await typeAtEndOfLine(demo.page, notes(), 1, "");
    await demo.page.keyboard.press("Control+S");
    await waitForText(async () => fs.readFileSync(notes(), "utf8"), /typed meanwhile/, 10_000);
    assert.equal(fs.readFileSync(notes(), "utf8"), "line one\nthe agent's line two\nline three (typed meanwhile)\n");
    // The proxy decides on the editor state file, written a moment after the save: the next write waits for it,
    // as an agent answering a person would.
    const stateFile = [...extensionLog(demo.server).matchAll(/editor state file: (\S+\.json)/g)].at(-1)?.[1];
    assert.ok(stateFile, "the extension logs its editor state file");
    await waitForState(stateFile, (state) => state !== null && !(state.unsavedDocuments ?? []).some((document) => document.path.endsWith(NOTES)), 10_000);
  });

  it("refuses (nothing written) when the user changed the agent's lines during the review", async () => {
    await ask(`write ${NOTES} line one\\nthe agent's line two\\nline three, says the agent\\n`);
    const toast = await reviewToast(demo.page);
    await typeAtEndOfLine(demo.page, notes(), 3, "!");
    await toast.getByRole("button", { name: "Accept" }).click();
    await waitForText(() => frame.locator("#transcript").innerText(), /write failed: the user changed the same part of .*notes\.txt/, 30_000);
    assert.match(await visibleText(demo.page, EDITOR), /line three \(typed meanwhile\)!/);
    assert.doesNotMatch(await visibleText(demo.page, EDITOR), /says the agent/);
    await command(demo.page, "File: Revert File");
  });

  it("refuses a write too large for the bridge to the open file; the disk is untouched", async () => {
    await typeAtEndOfLine(demo.page, notes(), 1, ""); // the workspace's notes.txt, open and clean
    await command(demo.page, "File: Revert File");
    const before = fs.readFileSync(notes(), "utf8");
    await ask(`write ${NOTES} x${4 * 1024 * 1024 + 100}`);
    await waitForText(() => frame.locator("#transcript").innerText(), /write failed: the edit to .*notes\.txt is too large to review in VS Code/, 60_000);
    assert.equal(fs.readFileSync(notes(), "utf8"), before);
    await demo.page.locator(".notifications-toasts .notification-toast", { hasText: /too large to review in VS Code/ }).waitFor({ timeout: 10_000 });
  });

  it("the panel still takes its own host's status (Stop, then Start)", async () => {
    await command(demo.page, "Symposium: Stop Chat");
    await panelStatusFrame(demo.page, /stopped/, 30_000);
  });
});

/**
 * Forged extension messages posted to every frame reachable through `top.frames`, as a hostile page
 * in the window can: from the workbench's page itself (in code-server of the webviews' origin, yet
 * not their host), and from a frame of an origin of its own (a data: URL frame, opaque; the code runs
 * in it through the browser's debugger protocol, as the workbench's CSP keeps its own scripts out).
 */
async function postFromForeignFrame(page: Page): Promise<void> {
  const forge = (): void => {
    const forged = [
      { type: "status", status: { kind: "error", message: "FORGED STATUS", retry: true }, seq: 1e9 },
      { type: "mention", path: "forged-mention.md", startLine: 1, endLine: 1 },
      ...Array.from({ length: 40 }, (_, n) => ({ type: "editResult", id: `edit-${n + 1}`, result: "notOpen" })),
    ];
    const reach = (win: Window): void => {
      // eslint-disable-next-line @typescript-eslint/prefer-for-of -- a Window is not iterable
      for (let i = 0; i < win.frames.length; i++) {
        const child = win.frames[i]!;
        for (const message of forged) child.postMessage(message, "*");
        reach(child);
      }
    };
    reach(window.top!);
  };
  await page.evaluate(forge);
  await page.evaluate(() => {
    const attacker = document.createElement("iframe");
    attacker.src = "data:text/html,<title>a page of another origin</title>";
    document.body.appendChild(attacker);
  });
  const deadline = Date.now() + 10_000;
  let attacker = page.frames().find((frame) => frame.url().startsWith("data:text/html"));
  while (!attacker && Date.now() < deadline) {
    await page.waitForTimeout(100);
    attacker = page.frames().find((frame) => frame.url().startsWith("data:text/html"));
  }
  assert.ok(attacker, "the attacker's frame loaded");
  await attacker.evaluate(forge);
}

/** Counts, in each panel page, the forged messages that reached it (by their origin): the forgery did arrive. */
async function watchForgeries(page: Page): Promise<() => Promise<string[]>> {
  const panels = page.frames().filter((each) => each.url().includes("fake.html"));
  for (const panel of panels)
    await panel.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { forgeries: string[] }).forgeries = seen;
      window.addEventListener("message", (event: MessageEvent<{ path?: unknown }>) => {
        if (event.data?.path === "forged-mention.md") seen.push(event.origin);
      });
    });
  return async () => (await Promise.all(panels.map((panel) => panel.evaluate(() => (window as unknown as { forgeries: string[] }).forgeries)))).flat();
}

/**
 * Types `text` at the end of the 1-based `line` of the workspace's file `file`, as a user does. Quick
 * Open is given its full path: by name it would also offer the review's read-only copies of it.
 */
async function typeAtEndOfLine(page: Page, file: string, line: number, text: string): Promise<void> {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible" });
  await input.fill(file);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${path.basename(file)}"]`, { timeout: 45_000 });
  await page.keyboard.press("Enter");
  // Quick Open may show the file in the review's diff, where it is open too (VS Code 1.139 in a narrow editor
  // area): the user then clicks the file's own tab.
  const ownTab = page.locator(`.part.editor .tab[aria-label^="${path.basename(file)}"]:not([aria-label*="proposed"])`).first();
  await ownTab.waitFor({ timeout: 10_000 });
  if (!(await ownTab.evaluate((tab) => tab.classList.contains("active")))) await ownTab.click();
  await page.waitForSelector(`.part.editor .tab.active[aria-label^="${path.basename(file)}"]:not([aria-label*="proposed"])`, { timeout: 10_000 });
  await page.waitForFunction(() => document.activeElement?.closest(".part.editor .monaco-editor:not(.original-in-monaco-diff-editor)") != null, null, {
    timeout: 10_000,
  });
  await page.keyboard.press("Control+Home");
  for (let n = 1; n < line; n++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("End");
  await page.keyboard.type(text);
}
