// `npm start` (test/harness/start.ts) and Ctrl+C: the demo stops what it
// started — code-server, and the chat host the extension started detached,
// with its chat, conductor and agent — instead of leaving them for the host's
// 15-minute idle timeout. Driven like a user: the demo's own
// address and password, the chat opened from the palette, then SIGINT.

import { strict as assert } from "node:assert";
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import getPort from "get-port";
import type { Browser } from "playwright-core";
import { e2eSkipReason, launchBrowser, runCommand } from "../harness/code-server.js";
import { descendants, eventually, isAlive, OUT_DIR, tempDir } from "../support/processes.js";
import { hostProcesses } from "../support/panel-host.js";
import { chatFrame } from "./panel-helpers.js";

const skip = e2eSkipReason();

describe("npm start, then Ctrl+C", { skip, timeout: 300_000 }, () => {
  let browser: Browser | undefined;
  let demo: ChildProcess | undefined;
  let tree: number[] = [];
  after(async () => {
    await browser?.close();
    if (demo?.exitCode === null) demo.kill("SIGINT");
    for (const pid of tree.filter(isAlive)) process.kill(pid, "SIGKILL");
  });

  it("stops the chat host and everything under it, not only code-server", async () => {
    const cache = tempDir("symposium-demo-");
    const port = await getPort({ host: "127.0.0.1" });
    const env: NodeJS.ProcessEnv = { ...process.env, SYMPOSIUM_CACHE: cache, PORT: String(port) };
    delete env.SYMPOSIUM_CONFIG; // the demo's own: the offline demo agent
    // `npm start` as a new user runs it: its default VS Code (installing the newest into a fresh cache would take minutes).
    delete env.SYMPOSIUM_VSCODE;
    demo = spawn(process.execPath, [path.join(OUT_DIR, "test", "harness", "start.js")], { env, stdio: ["ignore", "pipe", "pipe"] });
    let printed = "";
    demo.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    demo.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    await eventually(() => printed.includes("Password:"), 180_000, "the demo's address and password").catch((error: Error) => {
      throw new Error(`${error.message}; it printed:\n${printed}`);
    });
    const address = /Open:\s+(\S+)/.exec(printed)![1]!;
    const password = /Password:\s+(\S+)/.exec(printed)![1]!;
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(address);
    await page.locator("input[type=password]").fill(password);
    await page.keyboard.press("Enter");
    await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    await runCommand(page, "Symposium: Open Chat");
    await chatFrame(page, "#input:visible", 60_000);
    const workspace = path.join(cache, "demo-workspace");
    const hosts = hostProcesses(workspace);
    assert.equal(hosts.length, 1, "one chat host");
    tree = [hosts[0]!, ...descendants(hosts[0]!)];
    assert.ok(tree.length > 1, "the host runs the chat");
    await browser.close();
    browser = undefined;
    demo.kill("SIGINT");
    await new Promise((resolve) => demo!.once("exit", resolve));
    await eventually(() => tree.every((pid) => !isAlive(pid)), 15_000, "the host's whole tree gone").catch((error: Error) => {
      throw new Error(`${error.message}; left: ${tree.filter(isAlive).join(" ")}; the demo printed:\n${printed.slice(-2000)}`);
    });
  });
});
