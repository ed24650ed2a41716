// The editor state tracker in a real VS Code (code-server) in a real browser,
// driven with the keyboard like a user: what one window writes. Several
// windows, reloads, the idle refresh and the setting: tracker-windows.test.ts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import type { StateFile } from "../../editor-state/src/index.js";
import { e2eSkipReason, runCommand, visibleText, type CodeServer } from "../harness/code-server.js";
import { STATUS_ITEM, closeTrackedWindow, openFile, openTrackedWindow, readState, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const skip = e2eSkipReason();
/**
 * Whether the editor's text shows `expected`, however its lines wrap: VS Code 1.139 opens the view
 * beside in a narrow group, where a line wraps even inside a path ("src/main." | "rs").
 */
const shows = (text: string, expected: string): boolean => text.replace(/\s+/g, "").includes(expected.replace(/\s+/g, ""));
const POSIX = process.platform !== "win32";

describe("editor state tracker in code-server", { skip, timeout: 600_000 }, () => {
  let window: TrackedWindow;
  let server: CodeServer;
  let page: Page;
  let stateFile: string;

  before(async () => {
    window = await openTrackedWindow({ "notes.txt": "alpha\nbeta\nalpha\n", "broken.json": '{\n  "a": 1\n  "b": 2\n}\n' });
    ({ server, page, stateFile } = window);
  });

  after(() => closeTrackedWindow(window));

  it("writes each selection made with Shift+Down, the last line being the last one selected", async () => {
    await openFile(page, "main.rs");
    await page.keyboard.press("Control+Home");
    // Three selections, one more line each time: each must reach the file. How soon is a
    // benchmark's question (P7: the tracker's own part), not a pass/fail limit here.
    const delays: number[] = [];
    let state: StateFile | null = null;
    for (const endLine of [1, 2, 3]) {
      const started = Date.now();
      await page.keyboard.press("Shift+ArrowDown");
      ({ state } = await waitForState(stateFile, (s) => s?.selection?.endLine === endLine, 10_000));
      delays.push(Date.now() - started);
    }
    console.log(`selection in the state file after ${delays.join(", ")} ms (load average ${os.loadavg()[0]!.toFixed(1)})`);
    assert.equal(state!.activeFile, path.join(server.workspace, "src", "main.rs"));
    assert.equal(state!.languageId, "rust");
    assert.deepEqual(state!.selection, {
      text: 'fn main() {\n    let greeting = "hello from the sample workspace";\n    println!("{greeting}");\n',
      startLine: 1,
      endLine: 3,
    });
    assert.deepEqual(state!.workspaceFolders, [server.workspace]);
    assert.equal(state!.version, 1);
  });

  it("keeps the file private: 0600 in a 0700 directory of this user's", { skip: POSIX ? false : "POSIX modes" }, () => {
    assert.equal(fs.statSync(stateFile).mode & 0o777, 0o600);
    const dir = fs.lstatSync(path.dirname(stateFile));
    assert.equal(dir.mode & 0o777, 0o700);
    assert.equal(dir.uid, process.getuid!());
    assert.match(path.basename(stateFile), /^editor-state-[0-9a-f]{32}\.json$/);
  });

  it("writes two selections, then the cursor alone", async () => {
    await openFile(page, "notes.txt");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+D");
    await page.keyboard.press("Control+D");
    const { state } = await waitForState(stateFile, (s) => s?.selections?.length === 2);
    assert.deepEqual(state!.selections, [
      { text: "alpha", startLine: 1, endLine: 1 },
      { text: "alpha", startLine: 3, endLine: 3 },
    ]);
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("End");
    const cursor = await waitForState(
      stateFile,
      (s) => s !== null && s.selections === undefined && s.selection === null && s.cursor?.line === 1 && s.cursor.character === 6,
    );
    assert.deepEqual(cursor.state!.cursor, { line: 1, character: 6 });
    assert.equal(cursor.state!.selection, null);
  });

  it("flips isDirty on an unsaved edit and back on undo", async () => {
    await page.keyboard.type("!");
    await waitForState(stateFile, (s) => s?.isDirty === true && s.activeFile?.endsWith("notes.txt") === true);
    await page.keyboard.press("Control+Z");
    await waitForState(stateFile, (s) => s?.isDirty === false && s.activeFile?.endsWith("notes.txt") === true);
  });

  it("lists an error inside the selection as a diagnostic", async () => {
    await openFile(page, "broken.json");
    await page.keyboard.press("Control+A");
    const { state } = await waitForState(stateFile, (s) => s?.activeFile?.endsWith("broken.json") === true && s.diagnostics.length > 0, 30_000);
    const diagnostic = state!.diagnostics.find((entry) => /comma/i.test(entry.message));
    assert.ok(diagnostic, JSON.stringify(state!.diagnostics));
    assert.equal(diagnostic.line, 3);
    assert.equal(diagnostic.severity, "error");
    assert.equal(diagnostic.source, "json");
  });

  it("keeps the editor's context while focus is in the Symposium panel, a terminal or the output view", async () => {
    await openFile(page, "main.rs");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Shift+ArrowDown");
    await waitForState(stateFile, (s) => s?.activeFile?.endsWith("main.rs") === true && s.selection?.endLine === 1);
    const stillMainRs = (s: StateFile | null) => s?.activeFile?.endsWith("main.rs") === true && s.selection?.endLine === 1;
    await page.keyboard.press("Control+Alt+Y");
    await page.waitForTimeout(800);
    assert.ok(stillMainRs(readState(stateFile)), `panel: ${JSON.stringify(readState(stateFile))}`);
    // The chat's frame keeps the keys: a user clicks to leave it. Into the output view, here.
    await page.locator(".part.panel .composite-bar .action-item", { hasText: /^output$/i }).click();
    await page.locator(".part.panel .output-view .monaco-editor .view-lines").first().click();
    await page.waitForTimeout(800);
    assert.ok(stillMainRs(readState(stateFile)), `output: ${JSON.stringify(readState(stateFile))}`);
    // Last: a focused terminal takes keys (F1 too) for its shell.
    await page.keyboard.press("Control+Backquote");
    // A terminal starts a shell through a pty: slow on a loaded machine.
    await page.waitForSelector(".part.panel .terminal-wrapper", { timeout: 60_000 });
    await page.waitForTimeout(800);
    assert.ok(stillMainRs(readState(stateFile)), `terminal: ${JSON.stringify(readState(stateFile))}`);
    // Back to the editor, and the panel closed (View: Toggle Panel) so the chat's frame cannot take the keys.
    await page.locator(".part.editor .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+J");
    await page.waitForSelector(".part.panel", { state: "hidden", timeout: 10_000 });
  });

  it("shows the exact block in Show Editor Context, following the selection", async () => {
    await openFile(page, "main.rs");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Shift+ArrowDown");
    await runCommand(page, "Symposium: Show Editor Context");
    let text = "";
    for (let i = 0; i < 40 && !shows(text, "Selected text (line 1)"); i++) {
      await page.waitForTimeout(250);
      text = await visibleText(page, ".part.editor");
    }
    assert.ok(shows(text, "<editor-context>\nActive file: src/main.rs (rust)"), text);
    assert.ok(shows(text, "Selected text (line 1):"), text);
    // Back into main.rs (the first editor group), a longer selection: the view follows.
    await page.locator(".part.editor .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    for (let i = 0; i < 40 && !shows(text, "Selected text (lines 1-2)"); i++) {
      await page.waitForTimeout(250);
      text = await visibleText(page, ".part.editor");
    }
    assert.ok(shows(text, "Selected text (lines 1-2):"), `the view follows the selection: ${text}`);
  });

  it("shows what it shares in the status bar; a click there turns sharing off (file removed) and on again", async () => {
    const item = page.locator(STATUS_ITEM);
    await page.waitForSelector(`${STATUS_ITEM}:has-text("main.rs:1-2")`, { timeout: 10_000 });
    await item.click();
    await waitForState(stateFile, () => !fs.existsSync(stateFile), 20_000);
    await page.waitForSelector(`${STATUS_ITEM}:has-text("Context off")`, { timeout: 10_000 });
    await item.click();
    const { state } = await waitForState(stateFile, (s) => s !== null, 20_000);
    assert.ok(state!.activeFile?.endsWith("main.rs"), "written again, at the same path");
  });

  it("clears the active file when every editor is closed", async () => {
    await runCommand(page, "View: Close All Editors");
    await waitForState(stateFile, (s) => s !== null && s.activeFile === null && s.document === null && s.selection === null);
  });
});
