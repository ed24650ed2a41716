// The packaged extension in a real VS Code (code-server) in a real browser,
// driven like a user: keyboard, command palette, clicks.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  e2eSkipReason,
  frameWithText,
  launchBrowser,
  openWorkbench,
  paletteRows,
  runCommand,
  startCodeServer,
  visibleText,
  type CodeServer,
} from "../harness/code-server.js";
import { REPO_DIR, tempDir } from "../support/processes.js";

const skip = e2eSkipReason();

describe("extension in code-server", { skip }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    const workspace = path.join(tempDir("symposium-ws-"), "workspace");
    fs.cpSync(path.join(REPO_DIR, "test", "fixtures", "workspace"), workspace, { recursive: true });
    server = await startCodeServer(workspace);
    browser = await launchBrowser();
    page = await openWorkbench(browser, server);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("lists its commands in the command palette", async () => {
    const rows = await paletteRows(page, "Symposium:");
    await page.keyboard.press("Escape");
    for (const title of ["Open Chat", "Restart Chat", "Stop Chat", "Show Editor Context", "Show Log", "Toggle Editor Context Sharing"]) {
      assert.ok(
        rows.some((row) => row.startsWith(`Symposium: ${title}`)),
        `missing ${title} in ${rows.join(" | ")}`,
      );
    }
    assert.ok(!rows.some((row) => row.includes("Toad")), `the old ids are aliases, not palette entries: ${rows.join(" | ")}`);
    assert.ok(
      rows.some((row) => row.startsWith("Symposium: Open Chat") && row.includes("Alt+Y")),
      "Open Chat shows its keybinding",
    );
  });

  it("activates on its command and logs to its output channel", async () => {
    await runCommand(page, "Symposium: Show Log");
    await page.waitForSelector(".part.panel .output-view, .part.panel [id='workbench.panel.output']", { timeout: 20_000 });
    let text = "";
    for (let i = 0; i < 40 && !/Symposium \d+\.\d+\.\d+ activated/.test(text.replace(/\s+/g, " ")); i++) {
      await page.waitForTimeout(250);
      text = await visibleText(page, ".part.panel");
    }
    // VS Code 1.139 wraps long lines of an output view: read the log's words, not its lines.
    assert.match(text.replace(/\s+/g, " "), /Symposium \d+\.\d+\.\d+ activated \(toadCommand: toad, editor context on\)/);
  });

  it("opens the chat panel with its keybinding, under a strict Content Security Policy", async () => {
    await page.locator(".part.editor").click({ position: { x: 400, y: 200 } });
    await page.keyboard.press("Control+Alt+Y");
    // The panel's own page (the chat itself is in an iframe within it: test/e2e/panel.test.ts).
    const frame = await frameWithText(page, /Starting the chat|The chat/, 30_000).catch(async () => {
      for (const each of page.frames())
        if (
          (await each
            .locator("body[data-seq] #status")
            .count()
            .catch(() => 0)) > 0
        )
          return each;
      throw new Error("no Symposium panel page");
    });
    const csp = await frame.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? "");
    assert.match(csp, /^default-src 'none'; style-src [^;]+; script-src 'nonce-[A-Za-z0-9+/=]+'(; frame-src https?:\/\/[^\s;/]+)?$/);
    const tab = page.locator(".part.panel .composite-bar .action-item", { hasText: /symposium/i });
    assert.equal(await tab.count(), 1, "a Symposium view container in the bottom panel");
  });

  it("shows the editor context through the proxy it carries", async () => {
    // The open chat panel has the keyboard (focus goes into the chat): give it back to the workbench.
    await page.locator(".part.editor").click({ position: { x: 400, y: 200 } });
    await runCommand(page, "Symposium: Show Editor Context");
    let text = "";
    for (let i = 0; i < 40 && !text.includes("editor context"); i++) {
      await page.waitForTimeout(250);
      text = await visibleText(page, ".part.editor");
    }
    // The editor wraps long lines: compare the words, not the line breaks.
    assert.match(text.replace(/\s+/g, " "), /No editor context would be sent: no text editor is open\./);
    assert.equal(await page.locator(".part.editor .tab.dirty").count(), 0, "a read-only view: nothing to save on close");
  });
});
