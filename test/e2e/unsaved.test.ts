// The tracker's snapshots of unsaved documents (docs/state-file.md
// "Unsaved documents") in a real VS Code (code-server) in a real browser,
// typed into like a user: a snapshot appears with the editor's text, private,
// and goes when the document is saved, reverted, closed, or the window goes.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import type { StateFile } from "../../editor-state/src/index.js";
import { e2eSkipReason, runCommand, type CodeServer } from "../harness/code-server.js";
import { closeTrackedWindow, openFile, openTrackedWindow, readState, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const skip = e2eSkipReason();
const POSIX = process.platform !== "win32";
const DRAFT = "draft.txt";
const FIRST_TEXT = "saved line\n";

describe("unsaved documents in code-server", { skip, timeout: 600_000 }, () => {
  let window: TrackedWindow;
  let server: CodeServer;
  let page: Page;
  let stateFile: string;
  let draft: string;
  /** What the draft holds on disk (the first test saves it). */
  let onDisk = FIRST_TEXT;

  const listed = (state: StateFile | null) => state?.unsavedDocuments?.find((entry) => entry.path === draft);

  /** Types `text` at the start of the draft (unsaved); returns the snapshot's path once the state file lists it. */
  async function typeUnsaved(text: string): Promise<string> {
    await openFile(page, DRAFT);
    await cursorToStart(page);
    await page.keyboard.type(text);
    const { state } = await waitForState(
      stateFile,
      (s) => listed(s)?.snapshot != null && fs.existsSync(path.join(path.dirname(stateFile), listed(s)!.snapshot!)),
      20_000,
    );
    const snapshot = path.join(path.dirname(stateFile), listed(state)!.snapshot!);
    try {
      await waitForStable(snapshot, text + onDisk);
    } catch (error) {
      throw new Error(`${(error as Error).message}; ${DRAFT} on disk: ${JSON.stringify(fs.readFileSync(draft, "utf8"))}, expected ${JSON.stringify(onDisk)}`, {
        cause: error,
      });
    }
    return snapshot;
  }

  before(async () => {
    window = await openWindowWithoutAutoSave();
    ({ server, page, stateFile } = window);
    draft = path.join(server.workspace, DRAFT);
  });

  after(() => closeTrackedWindow(window));

  it("writes the editor's unsaved text to a private snapshot the state file lists; saving removes it", async () => {
    const snapshot = await typeUnsaved("typed ");
    await page.waitForTimeout(2_500); // longer than the web's auto-save delay: the buffer stays unsaved
    assert.equal(fs.readFileSync(snapshot, "utf8"), `typed ${FIRST_TEXT}`);
    assert.equal(fs.readFileSync(draft, "utf8"), FIRST_TEXT, "nothing saved yet");
    if (POSIX) {
      assert.equal(fs.statSync(snapshot).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(snapshot)).mode & 0o777, 0o700);
    }
    assert.ok(listed(readState(stateFile))!.version >= 2, "the document's version");
    await page.keyboard.press("Control+S");
    await waitForState(stateFile, (s) => s !== null && listed(s) === undefined && !fs.existsSync(snapshot), 20_000);
    onDisk = fs.readFileSync(draft, "utf8");
    assert.equal(onDisk, `typed ${FIRST_TEXT}`);
  });

  it("removes the snapshot when the document is reverted", async () => {
    const snapshot = await typeUnsaved("reverted ");
    await runCommand(page, "File: Revert File");
    await waitForState(stateFile, (s) => s !== null && listed(s) === undefined && !fs.existsSync(snapshot), 20_000);
  });

  it("removes the snapshot when the document is closed without saving", async () => {
    const snapshot = await typeUnsaved("closed ");
    await runCommand(page, "View: Revert and Close Editor");
    await waitForState(stateFile, (s) => s !== null && listed(s) === undefined && !fs.existsSync(snapshot), 20_000);
    assert.equal(fs.readFileSync(draft, "utf8"), onDisk);
  });

  it("removes the state file and every snapshot when the window goes (its extension host deactivates)", async () => {
    const snapshot = await typeUnsaved("lost with the window ");
    const before = readState(stateFile)!.writerPid;
    // A window with unsaved changes asks before it goes (beforeunload): the user says leave.
    page.once("dialog", (dialog) => void dialog.accept());
    await runCommand(page, "Developer: Reload Window");
    // The old host removes its files on deactivate, before the new one writes: both gone at once for a moment.
    await waitForState(stateFile, (s) => s === null && !fs.existsSync(snapshot), 30_000);
    await waitForState(stateFile, (s) => s !== null && s.writerPid !== before, 60_000);
    assert.ok(!fs.existsSync(snapshot), "the old window's snapshot stays gone");
  });
});

/**
 * openTrackedWindow, with the workspace's settings in place before VS Code starts:
 * VS Code for the web saves after a second by default (files.autoSave "afterDelay"),
 * and these buffers must stay unsaved until the test saves them.
 */
async function openWindowWithoutAutoSave(): Promise<TrackedWindow> {
  return openTrackedWindow({ [DRAFT]: FIRST_TEXT, ".vscode/settings.json": JSON.stringify({ "files.autoSave": "off" }) });
}

/** Waits until the file holds `text` (the tracker writes within ~100 ms of the last key). */
async function waitForStable(file: string, text: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = "";
  while (Date.now() < deadline) {
    try {
      last = fs.readFileSync(file, "utf8");
    } catch {
      last = "<missing>";
    }
    if (last === text) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const dir = fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".unsaved-"));
  throw new Error(`${file} holds ${JSON.stringify(last.slice(0, 200))}, expected ${JSON.stringify(text)}; snapshots there now: ${dir.join(", ") || "none"}`);
}

/**
 * Ctrl+Home, until the status bar says the cursor is at the start: right after
 * Quick Open closes, a key can reach the editor before it takes keys again.
 */
async function cursorToStart(page: Page): Promise<void> {
  const position = page.locator('[id="status.editor.selection"]');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+Home");
    try {
      await position.filter({ hasText: /Ln 1, Col 1\b/ }).waitFor({ timeout: 2_000 });
      return;
    } catch (error) {
      if (attempt === 5)
        throw new Error(`the cursor did not move to the start of ${DRAFT}: the status bar says ${JSON.stringify(await position.textContent())}`, {
          cause: error,
        });
    }
  }
}
