// The chat page in real Chromium against the real server and real agents:
// streaming, sanitized Markdown, permissions, cancel, crashes, reloads that
// keep the conversation, and the editor-context chip checked at the agent
// behind the real conductor and proxy. One browser for the whole file.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { marked } from "marked";
import type { Browser, Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason, launchBrowser } from "../../harness/code-server.js";
import { holdableServerFrames, loadChat, openChatPage, typePrompt, type HeldServerFrames } from "../../support/chat-browser.js";
import { CONDUCTOR_CLI, REPO_DIR } from "../../support/processes.js";
import { markdownChunks } from "../../fixtures/markdown-answer.js";
import { writeStateFile } from "../../support/state-files.js";
import { CHAT_AGENT, startChatServer, type ChatServer } from "../../support/webchat-server.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 10_000 };

describe("webchat page", { skip }, () => {
  let browser: Browser;
  let server: ChatServer;
  before(async () => {
    [browser, server] = await Promise.all([launchBrowser(), startChatServer({ env: { SYMPOSIUM_CHAT_GRACE_MS: "60000" } })]);
  });
  after(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  const openChat = (query: Record<string, string> = {}, srv = server): Promise<Page> => openChatPage(browser, srv, query);
  const ask = typePrompt;

  it("loads with a nonce CSP, only its own assets, and streams an answer", async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(server.origin) && !request.url().startsWith("data:")) foreign.push(request.url());
    });
    const response = await page.goto(server.url.toString());
    assert.match(response!.headers()["content-security-policy"]!, /default-src 'none'; script-src 'nonce-[^']+'; style-src 'self';.*connect-src 'self'/);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "input", "keyboard-first: the input has focus");
    await ask(page, "stream 12");
    await page.waitForFunction(() => (document.querySelector(".message.agent")?.textContent ?? "").includes("part-3 "), undefined, TIMEOUT);
    const partial = await page.locator(".message.agent").innerText();
    assert.doesNotMatch(partial, /part-12/, "text appears while the turn still streams");
    assert.equal(await page.locator("#cancel").isVisible(), true);
    await page.waitForFunction(() => (document.querySelector(".message.agent")?.textContent ?? "").includes("part-12"), undefined, TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    assert.deepEqual(foreign, []);
    await page.close();
  });

  it("renders Markdown with script and event-handler payloads inert", async () => {
    const page = await openChat();
    await ask(page, "xss");
    await page.waitForSelector(".message.agent strong", TIMEOUT);
    // An event handler that survived would run once its image has loaded or failed: wait for every image to settle.
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#transcript img")].every((image) => image.complete), undefined, TIMEOUT);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned), undefined);
    assert.equal(await page.locator("#transcript script, #transcript iframe, #transcript [onerror]").count(), 0);
    assert.equal(await page.locator(".message.agent strong").innerText(), "bold");
    const href = await page
      .locator(".message.agent a")
      .first()
      .getAttribute("href")
      .catch(() => null);
    assert.ok(!href?.startsWith("javascript:"), `link href ${href}`);
    await page.close();
  });

  it("answers a permission request with the button the user clicks", async () => {
    const page = await openChat();
    await ask(page, "permission");
    const buttons = page.locator(".permission button");
    await buttons.first().waitFor(TIMEOUT);
    assert.deepEqual(await buttons.allInnerTexts(), ["Allow once", "Always allow", "Reject"]);
    await page.click(".permission button[data-option-id=always]");
    await page.waitForFunction(
      () => (document.getElementById("transcript")!.textContent ?? "").includes("permission outcome: selected always"),
      undefined,
      TIMEOUT,
    );
    assert.equal(await page.locator(".permission button[data-option-id=always].chosen").count(), 1);
    assert.equal(await page.locator(".permission button:not([disabled])").count(), 0);
    // A request left open is cancelled with the turn, never left hanging.
    await ask(page, "permission");
    await page.waitForSelector(".permission:not(.answered)", TIMEOUT);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("permission outcome: cancelled"), undefined, TIMEOUT);
    await page.close();
  });

  it("cancels a turn with the cancel button and with Escape", async () => {
    const page = await openChat();
    await ask(page, "forever");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("part-2 "), undefined, TIMEOUT);
    await page.click("#cancel");
    await page.waitForSelector(".turn-end[data-stop-reason=cancelled]", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await ask(page, "forever");
    await page.waitForFunction(() => document.body.dataset.state === "prompting", undefined, TIMEOUT);
    await page.waitForTimeout(150);
    await page.focus("#input");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelectorAll(".turn-end[data-stop-reason=cancelled]").length === 2, undefined, TIMEOUT);
    await page.close();
  });

  it("shows thoughts collapsed, plans, tool calls with diffs, slash commands and modes", async () => {
    const page = await openChat();
    await ask(page, "tools");
    await page.waitForSelector(".tool-call[data-status=completed]", TIMEOUT);
    assert.equal(await page.locator("details.thought").getAttribute("open"), null, "the thought is collapsed");
    assert.deepEqual(await page.locator(".plan-entry").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status)), [
      "completed",
      "in_progress",
    ]);
    assert.equal(await page.locator(".tool-call .tool-title").innerText(), "Edit main.rs");
    assert.deepEqual(await page.locator(".diff-line.added").allInnerTexts(), ["+ fn main() {", "+     run();", "+ }"]);
    assert.deepEqual(await page.locator(".diff-line.removed").allInnerTexts(), ["- fn main() {}"]);
    await page.fill("#input", "");
    await page.keyboard.type("/ex");
    assert.deepEqual(await page.locator("#slash-menu li .command-name").allInnerTexts(), ["/explain"]);
    await page.keyboard.press("Tab");
    assert.equal(await page.inputValue("#input"), "/explain ");
    await page.keyboard.press("Shift+Enter");
    assert.equal(await page.inputValue("#input"), "/explain \n", "Shift+Enter adds a line");
    assert.deepEqual(await page.locator("#mode option").allInnerTexts(), ["Ask", "Code"]);
    await page.selectOption("#mode", "code");
    await page.waitForFunction(() => (document.getElementById("mode") as HTMLSelectElement).value === "code", undefined, TIMEOUT);
    await page.close();
  });

  it("renders a long streamed Markdown answer as the whole text renders at once, and stays at its end", async () => {
    const page = await openChat();
    await page.setViewportSize({ width: 800, height: 500 });
    await ask(page, "markdown 600");
    await page.waitForSelector(".turn-end, body[data-state=prompting]", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });
    const shown = await page.evaluate(() => {
      const body = document.querySelector(".message.agent .body")!;
      const transcript = document.getElementById("transcript")!;
      return {
        html: [...body.children].map((child) => child.innerHTML).join(""),
        containers: [...body.children].map((child) => child.className),
        fromEnd: transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight,
      };
    });
    // Settled blocks live in part containers (closed ones skipped off screen), the tail in one live container.
    assert.ok(shown.containers.filter((name) => name === "part closed").length >= 2, `closed parts: ${shown.containers.join(", ")}`);
    assert.equal(shown.containers.at(-1), "live");
    assert.ok(shown.fromEnd < 40, `the view follows the answer to its end (${shown.fromEnd} px from it)`);
    // The whole text through marked, normalised by the same browser, links as the page makes them.
    const whole = marked.parse(markdownChunks(600).join(""), { async: false, gfm: true, breaks: false });
    const expected = await page.evaluate((html) => {
      const template = document.createElement("template");
      template.innerHTML = html;
      for (const link of template.content.querySelectorAll("a")) {
        link.setAttribute("target", "_blank");
        link.setAttribute("rel", "noopener noreferrer");
      }
      for (const styled of template.content.querySelectorAll("[class]")) styled.removeAttribute("class"); // agent content never keeps a class
      return template.innerHTML;
    }, whole);
    assert.equal(shown.html, expected);
    await page.close();
  });

  /** A page whose server frames the test can hold, streaming a long answer that already overflows the view. */
  const streamLongAnswer = async (): Promise<{ page: Page; frames: HeldServerFrames }> => {
    const page = await browser.newPage();
    const frames = await holdableServerFrames(page);
    await loadChat(page, server);
    await page.setViewportSize({ width: 800, height: 500 });
    await ask(page, "markdown 600");
    await page.waitForFunction(
      () => {
        const transcript = document.getElementById("transcript")!;
        return transcript.scrollHeight > 3 * transcript.clientHeight;
      },
      undefined,
      TIMEOUT,
    );
    return { page, frames };
  };
  const distanceFromEnd = (page: Page): Promise<number> =>
    page.evaluate(() => {
      const transcript = document.getElementById("transcript")!;
      return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight;
    });
  /** Holds the rest of the answer back (the turn still streams), lets it through after `meanwhile`, and waits for the turn's end. */
  const holdAnswer = async ({ page, frames }: { page: Page; frames: HeldServerFrames }, meanwhile: () => Promise<void>): Promise<void> => {
    frames.hold();
    assert.equal(await page.evaluate(() => document.body.dataset.state), "prompting", "the answer is still streaming");
    await meanwhile();
    frames.release();
    await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });
  };

  it("keeps following an answer when the browser reports a scroll after the answer grew again", async () => {
    const streaming = await streamLongAnswer();
    const page = streaming.page;
    let reported = 0;
    await holdAnswer(streaming, async () => {
      // What a busy machine does: the view moves to the end, and the answer grows again before
      // the browser reports that scroll (a frame later). Spacers stand for that growth. A render
      // of text that came before the hold may still land in between and put the view at the
      // end: then again (no more text comes while held).
      for (let attempt = 0; attempt < 3 && reported < 40; attempt++)
        reported = await page.evaluate(async () => {
          const transcript = document.getElementById("transcript")!;
          const grow = (): void => {
            transcript.append(Object.assign(document.createElement("div"), { className: "test-spacer", style: "height: 300px; flex: none" }));
          };
          grow();
          transcript.scrollTop = transcript.scrollHeight;
          grow();
          return new Promise<number>((resolve) =>
            transcript.addEventListener("scroll", () => resolve(transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight), { once: true }),
          );
        });
    });
    assert.ok(reported >= 40, `the scroll was reported away from the end (${reported} px)`);
    const fromEnd = await distanceFromEnd(page);
    assert.ok(fromEnd < 40, `the view follows the answer to its end (${fromEnd} px from it)`);
    await page.close();
  });

  it("stops following when the user scrolls up, and follows again once they are back at the end", async () => {
    const streaming = await streamLongAnswer();
    const page = streaming.page;
    let readingAt = 0;
    await holdAnswer(streaming, async () => {
      const box = (await page.locator("#transcript").boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, -1000);
      await page.waitForFunction(
        () => {
          const transcript = document.getElementById("transcript")!;
          return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight > 500;
        },
        undefined,
        TIMEOUT,
      );
      readingAt = await page.evaluate(() => document.getElementById("transcript")!.scrollTop);
    });
    assert.equal(await page.evaluate(() => document.getElementById("transcript")!.scrollTop), readingAt, "the view stays where the user reads");
    assert.ok((await distanceFromEnd(page)) > 1000, "the rest of the answer is below the view");
    await page.mouse.wheel(0, 1_000_000);
    await page.waitForFunction(
      () => {
        const transcript = document.getElementById("transcript")!;
        return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
      },
      undefined,
      TIMEOUT,
    );
    await ask(page, "markdown 200");
    await page.waitForFunction(() => document.querySelectorAll(".message.agent").length === 2, undefined, TIMEOUT);
    await page.waitForFunction(() => document.body.dataset.state === "ready", undefined, { timeout: 30_000 });
    const fromEnd = await distanceFromEnd(page);
    assert.ok(fromEnd < 40, `back at the end, the view follows the next answer (${fromEnd} px from its end)`);
    await page.close();
  });

  it("reports an agent crash with the last lines of its stderr", async () => {
    const page = await openChat();
    await ask(page, "crash");
    await page.waitForSelector("body[data-state=ended]", TIMEOUT);
    const banner = await page.locator("#banner").innerText();
    assert.match(banner, /The agent exited with code 3/);
    assert.match(banner, /fatal: the model exploded/);
    // The composer stays editable (text typed now is kept for the next conversation); Send is off and says why.
    assert.equal(await page.locator("#input").isDisabled(), false);
    assert.equal(await page.locator("#send").isDisabled(), true);
    assert.match((await page.locator("#send").getAttribute("title")) ?? "", /this conversation has ended/);
    await page.close();
  });

  it("talks to the conductor's demo agent, as the panel's default setup does", async () => {
    const demo = await startChatServer({ command: quote([process.execPath, CONDUCTOR_CLI, "demo-agent"]) });
    try {
      const page = await openChat({}, demo);
      await ask(page, "Hello from the page");
      await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("built-in demo agent"), undefined, TIMEOUT);
      await page.waitForSelector("body[data-state=ready]", TIMEOUT); // the first chunk shows at once: wait for the whole answer
      assert.match(await page.locator(".message.agent").innerText(), /Hello from the page/);
      await page.close();
    } finally {
      await demo.stop();
    }
  });

  it("reports an agent that cannot start", async () => {
    const broken = await startChatServer({ command: "symposium-no-such-agent --acp" });
    try {
      const page = await browser.newPage();
      await page.goto(broken.url.toString());
      await page.waitForSelector("body[data-state=ended]", TIMEOUT);
      const banner = await page.locator("#banner").innerText();
      assert.match(banner, /The agent exited with code 127/);
      assert.match(banner, /symposium-no-such-agent.*not found/);
      await page.close();
    } finally {
      await broken.stop();
    }
  });

  it("re-attaches a reloaded page to the same conversation: transcript replayed, stream continues", async () => {
    const page = await openChat({ conversation: "reload-test", theme: "dark" });
    await ask(page, "hello");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("session chat-"), undefined, TIMEOUT);
    const firstSession = /session (chat-\d+-\d+)/.exec(await page.locator("#transcript").innerText())![1];
    const agentsBefore = server.agentPids().length;
    await ask(page, "stream 25");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("part-3 "), undefined, TIMEOUT);
    await page.reload();
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("part-3 "), undefined, TIMEOUT);
    assert.match(await page.locator("#transcript").innerText(), new RegExp(`session ${firstSession}`), "the earlier turn is replayed");
    assert.equal(await page.evaluate(() => document.body.dataset.state), "prompting", "the turn is still streaming");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("part-25 "), undefined, TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await ask(page, "hello again");
    await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").split("received").length === 3, undefined, TIMEOUT);
    assert.equal((await page.locator("#transcript").innerText()).split(`session ${firstSession}`).length, 3, "same session after the reload");
    assert.equal(server.agentPids().length, agentsBefore, "no new agent for the reload");
    assert.equal(await page.evaluate(() => document.body.dataset.theme), "dark");
    await page.close();
  });

  it("starts a new conversation with New chat and tells the parent frame", async () => {
    const page = await openChat({ conversation: "before-new" });
    await ask(page, "hello");
    await page.waitForSelector(".message.agent", TIMEOUT);
    await page.click("#new-chat");
    await page.waitForURL((url) => url.searchParams.get("conversation") !== "before-new", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    assert.equal(await page.locator(".message").count(), 0);
    await page.close();
  });

  it("follows the theme the parent frame posts", async () => {
    const page = await openChat({ theme: "light" });
    assert.equal(await page.evaluate(() => document.body.dataset.theme), "light");
    await page.evaluate(() => window.postMessage({ type: "symposium/theme", theme: "high-contrast" }, "*"));
    await page.waitForFunction(() => document.body.dataset.theme === "high-contrast", undefined, TIMEOUT);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, "rgb(0, 0, 0)");
    await page.close();
  });

  it("shows the editor context chip and keeps the block out of a prompt when toggled off (at the agent, behind the conductor)", async () => {
    const projectDir = path.join(REPO_DIR, "test", "fixtures", "workspace");
    const stateFile = writeStateFile({
      activeFile: path.join(projectDir, "src", "main.rs"),
      languageId: "rust",
      selection: { text: "fn main() {}", startLine: 10, endLine: 12 },
      workspaceFolders: [projectDir],
    });
    const command = quote([process.execPath, CONDUCTOR_CLI, "agent", quote([process.execPath, CHAT_AGENT])]);
    const chat = await startChatServer({ command, projectDir, env: { SYMPOSIUM_EDITOR_STATE_FILE: stateFile } });
    try {
      const page = await openChat({}, chat);
      await page.waitForSelector("#context-chip:not([hidden])", TIMEOUT);
      assert.equal(await page.locator(".chip-label").innerText(), "main.rs:10-12");
      await page.hover(".chip-label");
      const block = await page.locator(".chip-block").innerText();
      assert.match(block, /^<editor-context>[\s\S]*fn main\(\) \{\}[\s\S]*<\/editor-context>$/);
      await ask(page, "with context");
      await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").includes("received"), undefined, TIMEOUT);
      await page.waitForSelector("body[data-state=ready]", TIMEOUT);
      await page.uncheck("#context-toggle");
      await ask(page, "without context");
      await page.waitForFunction(() => (document.getElementById("transcript")!.textContent ?? "").split("received").length === 3, undefined, TIMEOUT);
      const answers = await page.locator(".message.agent").allInnerTexts();
      // The agent echoes what it received; the page renders that as Markdown (tags sanitized away).
      assert.match(answers[0]!, /Active file: src\/main.rs \(rust\)[\s\S]*Selected text \(lines 10-12\)/, "the first prompt carried the block");
      assert.doesNotMatch(answers[1]!, /Active file/, "the toggled prompt did not");
      assert.match(answers[1]!, /"symposium.dev\/editorContext":false/);
      assert.equal(await page.isChecked("#context-toggle"), true, "the skip is for one prompt");
      await page.close();
    } finally {
      await chat.stop();
    }
  });

  it("takes a screenshot for docs/webchat.png", async () => {
    const page = await openChat({ theme: "dark" });
    await page.setViewportSize({ width: 900, height: 560 });
    await ask(page, "tools");
    await page.waitForSelector(".tool-call[data-status=completed]", TIMEOUT);
    await ask(page, "permission");
    await page.waitForSelector(".permission button", TIMEOUT);
    const file = process.env.WEBCHAT_SCREENSHOT ?? path.join(server.projectDir, "webchat.png");
    await page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 10_000);
    await page.close();
  });
});
