// A real VS Code for end-to-end tests: code-server (installed by
// scripts/install-code-server.sh), with the packaged .vsix installed into a
// fresh user-data dir, driven in Debian's Chromium through playwright-core.

import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import getPort from "get-port";
import { applyEdits, modify, parse as parseJsonc, type ParseError } from "jsonc-parser";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { descendantsOf, isAlive, stopProcessTree } from "../../acp-wire/src/processes.js";
import { hostProcesses } from "../support/panel-host.js";
import { REPO_DIR, tempDir } from "../support/processes.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const VSIX = path.join(REPO_DIR, "dist", "symposium.vsix");
const VSCE = path.join(REPO_DIR, "node_modules", "@vscode", "vsce", "vsce");

/** One VS Code the end-to-end tests run on (test/harness/vscode-targets.json). */
export interface VsCodeTarget {
  /** "oldest" (what engines.vscode promises) or "newest". */
  name: string;
  codeServer: string;
  vscode: string;
  /** The Node version it runs on, from npm's Node binary package; null: the machine's own. */
  node: string | null;
}

/** Names the target to run on; the runner sets it for each pass of the end-to-end phase. */
export const VSCODE_TARGET_ENV = "SYMPOSIUM_VSCODE";

export function vsCodeTargets(): VsCodeTarget[] {
  const file = path.join(REPO_DIR, "test", "harness", "vscode-targets.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { targets: VsCodeTarget[] }).targets;
}

/** The target SYMPOSIUM_VSCODE names (the oldest when unset). */
export function vsCodeTarget(): VsCodeTarget {
  const targets = vsCodeTargets();
  const name = process.env[VSCODE_TARGET_ENV] || targets[0]!.name;
  const target = targets.find((candidate) => candidate.name === name);
  if (!target) throw new Error(`${VSCODE_TARGET_ENV}=${name} names no VS Code in vscode-targets.json (${targets.map((t) => t.name).join(", ")})`);
  return target;
}

function cacheDir(): string {
  return process.env.SYMPOSIUM_CACHE ?? path.join(os.homedir(), ".cache", "symposium");
}

export function codeServerEntry(target = vsCodeTarget()): string {
  return path.join(cacheDir(), `code-server-${target.codeServer}`, "node_modules", "code-server", "out", "node", "entry.js");
}

/** The Node that runs the target's code-server: the one installed beside it, or this process's own. */
export function codeServerNode(target = vsCodeTarget()): string {
  if (target.node === null) return process.execPath;
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  return path.join(cacheDir(), `node-${target.node}`, "node_modules", `node-${process.platform}-${arch}`, "bin", "node");
}

/**
 * Why the end-to-end tests cannot run here, or false when they can. Under CI
 * (`CI` set, as CI services do) a missing piece is an error, not a skip: a run
 * that never opened the panel must not pass.
 */
export function e2eSkipReason(): string | false {
  return skipUnlessCI(missingForEndToEnd());
}

/** `reason` to skip for, or, under CI, an error saying why the tests cannot run. */
export function skipUnlessCI(reason: string | false, what = "the end-to-end tests"): string | false {
  if (reason && isCI()) throw new Error(`${reason}; CI is set, so ${what} may not be skipped`);
  return reason;
}

/** Why the tests that drive a page in Chromium cannot run here, or false; under CI an error instead. */
export function chromiumSkipReason(): string | false {
  return skipUnlessCI(fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`, "the tests in Chromium");
}

function missingForEndToEnd(): string | false {
  const target = vsCodeTarget();
  if (!fs.existsSync(codeServerEntry(target)) || !fs.existsSync(codeServerNode(target))) {
    return `code-server ${target.codeServer} (VS Code ${target.vscode}, the ${target.name}) is not installed (run scripts/install-code-server.sh)`;
  }
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
  if (!fs.existsSync(VSIX)) return "no dist/symposium.vsix (run npm run package)";
  return false;
}

/** `CI=true` (GitHub Actions, GitLab, most services) or any other value but "false"/"0". */
export function isCI(): boolean {
  const value = process.env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "false" && value !== "0";
}

/** Copies the sample workspace (test/fixtures/workspace) to `workspace`, adding `files` (paths relative to it). */
export function copySampleWorkspace(workspace: string, files: Record<string, string> = {}): string {
  fs.cpSync(path.join(REPO_DIR, "test", "fixtures", "workspace"), workspace, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  return workspace;
}

export interface CodeServer {
  url: string;
  /** code-server's login password (it never runs without authentication). */
  password: string;
  workspace: string;
  userDataDir: string;
  log(): string;
  /** Stops code-server and everything its extensions started: the chat hosts (detached), their chats, conductors, agents. */
  stop(): Promise<void>;
}

const USER_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  // Else the PORTS view forwards (and its badge counts) every port anything on the machine listens on.
  "remote.autoForwardPorts": false,
  // VS Code 1.139 opens settings.json and some other editors in a modal by default; the tests edit
  // settings like a user in an editor tab, as every VS Code since 1.99 can.
  "workbench.editor.useModal": "off",
};

/**
 * The harness's settings in the profile's User/settings.json, added to what is there: a
 * setting already in the file (a theme the user chose in the demo's profile) is never
 * replaced, and comments stay (jsonc-parser edits the text). A file that does not parse is
 * left as it is (VS Code says what is wrong in it); returns why, or null.
 */
export function addDefaultUserSettings(userDataDir: string, defaults: Record<string, unknown> = USER_SETTINGS): string | null {
  const file = path.join(userDataDir, "User", "settings.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, JSON.stringify(defaults, null, 2));
    return null;
  }
  let text = fs.readFileSync(file, "utf8");
  const errors: ParseError[] = [];
  const current: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (text.trim() === "") text = "{}";
  else if (errors.length > 0 || typeof current !== "object" || current === null || Array.isArray(current))
    return `${file} is not a JSON object with comments; left as it is`;
  const present = new Set(Object.keys((current as Record<string, unknown> | undefined) ?? {}));
  const missing = Object.entries(defaults).filter(([key]) => !present.has(key));
  for (const [key, value] of missing) text = applyEdits(text, modify(text, [key], value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
  if (missing.length > 0) fs.writeFileSync(file, text);
  return null;
}

/**
 * Packages the extension in `folder` (its manifest and files) with vsce and installs the package
 * into the profile `root` of a code-server startCodeServer starts later, as a user installs a .vsix.
 */
export function installExtensionFolder(root: string, folder: string): void {
  const vsix = path.join(root, `${path.basename(folder)}.vsix`);
  execFileSync(process.execPath, [VSCE, "package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "--out", vsix], {
    cwd: folder,
    stdio: "ignore",
  });
  const profile = ["--user-data-dir", path.join(root, "data"), "--extensions-dir", path.join(root, "extensions")];
  execFileSync(codeServerNode(), [codeServerEntry(), ...profile, "--install-extension", vsix], { stdio: "ignore" });
}

export interface StartOptions {
  /** Profile directory (user data, extensions); a fresh temporary one by default. */
  root?: string;
  port?: number;
  /** Install the packaged .vsix (default); false when a test loads the extension from the repository instead. */
  installVsix?: boolean;
  /**
   * How long a chat host waits with no window attached before it stops (SYMPOSIUM_PANEL_IDLE_MS),
   * unless the environment sets it; null: the extension's own default (15 min). Tests: 2 min, so
   * a host that outlives a test run killed before its cleanup does not wait a quarter of an hour.
   */
  panelIdleMs?: number | null;
  /**
   * Run with VS Code's workspace trust on (the folder opens untrusted, in Restricted Mode, without the
   * startup question); by default it is off (`--disable-workspace-trust`), as for most tests.
   */
  workspaceTrust?: boolean;
}

const TEST_PANEL_IDLE_MS = 120_000;

/**
 * Installs the .vsix into a profile and serves `workspace` on a loopback
 * port, behind a random password: no local server here runs unauthenticated.
 */
export async function startCodeServer(workspace: string, options: StartOptions = {}): Promise<CodeServer> {
  const root = options.root ?? tempDir("symposium-e2e-");
  const userDataDir = path.join(root, "data");
  const extensionsDir = path.join(root, "extensions");
  const trust = options.workspaceTrust === true;
  const defaults = trust ? { ...USER_SETTINGS, "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" } : USER_SETTINGS;
  const settingsProblem = addDefaultUserSettings(userDataDir, defaults);
  if (settingsProblem !== null) process.stderr.write(`${settingsProblem}\n`);
  // code-server writes its own config under XDG_CONFIG_HOME: keep it out of the real home.
  const password = crypto.randomBytes(18).toString("base64url");
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: path.join(root, "config"), XDG_DATA_HOME: path.join(root, "share"), PASSWORD: password };
  const idleMs = options.panelIdleMs === undefined ? TEST_PANEL_IDLE_MS : options.panelIdleMs;
  if (idleMs !== null && !env.SYMPOSIUM_PANEL_IDLE_MS) env.SYMPOSIUM_PANEL_IDLE_MS = String(idleMs);
  const common = ["--user-data-dir", userDataDir, "--extensions-dir", extensionsDir];
  if (options.installVsix !== false) {
    execFileSync(codeServerNode(), [codeServerEntry(), ...common, "--force", "--install-extension", VSIX], { env, stdio: "ignore" });
  }
  const port = options.port ?? (await getPort({ host: "127.0.0.1" }));
  const server: ChildProcess = spawn(
    codeServerNode(),
    [
      codeServerEntry(),
      ...common,
      "--auth",
      "password",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      ...(trust ? [] : ["--disable-workspace-trust"]),
      "--disable-getting-started-override",
      workspace,
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  server.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}/`;
  await waitForHttp(url, 30_000);
  return {
    url,
    password,
    workspace,
    userDataDir,
    log: () => log,
    stop: () => stopServer(server, workspace),
  };
}

/**
 * Stops code-server, then what its extensions started. The chat hosts run detached, so they
 * outlive it: they are listed first, while code-server is still their ancestor, and (Linux) by
 * the workspace their launch spec names, for hosts a window reload left without a parent.
 */
async function stopServer(server: ChildProcess, workspace: string): Promise<void> {
  const started = server.exitCode === null ? await descendantsOf([server.pid!]).catch(() => []) : [];
  const hosts = process.platform === "linux" && fs.existsSync(workspace) ? hostProcesses(workspace) : [];
  server.kill("SIGTERM");
  await new Promise((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve(null) : server.once("exit", resolve)));
  await Promise.all([...new Set([...hosts, ...started])].filter(isAlive).map((pid) => stopProcessTree(pid)));
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { redirect: "manual" });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`code-server did not answer at ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // As root in a container, Chromium's sandbox cannot start; the network
    // flags keep it from reaching for Google's services on a closed network.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Logs in like a user; code-server then goes on to `query` on its workbench. */
export async function logIn(page: Page, server: CodeServer, query: string): Promise<void> {
  await page.goto(`${server.url}?${query}`);
  await page.locator("input[type=password]").fill(server.password);
  await page.keyboard.press("Enter");
}

/** Opens the workbench on the server's folder and waits until VS Code is ready for input. */
export async function openWorkbench(browser: Browser, server: CodeServer): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await logIn(page, server, `folder=${encodeURIComponent(server.workspace)}`);
  await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
  await page.waitForSelector(".monaco-workbench .explorer-folders-view, .monaco-workbench .pane-body", { timeout: 60_000 });
  return page;
}

/**
 * Types into the command palette like a user and returns the rows it shows
 * once one starts with `expect` (extensions register their commands a little
 * after the workbench appears), or what it shows after `timeoutMs`.
 */
export async function paletteRows(page: Page, text: string, expect = text, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await leaveFrames(page);
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    // F1 can be lost while the workbench moves the focus (a view opening, a theme applied):
    // press it again rather than wait out the whole deadline on one key.
    const opened = await input.waitFor({ state: "visible", timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (!opened) {
      if (Date.now() > deadline) throw new Error(`the command palette did not open for '${text}'`);
      await page.keyboard.press("Escape");
      continue;
    }
    await input.fill(`>${text}`);
    await page.waitForTimeout(300);
    const rows = await page.$$eval(".quick-input-list .monaco-list-row", (elements) => elements.map((row) => row.getAttribute("aria-label") ?? ""));
    if (rows.some((row) => row.startsWith(expect)) || Date.now() > deadline) return rows;
    await page.keyboard.press("Escape");
    await page.waitForTimeout(500);
  }
}

/**
 * Gives the keyboard back to the workbench when a page in a frame has it (Toad's page in the
 * panel sends VS Code no keys, and VS Code 1.139 leaves the focus there), as a user clicks
 * outside the chat before pressing F1.
 */
async function leaveFrames(page: Page): Promise<void> {
  await page.evaluate(() => {
    if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur();
  });
}

/** Runs a command by its title from the command palette. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const rows = await paletteRows(page, title);
  if (!rows.some((row) => row.startsWith(title))) throw new Error(`no command '${title}' in the palette: ${rows.join(" | ")}`);
  await page.keyboard.press("Enter");
}

/** Waits for a frame (webviews are frames within frames) whose body text matches. */
export async function frameWithText(page: Page, pattern: RegExp, timeoutMs = 20_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const text = await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "");
      if (pattern.test(text)) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no frame shows ${pattern}`);
    await page.waitForTimeout(250);
  }
}

/**
 * The text of the visible editor or output view, as VS Code renders it: each editor's lines in
 * the order they stand on screen (VS Code 1.139 reuses line elements, so their order in the
 * document can differ after the text changes).
 */
export async function visibleText(page: Page, selector: string): Promise<string> {
  const text = await page.$$eval(`${selector} .view-lines`, (editors) =>
    editors
      .map((editor) =>
        [...editor.querySelectorAll<HTMLElement>(":scope > .view-line")]
          .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
          .map((line) => line.textContent ?? "")
          .join("\n"),
      )
      .join("\n"),
  );
  return text.replace(/\u00a0/g, " "); // VS Code renders spaces as no-break spaces
}

/** Opens a workspace file with Quick Open (Ctrl+P) like a user, and waits until its editor has focus. */
export async function openFile(page: Page, name: string): Promise<void> {
  // On VS Code 1.139 a click in the editor after typing into Toad's page leaves the keys with that page.
  await leaveFrames(page);
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible" });
  await input.fill(name);
  // File search runs in the extension host: slow while extensions are still activating.
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`, { timeout: 45_000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.part.editor .tab.active[aria-label*="${name}"]`, { timeout: 10_000 });
  await page.waitForFunction(() => document.activeElement?.closest(".part.editor .monaco-editor") != null, null, { timeout: 10_000 });
}
