// Drops on the chat page, in real Chromium against the real chat server,
// with drop events made in the page (test/e2e/chat-drop.test.ts drags from VS Code's Explorer
// itself): what VS Code's Explorer puts in a drag in a remote window such as code-server's
// (vscode-remote: URIs; its own list naming every file, text/uri-list only the first), a drop
// anywhere on the page, and a list no URI parser takes.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { OUT_DIR, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const skip = chromiumSkipReason();
const MENTION_AGENT = path.join(OUT_DIR, "test", "fixtures", "mention-agent.js");

/** Drops `lists` (type → data) on the element `selector` names, as a drag from outside the page ends. */
async function drop(page: Page, selector: string, lists: Record<string, string>): Promise<void> {
  await page.evaluate(
    ([target, data]) => {
      const transfer = new DataTransfer();
      for (const [type, value] of Object.entries(data)) transfer.setData(type, value);
      const element = document.querySelector(target)!;
      for (const type of ["dragenter", "dragover", "drop"])
        element.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    [selector, lists] as const,
  );
}

describe("webchat: files dropped on the page", { skip }, () => {
  let browser: Browser;
  let server: ChatServer;
  let page: Page;
  const errors: string[] = [];
  let remote: (relative: string) => string;

  before(async () => {
    const projectDir = path.join(tempDir("webchat-drop-"), "project");
    fs.mkdirSync(path.join(projectDir, "src"), { recursive: true });
    fs.writeFileSync(path.join(projectDir, "src", "main.rs"), "fn main() {}\n");
    fs.writeFileSync(path.join(projectDir, "README.md"), "# project\n");
    const out = path.join(path.dirname(projectDir), "prompts.jsonl");
    server = await startChatServer({ command: quote([process.execPath, MENTION_AGENT, "--out", out]), projectDir });
    remote = (relative) => `vscode-remote://127.0.0.1:8080${encodeURI(path.join(projectDir, relative).replace(/\\/g, "/"))}`;
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url.toString());
    await page.waitForSelector("body[data-state=ready]", { timeout: 10_000 });
  });
  after(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  it("takes vscode-remote: URIs (VS Code's Explorer in a remote window) inside the project", async () => {
    await page.fill("#input", "");
    await drop(page, "#input", { "text/uri-list": remote("README.md") });
    assert.equal(await page.inputValue("#input"), "@README.md ");
  });

  it("prefers VS Code's own list, which names every file dragged, to text/uri-list (only the first)", async () => {
    await page.fill("#input", "");
    await drop(page, "#input", {
      "text/uri-list": remote("README.md"),
      "application/vnd.code.uri-list": `${remote("README.md")}\r\n${remote("src/main.rs")}`,
    });
    assert.equal(await page.inputValue("#input"), "@README.md @src/main.rs ");
  });

  it("takes a drop anywhere on the page into the composer", async () => {
    await page.fill("#input", "");
    await drop(page, "#transcript", { "text/uri-list": remote("src/main.rs") });
    assert.equal(await page.inputValue("#input"), "@src/main.rs ");
  });

  it("refuses a URI with a malformed %-escape with a notice, and keeps working", async () => {
    await page.fill("#input", "");
    await drop(page, "#input", { "text/uri-list": `${remote("README.md")}%zz` });
    assert.equal(await page.inputValue("#input"), "");
    assert.match(await page.innerText("#composer-notice"), /Not mentioned.*%zz/);
    assert.deepEqual(errors, []);
    await drop(page, "#input", { "text/uri-list": remote("README.md") });
    assert.equal(await page.inputValue("#input"), "@README.md ");
  });

  it("in a plain browser tab the placeholder does not speak of Shift+drag (that is VS Code's rule)", async () => {
    assert.doesNotMatch((await page.getAttribute("#input", "placeholder")) ?? "", /Shift\+drag/);
  });
});
