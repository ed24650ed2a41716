// An agent's fs/write_text_file from the built-in chat to a document open in
// VS Code, in code-server + Chromium, driven like a user:
// the write becomes a workspace edit (the editor shows it, it is saved since
// the document was clean, Ctrl+Z in the editor undoes it); a file not open is
// written to disk; a document with unsaved changes is not written (the one
// policy, editor-state/src/agent-writes.ts); with `symposium.chat.agentEdits` "review" the agent waits
// for Accept (applied) or Reject (the agent gets "the user rejected the edit").
// The agent is test/fixtures/edit-agent.ts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { e2eSkipReason, openFile, visibleText, type CodeServer } from "../harness/code-server.js";
import { OUT_DIR } from "../support/processes.js";
import { chatFrame, closeDemoWindow, command, extensionLog, openDemoWindow, waitForText } from "./panel-helpers.js";
import { askInChat } from "../support/chat-frame.js";

const skip = e2eSkipReason();
const EDIT_AGENT = path.join(OUT_DIR, "test", "fixtures", "edit-agent.js");
const NOTES = "notes.txt";
const EDITOR = ".part.editor .monaco-editor";

describe("an agent's writes to documents open in VS Code (built-in chat)", { skip, timeout: 600_000 }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let frame: Frame;
  let notes: string;

  /** Sends a prompt once the chat is ready (each test waits for the answer it expects). */
  const ask = (text: string): Promise<void> => askInChat(frame, text);

  before(async () => {
    ({ workspace, server, browser, page } = await openDemoWindow({}, { "files.autoSave": "off" }));
    notes = path.join(workspace, NOTES);
    fs.writeFileSync(notes, "first line\n");
    fs.writeFileSync(
      path.join(path.dirname(workspace), "config.jsonc"),
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(EDIT_AGENT)}`, proxies: [] }),
    );
    await command(page, "Symposium: Open Chat");
    frame = await chatFrame(page, "#input:visible");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  });

  after(() => closeDemoWindow(browser, server, workspace));

  it("applies the write to the open clean document (shown, saved), and Ctrl+Z in the editor undoes it", async () => {
    await openFile(page, NOTES);
    await ask(`write ${NOTES} written by the agent\\n`);
    await waitForText(() => frame.locator("#transcript").innerText(), new RegExp(`wrote ${NOTES}`), 30_000);
    await waitForText(() => visibleText(page, EDITOR), /written by the agent/, 10_000);
    assert.equal(fs.readFileSync(notes, "utf8"), "written by the agent\n", "saved: the document was clean");
    // Through VS Code, not behind its back: the extension applied it to the open document.
    assert.match(extensionLog(server), /the agent writes .*notes\.txt, open in VS Code: applying it/);
    await page.locator(`${EDITOR} .view-lines`).first().click();
    await page.keyboard.press("Control+Z");
    await waitForText(() => visibleText(page, EDITOR), /first line/, 10_000);
    // Undo leaves the document unsaved with the old text: revert to what is on disk for the next step.
    await command(page, "File: Revert File");
    await waitForText(() => visibleText(page, EDITOR), /written by the agent/, 10_000);
  });

  it("writes a file that is not open to disk, as before", async () => {
    await ask("write elsewhere.txt on disk only\\n");
    await waitForText(() => frame.locator("#transcript").innerText(), /wrote elsewhere\.txt/, 30_000);
    assert.equal(fs.readFileSync(path.join(workspace, "elsewhere.txt"), "utf8"), "on disk only\n");
  });

  it("refuses a write to a document with unsaved changes, as the proxy would: the user's text stays, nothing on disk changes", async () => {
    // This chat runs no editor-context proxy (`proxies: []`): the refusal is the extension's, the same policy.
    await openFile(page, NOTES);
    await page.locator(`${EDITOR} .view-lines`).first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("typed, not saved");
    await waitForText(() => visibleText(page, EDITOR), /typed, not saved/, 10_000);
    await ask(`write ${NOTES} over the user's work\\n`);
    await waitForText(
      () => frame.locator("#transcript").innerText(),
      /write failed: notes\.txt has unsaved changes in the editor; save or revert it first/,
      30_000,
    );
    assert.equal(fs.readFileSync(notes, "utf8"), "written by the agent\n", "nothing written to disk");
    assert.match(await visibleText(page, EDITOR), /typed, not saved/, "the user's unsaved text is there");
    assert.doesNotMatch(await visibleText(page, EDITOR), /over the user's work/);
    await command(page, "File: Revert File");
    await waitForText(async () => ((await visibleText(page, EDITOR)).includes("typed, not saved") ? "" : "reverted"), /reverted/, 10_000);
  });

  it("review: shows the diff and waits; Accept applies the edit", async () => {
    // The workspace's settings, as a user sets them for this project (VS Code watches the file).
    fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "symposium.chat.agentEdits": "review" }));
    await waitForText(async () => extensionLog(server), /settings changed: .*"chatAgentEdits":"review"/, 30_000);
    await ask(`write ${NOTES} accepted edit\\n`);
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: `The agent wants to change ${NOTES}` });
    await toast.waitFor({ timeout: 30_000 }).catch(async (error: Error) => {
      const transcript = await frame.locator("#transcript").innerText();
      throw new Error(
        `${error.message}; transcript: ${transcript.slice(-300)}; on disk: ${fs.readFileSync(notes, "utf8")}; log: ${extensionLog(server).slice(-1500)}`,
      );
    });
    await page.locator(".part.editor .monaco-diff-editor").first().waitFor({ timeout: 10_000 });
    assert.equal(fs.readFileSync(notes, "utf8"), "written by the agent\n", "nothing written before the answer");
    assert.doesNotMatch(await frame.locator("#transcript").innerText(), /accepted edit\n?\s*wrote/, "the agent still waits");
    await toast.getByRole("button", { name: "Accept" }).click();
    await waitForText(() => frame.locator("#transcript").innerText(), /wrote notes\.txt[\s\S]*wrote elsewhere\.txt[\s\S]*wrote notes\.txt/, 30_000);
    assert.equal(fs.readFileSync(notes, "utf8"), "accepted edit\n");
  });

  it("review: Reject leaves the file as it was and the agent gets the error", async () => {
    await ask(`write ${NOTES} rejected edit\\n`);
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: `The agent wants to change ${NOTES}` });
    await toast.waitFor({ timeout: 30_000 });
    await toast.getByRole("button", { name: "Reject" }).click();
    await waitForText(() => frame.locator("#transcript").innerText(), /write failed: the user rejected the edit to .*notes\.txt/, 30_000);
    assert.equal(fs.readFileSync(notes, "utf8"), "accepted edit\n");
    await openFile(page, NOTES);
    assert.match(await visibleText(page, EDITOR), /accepted edit/);
    assert.doesNotMatch(await visibleText(page, EDITOR), /rejected edit/);
  });
});
