// Walkthroughs end to end (docs/walkthroughs.md) in a real VS Code (code-server):
// the official MCP client starts dist/symposium-editor-tools.mjs on the window's
// state file, as an agent does, and calls present_walkthrough; the view opens
// beside the editor with the diagram drawn, the comments are placed in the code
// as threads by the agent's name, clicking a comment's link reveals its code,
// a comment with two places offers them to pick, and the answer names what did
// not resolve; a gitdiff block opens VS Code's diff. Screenshots light and
// dark go to $SYMPOSIUM_SCREENSHOTS when set.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Frame } from "playwright-core";
import { e2eSkipReason } from "../harness/code-server.js";
import { REPO_DIR } from "../support/processes.js";
import { chooseColorTheme, extensionLog, waitForText } from "./panel-helpers.js";
import { closeTrackedWindow, openFile, openTrackedWindow, readState, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const skip = e2eSkipReason();
const TOOLS_CLI = path.join(REPO_DIR, "dist", "symposium-editor-tools.mjs");
const FENCE = "```";

const FILES = {
  "ts/greeting.ts": "/** Says hello to someone. */\nexport function greet(name: string): string {\n  return `hello ${name}`;\n}\n",
  "ts/main.ts": 'import { greet } from "./greeting";\n\nconst message = greet("world");\nconsole.log(greet("again"), message);\n',
};

const WALKTHROUGH = [
  "# How the greeting works",
  "",
  "The entry point is [main.ts](ts/main.ts:3); the greeting itself is built in `greet`.",
  "",
  `${FENCE}mermaid\nflowchart LR\n  main[main.ts] --> greet[greet] --> console[console.log]\n${FENCE}`,
  "",
  `${FENCE}comment\nlocation: ts/greeting.ts:2-4\nHere the greeting is built. I was unsure whether to trim the name.\n${FENCE}`,
  "",
  `${FENCE}comment\nlocation: search:ts/main.ts:greet(\nBoth calls go through greet.\n${FENCE}`,
  "",
  `${FENCE}comment\nlocation: search:ts/main.ts:farewell\nThis one finds nothing.\n${FENCE}`,
  "",
  `${FENCE}action\nbutton: Add a farewell\nPlease add a farewell function beside greet.\n${FENCE}`,
].join("\n");

/** The workspace as a git repository of two commits, the second changing the greeting (for a gitdiff block). */
function commitTwice(workspace: string): void {
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: workspace, stdio: "pipe" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  const greeting = path.join(workspace, "ts", "greeting.ts");
  fs.writeFileSync(greeting, fs.readFileSync(greeting, "utf8").replace("hello ${name}", "hello, ${name}"));
  git("commit", "-q", "-am", "second");
}

describe("walkthroughs in code-server", { skip, timeout: 600_000 }, () => {
  let window: TrackedWindow;
  let client: Client;
  let answer: { text: string; isError: boolean };

  /** The walkthrough page: the webview's inner frame that holds #walkthrough. */
  async function walkthroughFrame(timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const frame of window.page.frames()) {
        if (await frame.evaluate(() => document.getElementById("walkthrough") !== null).catch(() => false)) return frame;
      }
      if (Date.now() > deadline) throw new Error("the walkthrough view never opened");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  before(async () => {
    window = await openTrackedWindow(FILES);
    commitTwice(window.server.workspace);
    await openFile(window.page, "main.ts");
    await waitForState(window.stateFile, (state) => state?.editorTools?.socket != null, 30_000);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLS_CLI],
      env: { ...(process.env as Record<string, string>), SYMPOSIUM_EDITOR_STATE_FILE: window.stateFile },
      stderr: "pipe",
    });
    client = new Client({ name: "Walkthrough Agent", version: "0" });
    await client.connect(transport);
    const workspace = fs.realpathSync(window.server.workspace);
    const result = (await client.callTool({ name: "present_walkthrough", arguments: { markdown: WALKTHROUGH, baseFolder: workspace } })) as CallToolResult;
    const first = result.content[0];
    answer = { text: first?.type === "text" ? first.text : "", isError: result.isError === true };
  });

  after(async () => {
    await client?.close();
    await closeTrackedWindow(window);
  });

  it("answers what was shown, the comment with two places, and the one that did not resolve", () => {
    assert.equal(answer.isError, false, answer.text);
    assert.match(
      answer.text,
      /Shown to the user: "How the greeting works" — 1 comment\(s\) placed, 1 with several places for the user to pick, 1 diagram\(s\), 1 action\(s\)/,
    );
    assert.match(answer.text, /Comment 2 \(search:ts\/main\.ts:greet\(\): 2 places/);
    assert.match(answer.text, /- comment 3 \(search:ts\/main\.ts:farewell\): no line of ts\/main\.ts contains "farewell"/);
  });

  it("opens the view beside the editor with the diagram drawn and the comments listed", async () => {
    const view = await walkthroughFrame();
    await view.waitForSelector("figure.diagram svg", { timeout: 30_000 });
    assert.equal(await view.locator("h1").innerText(), "How the greeting works");
    assert.match(await view.locator(".byline").innerText(), /by Walkthrough Agent/);
    assert.equal(await view.locator(".comment").count(), 3);
    assert.match(await view.locator(".comment").nth(2).innerText(), /not found/);
    assert.ok((await window.page.locator(".part.editor .tab", { hasText: "How the greeting works" }).count()) > 0, "the view's tab is in the editor area");
    await screenshot("walkthroughs-light.png");
  });

  it("a comment's link reveals its code, where the thread shows the comment by the agent's name", async () => {
    const view = await walkthroughFrame();
    await view.locator(".comment a.location").first().click();
    await waitForState(window.stateFile, (state) => state?.activeFile?.endsWith("greeting.ts") === true, 20_000);
    assert.deepEqual(readState(window.stateFile)?.selection?.startLine, 2);
    const thread = window.page.locator(".review-widget", { hasText: "Here the greeting is built" });
    await thread.first().waitFor({ timeout: 20_000 });
    assert.match(await thread.first().innerText(), /Walkthrough Agent/);
  });

  it("a comment with two places offers them; the one picked is revealed", async () => {
    const view = await walkthroughFrame();
    await view.locator(".comment a.location").nth(1).click();
    const rows = window.page.locator(".quick-input-list .monaco-list-row");
    await rows.first().waitFor({ timeout: 20_000 });
    await waitForText(() => window.page.locator(".quick-input-list").innerText(), /main\.ts:3[\s\S]*main\.ts:4/);
    await rows.nth(1).click();
    await waitForState(
      window.stateFile,
      (state) => state?.activeFile?.endsWith("main.ts") === true && (state.cursor as { line?: number } | undefined)?.line === 4,
      20_000,
    );
  });

  it("follows VS Code's theme to dark (its background dark), the diagram drawn again", async () => {
    await chooseColorTheme(window.page, "Dark Modern");
    const view = await walkthroughFrame();
    await view.waitForFunction(() => document.body.classList.contains("vscode-dark"), null, { timeout: 20_000 });
    const background = () => view.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await waitForText(background, /^rgb\((\d|[1-5]\d), (\d|[1-5]\d), (\d|[1-5]\d)\)$/);
    await view.waitForSelector("figure.diagram svg", { timeout: 20_000 });
    await screenshot("walkthroughs-dark.png");
  });

  it("a walkthrough of 20 comments and a diagram replaces the one shown; the answer comes once it is painted", async (t) => {
    const comments = Array.from({ length: 20 }, (_, i) => `${FENCE}comment\nlocation: ts/main.ts:${(i % 4) + 1}\nComment ${i + 1}.\n${FENCE}`);
    const markdown = ["# Twenty comments", `${FENCE}mermaid\nflowchart TD\n  a --> b --> c\n${FENCE}`, ...comments].join("\n\n");
    const started = performance.now();
    const twenty = await present(markdown);
    t.diagnostic(`tool call → walkthrough painted (20 comments and a diagram): ${Math.round(performance.now() - started)} ms`);
    for (const line of extensionLog(window.server)
      .split("\n")
      .filter((each) => each.includes("Twenty comments")))
      t.diagnostic(line);
    assert.match(twenty.text, /"Twenty comments" — 20 comment\(s\) placed/);
    const view = await walkthroughFrame();
    await waitForText(() => view.locator("h1").innerText(), /Twenty comments/);
    assert.equal(await view.locator(".comment").count(), 20);
    assert.equal(await view.locator("figure.diagram svg").count(), 1);
  });

  it("a gitdiff block's button opens VS Code's diff of that range", async () => {
    const answer = await present(`# The last commit\n\n${FENCE}gitdiff\nHEAD~1..HEAD\n${FENCE}`);
    assert.equal(answer.isError, false, answer.text);
    const view = await walkthroughFrame();
    await waitForText(() => view.locator("h1").innerText(), /The last commit/);
    await view.getByText("Open diff: HEAD~1..HEAD").click();
    await window.page.locator(".part.editor .tab", { hasText: "Walkthrough diff: HEAD~1..HEAD" }).first().waitFor({ timeout: 30_000 });
    const modified = window.page.locator(".part.editor .monaco-diff-editor .editor.modified .view-line", { hasText: "hello," });
    await modified.first().waitFor({ timeout: 30_000 });
  });

  it("a flood of walkthroughs is bounded: the eleventh in a minute is refused, saying when to try again", async () => {
    // Eleven at once (each answer waits for its paint, slow under load): the ones above, in the same minute, count too.
    const answers = await Promise.all(Array.from({ length: 11 }, (_, i) => present(`# Flood ${i}`)));
    const refused = answers.filter((answer) => answer.isError);
    assert.ok(refused.length >= 1 && refused.length <= 4, `${refused.length} of 11 refused`);
    for (const answer of refused) assert.match(answer.text, /10 walkthroughs in the last minute is this window's limit: present again in a minute/);
  });

  async function present(markdown: string): Promise<{ text: string; isError: boolean }> {
    const result = (await client.callTool({
      name: "present_walkthrough",
      arguments: { markdown, baseFolder: fs.realpathSync(window.server.workspace) },
    })) as CallToolResult;
    const first = result.content[0];
    return { text: first?.type === "text" ? first.text : "", isError: result.isError === true };
  }

  async function screenshot(name: string): Promise<void> {
    const folder = process.env.SYMPOSIUM_SCREENSHOTS;
    if (folder) await window.page.screenshot({ path: path.join(folder, name) });
  }
});
