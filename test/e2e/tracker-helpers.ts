// Helpers for the tracker's end-to-end tests: the state file as the tests
// see it, and where a user finds its path (the extension's log).

import * as fs from "node:fs";
import * as path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { StateFile } from "../../editor-state/src/index.js";
import { copySampleWorkspace, launchBrowser, openWorkbench, startCodeServer, type CodeServer } from "../harness/code-server.js";
import { tempDir } from "../support/processes.js";

export const STATUS_ITEM = '[id="symposium-dev.symposium-vscode.symposium.editorContext"]';

export function readState(file: string): StateFile | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as StateFile;
  } catch {
    return null;
  }
}

/** Polls until `predicate` holds for the file's content; returns it and how long that took. */
export async function waitForState(
  file: string,
  predicate: (state: StateFile | null) => boolean,
  timeoutMs = 5_000,
): Promise<{ state: StateFile | null; ms: number }> {
  const started = Date.now();
  let state = readState(file);
  while (!predicate(state)) {
    if (Date.now() - started > timeoutMs) throw new Error(`state file never matched; last: ${JSON.stringify(state)?.slice(0, 600)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    state = readState(file);
  }
  return { state, ms: Date.now() - started };
}

/** Every extension log file (one per window's extension host) with the state file path it names last. */
export function statePathsInLogs(userDataDir: string): Map<string, string> {
  const found = new Map<string, string>();
  const logs = path.join(userDataDir, "logs");
  if (!fs.existsSync(logs)) return found;
  for (const entry of fs.readdirSync(logs, { recursive: true }).map(String)) {
    if (path.basename(entry) !== "Symposium.log") continue;
    const matches = [...fs.readFileSync(path.join(logs, entry), "utf8").matchAll(/editor state file: (\S+\.json)/g)];
    if (matches.length > 0) found.set(entry, matches.at(-1)![1]!);
  }
  return found;
}

/** Waits for a window's log that was not there before and returns the path it names. */
export async function newWindowStatePath(userDataDir: string, known: Set<string>): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const [log, file] of statePathsInLogs(userDataDir)) {
      if (!known.has(log)) {
        known.add(log);
        return file;
      }
    }
    if (Date.now() > deadline) throw new Error("no new window logged its editor state file");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible" });
  await input.fill(name);
  // The list filters as it goes: wait until the file is the first row, the one Enter opens.
  await page.waitForSelector(`.quick-input-list .monaco-list-row[data-index="0"][aria-label*="${name}"]`, { timeout: 20_000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.part.editor .tab.active[aria-label*="${name}"]`, { timeout: 20_000 });
  await page.waitForFunction(() => document.activeElement?.closest(".part.editor .monaco-editor") != null, null, { timeout: 10_000 });
}

export interface TrackedWindow {
  server: CodeServer;
  browser: Browser;
  page: Page;
  /** The state file the window's log names. */
  stateFile: string;
  /** Extension logs already seen: a new one is a new window (or a reload). */
  knownLogs: Set<string>;
}

/**
 * A copy of the fixture workspace plus `files` (paths relative to it), served by code-server, with one window
 * open on it; `root`: the profile, where a test installed extensions of its own (startCodeServer).
 */
export async function openTrackedWindow(files: Record<string, string> = {}, root?: string): Promise<TrackedWindow> {
  const workspace = copySampleWorkspace(path.join(tempDir("symposium-ws-"), "workspace"), files);
  const server = await startCodeServer(workspace, { root });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const page = await openWorkbench(browser, server);
    const knownLogs = new Set<string>();
    const stateFile = await newWindowStatePath(server.userDataDir, knownLogs);
    return { server, browser, page, stateFile, knownLogs };
  } catch (error) {
    // The caller never gets the window to close: stop what was started here.
    await browser?.close().catch(() => undefined);
    await server.stop();
    throw error;
  }
}

export async function closeTrackedWindow(window: TrackedWindow | undefined): Promise<void> {
  try {
    await window?.browser.close();
  } finally {
    await window?.server.stop();
  }
}
