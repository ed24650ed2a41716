// Helpers for the panel's end-to-end tests (and the reload benchmark,
// bench/figures/panel-reload.ts): a demo window in code-server, the chat's
// frame, the panel's status frame, commands from the palette, user settings.

import * as fs from "node:fs";
import * as path from "node:path";
import { after, before } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import {
  copySampleWorkspace,
  launchBrowser,
  openWorkbench,
  paletteRows,
  runCommand,
  startCodeServer,
  type CodeServer,
  type StartOptions,
} from "../harness/code-server.js";
import { CONDUCTOR_CLI, REPO_DIR, tempDir } from "../support/processes.js";

export interface DemoWindow {
  workspace: string;
  server: CodeServer;
  browser: Browser;
  page: Page;
}

/**
 * A workspace copy and a conductor config that runs the demo agent (as `npm start` sets
 * up), in code-server with `settings`, open in Chromium.
 */
export async function openDemoWindow(env: NodeJS.ProcessEnv, settings: Record<string, unknown> = {}, start: StartOptions = {}): Promise<DemoWindow> {
  const root = tempDir("symposium-panel-");
  const workspace = copySampleWorkspace(path.join(root, "workspace"));
  const config = path.join(root, "config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(CONDUCTOR_CLI)} demo-agent`, proxies: [] }));
  Object.assign(process.env, env, { SYMPOSIUM_CONFIG: config });
  const server = await startCodeServer(workspace, start);
  let browser: Browser | undefined;
  try {
    setUserSettings(server, settings);
    browser = await launchBrowser();
    return { workspace, server, browser, page: await openWorkbench(browser, server) };
  } catch (error) {
    // The caller never gets the window to close: stop what was started here.
    await closeDemoWindow(browser, server);
    throw error;
  }
}

/**
 * Called inside a describe: its demo window, opened (openDemoWindow) before its first test
 * with `settings` (or what they resolve to there) in a code-server started with `start`, then handed to `setUp`; closed after its
 * last test. Its fields are the window's once opened.
 */
export function demoWindowSuite(
  env: NodeJS.ProcessEnv = {},
  settings: Record<string, unknown> | (() => Promise<Record<string, unknown>>) = {},
  setUp?: (window: DemoWindow) => Promise<void> | void,
  start: StartOptions = {},
): DemoWindow {
  let window: DemoWindow | undefined;
  before(async () => {
    window = await openDemoWindow(env, typeof settings === "function" ? await settings() : settings, start);
    await setUp?.(window);
  });
  after(() => closeDemoWindow(window?.browser, window?.server));
  const opened = (): DemoWindow => {
    if (!window) throw new Error("the demo window opens in the describe's before hook: use it inside a test");
    return window;
  };
  return {
    get workspace() {
      return opened().workspace;
    },
    get server() {
      return opened().server;
    },
    get browser() {
      return opened().browser;
    },
    get page() {
      return opened().page;
    },
  };
}

/**
 * Closes the browser and stops code-server with everything it started (the chat hosts and
 * what runs under them), even when closing the browser fails. `_workspace` is no longer
 * needed (CodeServer.stop finds the hosts); callers still pass it.
 */
export async function closeDemoWindow(browser: Browser | undefined, server: CodeServer | undefined, _workspace?: string): Promise<void> {
  try {
    await browser?.close();
  } finally {
    await server?.stop();
  }
}

/** The chat's frame: the one loaded from the gate (its URL carries the secret). */
export async function chatFrame(page: Page, ready: string, timeoutMs = 30_000, notOnPort?: number): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (!/[?&]token=/.test(frame.url()) || gatePort(frame) === notOnPort) continue;
      if (
        (await frame
          .locator(ready)
          .count()
          .catch(() => 0)) > 0
      )
        return frame;
    }
    if (Date.now() > deadline) {
      const shot = path.join(tempDir("symposium-panel-shot-"), "no-chat.png");
      await page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(
        `no chat frame with ${ready} (screenshot: ${shot}): ${page
          .frames()
          .map((frame) => frame.url())
          .join(" | ")}`,
      );
    }
    await page.waitForTimeout(200);
  }
}

/** The panel's own page (webview/src/panel-html.ts) once its status message matches `pattern`. */
export async function panelStatusFrame(page: Page, pattern: RegExp, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  let seen = "";
  for (;;) {
    for (const frame of page.frames().filter((each) => each.url().includes("fake.html"))) {
      const text = await frame
        .locator("main#status #message")
        .innerText({ timeout: 500 })
        .catch(() => "");
      if (pattern.test(text)) return frame;
      if (text) seen = text;
    }
    if (Date.now() > deadline) throw new Error(`the panel never showed ${pattern}; last: ${seen}`);
    await page.waitForTimeout(250);
  }
}

/** Waits until the extension is active in the window (its status bar item shows): on a loaded machine that can take minutes. */
export async function symposiumActive(page: Page, timeoutMs = 180_000): Promise<void> {
  // The item's text: "No editor", "Context off", or what is shared; its accessible name is the item's name.
  await page
    .locator(
      '.part.statusbar .statusbar-item[aria-label*="Symposium"], .part.statusbar .statusbar-item:has-text("No editor"), .part.statusbar .statusbar-item:has-text("Context off")',
    )
    .first()
    .waitFor({ timeout: timeoutMs });
}

/** Runs a command from the palette; first gives the workbench the keyboard (in the chat, F1 goes to its page). */
export async function command(page: Page, title: string): Promise<void> {
  const editor = page.locator(".part.editor");
  if (await editor.isVisible()) await editor.click({ position: { x: 600, y: 300 } });
  else
    await page
      .locator(".part.panel .composite.title")
      .first()
      .click({ position: { x: 600, y: 10 } }); // the panel is maximized
  await runCommand(page, title);
}

export async function waitForText(read: () => Promise<string>, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = "";
  while (Date.now() < deadline) {
    text = await read();
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`never saw ${pattern}; last:\n${text}`);
}

/** Writes user settings into settings.json before the workbench opens; `undefined` removes a setting. */
export function setUserSettings(server: CodeServer, changes: Record<string, unknown>): string {
  // A machine-scoped setting goes to the remote (machine) settings: VS Code 1.99 also read it
  // from the user's, VS Code 1.139 ignores it there in a remote window such as code-server's.
  const machine = Object.keys(changes).filter((key) => MACHINE_SCOPED.has(key));
  const user = Object.keys(changes).filter((key) => !MACHINE_SCOPED.has(key));
  if (machine.length) writeSettingsFile(path.join(server.userDataDir, "Machine", "settings.json"), pick(changes, machine));
  return writeSettingsFile(path.join(server.userDataDir, "User", "settings.json"), pick(changes, user));
}

/** Applies `changes` to a settings file (created when missing; `undefined` removes a setting); returns its new text. */
function writeSettingsFile(file: string, changes: Record<string, unknown>): string {
  const current = (fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() ? JSON.parse(fs.readFileSync(file, "utf8")) : {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete current[key];
    else current[key] = value;
  }
  const text = JSON.stringify(current, null, 2);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return text;
}

/** Settings VS Code reads from the machine VS Code runs on (package.json: "scope": "machine"). */
const MACHINE_SCOPED = new Set(
  Object.entries(
    (
      JSON.parse(fs.readFileSync(path.join(REPO_DIR, "package.json"), "utf8")) as {
        contributes: { configuration: { properties: Record<string, { scope?: string }> } };
      }
    ).contributes.configuration.properties,
  )
    .filter(([, property]) => property.scope === "machine")
    .map(([key]) => key),
);

/**
 * Changes settings while VS Code runs, as a user does: opens the settings.json the setting
 * lives in (a machine-scoped one in a remote window such as code-server's: the remote
 * settings), replaces its text, saves, closes it. (code-server does not notice a write to
 * the file from outside in good time.) `undefined` removes a setting.
 */
export async function editSettings(page: Page, server: CodeServer, changes: Record<string, unknown>): Promise<void> {
  const machine = Object.keys(changes).filter((key) => MACHINE_SCOPED.has(key));
  const user = Object.keys(changes).filter((key) => !MACHINE_SCOPED.has(key));
  if (machine.length)
    await editSettingsFile(page, path.join(server.userDataDir, "Machine", "settings.json"), "Preferences: Open Remote Settings (JSON)", pick(changes, machine));
  if (user.length)
    await editSettingsFile(page, path.join(server.userDataDir, "User", "settings.json"), "Preferences: Open User Settings (JSON)", pick(changes, user));
}

/**
 * Changes User settings as a user does, whatever the settings' scope: where a user puts a machine
 * setting by mistake in a remote window (code-server's is one), where VS Code does not read it.
 */
export async function editUserSettings(page: Page, server: CodeServer, changes: Record<string, unknown>): Promise<void> {
  await editSettingsFile(page, path.join(server.userDataDir, "User", "settings.json"), "Preferences: Open User Settings (JSON)", changes);
}

function pick(changes: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, changes[key]]));
}

async function editSettingsFile(page: Page, file: string, opener: string, changes: Record<string, unknown>): Promise<void> {
  const current = (fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() ? JSON.parse(fs.readFileSync(file, "utf8")) : {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete current[key];
    else current[key] = value;
  }
  await command(page, opener);
  await page.waitForFunction(() => document.activeElement?.closest(".part.editor .monaco-editor") != null, null, { timeout: 15_000 });
  await page.waitForTimeout(300);
  await page.keyboard.press("Control+A");
  // One line (no auto-indent), and nothing left after it (no auto-closed bracket).
  await page.keyboard.insertText(JSON.stringify(current));
  await page.keyboard.press("Control+Shift+End");
  await page.keyboard.press("Delete");
  await page.keyboard.press("Control+S");
  await page.waitForSelector(".part.editor .tab.active:not(.dirty)", { timeout: 10_000 });
  await command(page, "View: Close Editor");
}

/** The extension's log (its LogOutputChannel "Symposium", as VS Code writes it to disk). */
export function extensionLog(server: CodeServer): string {
  const logs = path.join(server.userDataDir, "logs");
  const files = fs.existsSync(logs) ? (fs.readdirSync(logs, { recursive: true }) as string[]).filter((file) => path.basename(file) === "Symposium.log") : [];
  return files.map((file) => fs.readFileSync(path.join(logs, file), "utf8")).join("\n");
}

export function gatePort(frame: Frame): number {
  const url = new URL(frame.url());
  const proxied = /\/proxy\/(\d+)\//.exec(url.pathname);
  return Number(proxied ? proxied[1] : url.port);
}

/** "Preferences: Color Theme", as a user picks one. */
export async function chooseColorTheme(page: Page, name: string): Promise<void> {
  // The row itself: typing its title also lists "Browse Color Themes in Marketplace", sometimes first.
  await paletteRows(page, "Preferences: Color Theme");
  await page.locator('.quick-input-list .monaco-list-row[aria-label^="Preferences: Color Theme"]').first().click();
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.fill(name);
  await page
    .locator(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`)
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(async (error: Error) => {
      const rows = await page.$$eval(".quick-input-widget .monaco-list-row", (elements) => elements.map((row) => row.getAttribute("aria-label")));
      const title = await page
        .locator(".quick-input-widget")
        .innerText()
        .catch(() => "");
      throw new Error(`${error.message}; rows: ${rows.join(" | ")}; widget: ${title.slice(0, 300)}`);
    });
  await page.keyboard.press("Enter");
  await page.waitForTimeout(500);
}

/** What the chat panel shows at one moment: its status line, its kept copy of the conversation, the chat page's transcript. */
export interface PanelLook {
  status: string;
  kept: string;
  chat: string;
  /** The chat page's own status line ("Connecting…", "Ready"), when its page is on screen. */
  chatStatus: string;
  /** The chat's frame in the panel's page: none, or hidden or shown, with the address it loads (for a failure's message). */
  frame?: string;
  /** When it was seen (wall clock). */
  at?: number;
}

/** The panel's page as it is now (once loaded: its script has run), or undefined while there is none. */
export async function lookAtPanel(page: Page): Promise<PanelLook | undefined> {
  for (const panel of page.frames().filter((frame) => frame.url().includes("fake.html"))) {
    const look = await panel
      .evaluate(() => {
        const shown = (id: string) => {
          const element = document.getElementById(id);
          return element && !element.hidden ? element.innerText : "";
        };
        if (document.readyState === "loading" || !document.getElementById("status")) return undefined;
        const frame = document.querySelector("iframe#chat");
        const described =
          frame instanceof HTMLIFrameElement ? `${frame.hidden ? "hidden" : "shown"} ${frame.src ? new URL(frame.src).pathname : "(no src yet)"}` : "none";
        return {
          status: shown("status"),
          kept: shown("kept"),
          chatShown: shown("chat") !== "" || !!document.querySelector("#chat:not([hidden])"),
          frame: described,
        };
      })
      .catch(() => undefined);
    if (!look) continue;
    const chat = panel.childFrames().find((frame) => /[?&]token=/.test(frame.url()));
    const seen =
      chat && look.chatShown
        ? await chat
            .evaluate(() => ({ text: document.getElementById("transcript")?.innerText ?? "", status: document.getElementById("status")?.innerText ?? "" }))
            .catch(() => ({ text: "", status: "" }))
        : { text: "", status: "" };
    return { status: look.status, kept: look.kept, chat: seen.text, chatStatus: seen.status, frame: `${look.frame}; chat page: ${chat ? "loaded" : "none"}` };
  }
  return undefined;
}

/** Every look at the panel, as often as the browser answers, until `done` says the chat is back. */
export async function watchPanel(page: Page, done: (look: PanelLook) => boolean, timeoutMs: number): Promise<PanelLook[]> {
  const looks: PanelLook[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const look = await lookAtPanel(page);
    if (look) looks.push({ ...look, at: Date.now() });
    if (look && done(look)) return looks;
    await page.waitForTimeout(20);
  }
  const shot = path.join(tempDir("symposium-panel-shot-"), "not-back.png");
  await page.screenshot({ path: shot }).catch(() => undefined);
  throw new Error(`the chat did not come back (screenshot: ${shot}); the panel showed: ${JSON.stringify(looks.slice(-3))}`);
}
