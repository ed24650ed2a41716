// The chat page's ACP features, in real Chromium against the real chat server
// and a fixture agent written with the ACP SDK (test/fixtures/feature-agent.ts):
// the sign-in card, the model picker, terminals (their output in the tool
// call, the byte limit, every process ended with its session), this
// workspace's history (session/load, read-only, delete, bounds, private
// files), "/" with no commands, and the user's message shown at once.
// WEBCHAT_SCREENSHOT_DIR=docs writes the cards' pictures (light and dark).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { OUT_DIR, eventually, isAlive, tempDir } from "../../support/processes.js";
import { allGone, type ChatServer } from "../../support/webchat-server.js";
import { HISTORY_LIMITS, HistoryStore, historyDir } from "../../../webchat/src/history.js";
import { openChatInFrame } from "../../support/chat-in-frame.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 10_000 };
const FEATURE_AGENT = path.join(OUT_DIR, "test", "fixtures", "feature-agent.js");
const OPTIONS_AGENT = path.join(OUT_DIR, "test", "fixtures", "options-agent.js");
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

function agentCommand(...flags: string[]): string {
  return quote([process.execPath, FEATURE_AGENT, ...flags]);
}

describe("webchat features", { skip }, () => {
  const suite = chatSuite();

  async function serve(flags: string[], options: { stateDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ChatServer> {
    const stateDir = options.stateDir ?? tempDir("webchat-state-");
    return suite.serve({
      command: agentCommand(...flags),
      extraArgs: ["--state-dir", stateDir],
      env: { SYMPOSIUM_CHAT_GRACE_MS: "60000", ...options.env },
    });
  }

  const openChat = (server: ChatServer, query: Record<string, string> = {}): Promise<Page> => openChatPage(suite.browser, server, query, TIMEOUT.timeout);

  const ask = typePrompt;

  async function answered(page: Page, pattern: RegExp): Promise<void> {
    await page
      .waitForFunction(
        (source) => new RegExp(source).test([...document.querySelectorAll(".message.agent")].map((each) => each.textContent).join("\n")),
        pattern.source,
        TIMEOUT,
      )
      .catch(async (error: Error) => {
        throw new Error(`${error.message}: no answer matching ${pattern} in:\n${await page.locator("#transcript").innerText()}`);
      });
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
  }

  /** Light and dark pictures of `selector`'s surroundings, for docs/. */
  async function screenshots(page: Page, name: string): Promise<void> {
    const dir = SCREENSHOTS ?? tempDir("webchat-shots-");
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      const file = path.join(dir, `webchat-${name}-${theme}.png`);
      await page.screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 5_000);
    }
  }

  it("sign-in: the agent's methods as a card; a method sends authenticate; terminal methods name the command; Send again resends the failed prompt", async () => {
    const server = await serve(["--auth"]);
    const page = await openChat(server);
    await page.setViewportSize({ width: 820, height: 560 });
    await ask(page, "hello after sign-in");
    await page.waitForSelector(".signin", TIMEOUT);
    assert.equal(await page.locator(".signin-title").innerText(), "The agent asks you to sign in.");
    assert.deepEqual(await page.locator(".signin-method").allInnerTexts(), ["Sign in with a browser"]);
    // ACP's terminal method: the agent's own command line with its args and env; the _meta hint: its command.
    assert.deepEqual(await page.locator(".signin-command").allInnerTexts(), [
      `FEATURE_LOGIN=1 ${agentCommand("--auth")} --login`,
      "/opt/agent/bin/agent /login --console",
    ]);
    // The older env_var method (Codex's): the variable to set, and no button that could only fail.
    assert.match(await page.locator(".signin-row.env-method").innerText(), /Use FEATURE_API_KEY[\s\S]*Set FEATURE_API_KEY in the environment/);
    assert.equal(await page.locator("[data-method-id=api-key]").count(), 0);
    assert.equal(await page.locator("#transcript .error").count(), 0, "an auth_required error is a sign-in, not an error");
    await screenshots(page, "signin");
    await page.click(".signin-method[data-method-id=browser]");
    await page.waitForSelector(".signin.signed-in", TIMEOUT);
    assert.equal(await page.locator(".signin-outcome").innerText(), "Signed in with Sign in with a browser.");
    await page.click(".signin-resend");
    await answered(page, /received hello after sign-in/);
    assert.equal(await page.locator(".message.user").count(), 2, "the failed prompt and the one sent again");
    await page.close();
  });

  it("sign out: an agent that offers logout gets Sign out in the header; after it, the next prompt asks to sign in again", async () => {
    const page = await openChat(await serve(["--auth", "--logout"]));
    await ask(page, "first");
    await page.click(".signin-method[data-method-id=browser]");
    await page.click(".signin-resend");
    await answered(page, /received first/);
    await page.click("#sign-out");
    await page.locator(".notice", { hasText: "Signed out of the agent" }).waitFor(TIMEOUT);
    await ask(page, "second");
    await page.locator(".signin").nth(1).waitFor(TIMEOUT);
    await page.close();
    // An agent without logout: no Sign out.
    const plain = await openChat(await serve(["--auth"]));
    assert.equal(await plain.locator("#sign-out").isHidden(), true);
    await plain.close();
  });

  it("sign-in: an agent that wants it before session/new gets the card, and the session starts once signed in", async () => {
    const server = await serve(["--auth-session"]);
    const page = await suite.browser.newPage();
    await page.goto(server.url.toString());
    await page.waitForSelector(".signin", TIMEOUT);
    assert.equal(await page.evaluate(() => document.body.dataset.state), "starting");
    assert.equal(await page.locator(".signin-resend").count(), 0, "no prompt to send again");
    await page.click(".signin-method[data-method-id=browser]");
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await ask(page, "now");
    await answered(page, /received now/);
    await page.close();
  });

  it("models: the agent's model config option as a picker beside the mode selector; choosing sends session/set_config_option", async () => {
    const server = await serve(["--models"]);
    const page = await openChat(server);
    await page.setViewportSize({ width: 820, height: 400 });
    const picker = page.locator("select.config-option[data-category=model]");
    assert.deepEqual(await picker.locator("option").allInnerTexts(), ["Fast model", "Deep model"]);
    assert.equal(await picker.inputValue(), "fast");
    assert.equal(await picker.getAttribute("aria-label"), "Model");
    await ask(page, "one");
    await answered(page, /model fast received one/);
    await picker.selectOption("deep");
    await ask(page, "two");
    await answered(page, /model deep received two/);
    assert.equal(await picker.inputValue(), "deep");
    await screenshots(page, "models");
    await page.close();
    // An agent without config options: no picker.
    const plain = await openChat(await serve([]));
    assert.equal(await plain.locator("select.config-option").count(), 0);
    await plain.close();
  });

  /** A server running the options agent (test/fixtures/options-agent.ts) in a project with src/main.rs. */
  async function serveOptions(): Promise<ChatServer> {
    const projectDir = tempDir("webchat-options-");
    fs.mkdirSync(path.join(projectDir, "src"));
    fs.writeFileSync(path.join(projectDir, "src", "main.rs"), "fn main() {}\n");
    return suite.serve({ command: quote([process.execPath, OPTIONS_AGENT]), projectDir });
  }

  it("boolean config options: toggles beside the model picker; a toggle sends a boolean set_config_option and shows the agent's answer", async () => {
    const page = await openChat(await serveOptions());
    await page.setViewportSize({ width: 820, height: 400 });
    const thinking = page.locator(".config-toggle[data-config-id=thinking] input");
    const locked = page.locator(".config-toggle[data-config-id=locked] input");
    const model = page.locator("select.config-option[data-category=model]");
    assert.equal(await page.locator(".config-toggle[data-config-id=thinking]").innerText(), "Thinking");
    assert.equal(await page.locator(".config-toggle[data-config-id=thinking]").getAttribute("title"), "Think before answering");
    assert.equal(await thinking.getAttribute("role"), "switch");
    assert.equal(await thinking.isChecked(), false);
    assert.equal(await model.inputValue(), "fast");
    // Turning it on: the agent answers with the whole list, where it also moved the model.
    await thinking.click();
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>("select.config-option")?.value === "deep", undefined, TIMEOUT);
    assert.equal(await thinking.isChecked(), true);
    await ask(page, "one");
    await answered(page, /model deep thinking true received one; set thinking=true\(boolean\)\s*$/);
    // A change the agent refuses: said, and the toggle shows the agent's value again.
    await locked.click();
    await page.waitForSelector("#transcript .error:has-text('The agent refused the setting Locked')", TIMEOUT);
    await page.waitForFunction(() => !document.querySelector<HTMLInputElement>(".config-toggle[data-config-id=locked] input")!.checked, undefined, TIMEOUT);
    // The agent changes it on its own (config_option_update).
    await ask(page, "flip");
    await answered(page, /model deep thinking false received flip/);
    assert.equal(await thinking.isChecked(), false);
    await thinking.click();
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>(".config-toggle[data-config-id=thinking] input")!.checked, undefined, TIMEOUT);
    await page.locator("#transcript .error").evaluate((element) => element.remove()); // the pictures show the toolbar, not the refusal
    await screenshots(page, "toggles");
    // A model_config select (the model's own setting) is a picker too.
    const effort = page.locator("select.config-option[data-category=model_config]");
    assert.equal(await effort.inputValue(), "low");
    await effort.selectOption("high");
    await ask(page, "two");
    await answered(page, /model deep thinking true effort high received two/);
    // In a narrow side bar the toolbar wraps: every control stays in sight.
    await page.setViewportSize({ width: 360, height: 400 });
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("header select, header button, header .config-toggle")]
        .filter((control) => !control.hidden && control.getBoundingClientRect().right > window.innerWidth)
        .map((control) => control.textContent),
    );
    assert.deepEqual(outside, []);
    await page.close();
  });

  it("tool call locations show relative to the project, the full path in the tooltip; clicking one asks VS Code to open it at the line", async () => {
    const server = await serveOptions();
    const { page, frame, requests, close } = await openChatInFrame(suite.browser, server.url.toString());
    await page.setViewportSize({ width: 820, height: 400 });
    await frame.fill("#input", "locate");
    await frame.press("#input", "Enter");
    await frame.waitForSelector(".tool-call .tool-location", TIMEOUT);
    const main = path.join(server.projectDir, "src", "main.rs");
    const elsewhere = path.join(path.dirname(server.projectDir), "elsewhere.rs");
    const links = frame.locator(".tool-location");
    assert.deepEqual(await links.allInnerTexts(), ["src/main.rs:2", elsewhere], "inside the project: relative; outside: as given");
    assert.equal(await links.first().getAttribute("title"), `${main}:2 (open in VS Code)`);
    assert.equal(
      await frame
        .locator(".diff-file")
        .first()
        .evaluate((head) => head.firstChild?.textContent),
      "src/main.rs",
    );
    assert.equal(await frame.locator(".diff-file").first().getAttribute("title"), main);
    await links.first().click();
    await page.waitForFunction(
      () => (window as unknown as { requests: Array<{ kind: string }> }).requests.some((each) => each.kind === "openFile"),
      undefined,
      TIMEOUT,
    );
    assert.deepEqual(
      (await requests()).filter((each) => each.kind === "openFile"),
      [{ kind: "openFile", path: main, line: 2 }],
    );
    if (SCREENSHOTS) {
      await frame.locator(".tool-location").first().hover();
      for (const theme of ["light", "dark"]) {
        await page.evaluate((chosen) => document.querySelector("iframe")!.contentWindow!.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
        await frame.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
        await page.screenshot({ path: path.join(SCREENSHOTS, `webchat-locations-${theme}.png`) });
      }
    }
    await close();
  });

  it("terminals: output in the tool call, outputByteLimit cut at a character boundary, kill and release, cwd confined", async () => {
    const server = await serve([]);
    const page = await openChat(server);
    await page.setViewportSize({ width: 820, height: 560 });
    // 200 × "é" (400 bytes) + "done\n", kept to 100 bytes: 95 would start inside an "é", so 99 are kept.
    await ask(page, "run 100 200");
    await answered(page, /exit 3 truncated true bytes 99 replacement false ends "done\\n"/);
    const terminal = page.locator(".tool-call .terminal");
    await page.waitForSelector(".tool-call .terminal[data-exited=true]", TIMEOUT);
    assert.match(await terminal.locator(".terminal-output").innerText(), /^é+done\n?$/);
    assert.equal(await terminal.locator(".terminal-status").innerText(), "Earlier output trimmed. Exited with code 3");
    await screenshots(page, "terminal");
    // 400 KB in many chunks into a 1001-byte limit: the end kept, from a character's start.
    await ask(page, "run 1001 200000");
    await answered(page, /exit 3 truncated true bytes (1000|1001) replacement false ends "done\\n"/);
    await ask(page, "run 0 10");
    await answered(page, /exit 3 truncated true bytes 0 replacement false ends ""/);
    await ask(page, "run - 10");
    await answered(page, /exit 3 truncated false bytes 25 replacement false/);
    await ask(page, "kill");
    await answered(page, /killed: code null signal SIGTERM; after release refused -32602/);
    await ask(page, "outside");
    await answered(page, /outside refused \(-32602\): .*access to \/ refused: it is outside the project directory/);
    await page.close();
  });

  it("terminals: every terminal process (and what it started) ends with its session", async () => {
    const pids = tempDir("terminal-pids-");
    const server = await serve([], { env: { FEATURE_TERMINAL_PIDS: pids } });
    const page = await openChat(server);
    await ask(page, "sleep");
    await answered(page, /sleeping in term-1/);
    await eventually(() => fs.readdirSync(pids).length === 2, 5_000, "the terminal and its child");
    const started = fs.readdirSync(pids).map((name) => Number(name.replace("terminal-", "")));
    assert.ok(started.every(isAlive), "the terminal's command and its child run while the session lives");
    await page.waitForSelector(".tool-call .terminal .terminal-output:not(:empty)", TIMEOUT);
    assert.match(await page.locator(".terminal-output").innerText(), /^sleeping \d+ child \d+/);
    await page.close(); // an unnamed conversation ends with its page
    await allGone([...started, ...server.agentPids()], 5_000);
  });

  it("terminals: a page re-attaching mid-run sees the running output; New chat ends the terminal's processes", async () => {
    const pids = tempDir("terminal-pids-");
    const server = await serve([], { env: { FEATURE_TERMINAL_PIDS: pids } });
    const page = await openChat(server, { conversation: "terminal-a" });
    await ask(page, "sleep");
    await answered(page, /sleeping in term-1/);
    await eventually(() => fs.readdirSync(pids).length === 2, 5_000, "the terminal and its child");
    const started = fs.readdirSync(pids).map((name) => Number(name.replace("terminal-", "")));
    await page.waitForSelector(".terminal-output:not(:empty)", TIMEOUT);
    await page.reload();
    await page.waitForSelector(".tool-call .terminal .terminal-output:not(:empty)", TIMEOUT);
    assert.match(await page.locator(".terminal-output").innerText(), /^sleeping \d+ child \d+/);
    assert.equal(await page.locator(".terminal-status").innerText(), "Running…");
    assert.ok(started.every(isAlive));
    await page.click("#new-chat");
    await allGone(started, 5_000);
    await page.close();
  });

  it("history: listed with title and time, reopened with session/load, deleted; files private", async () => {
    const stateDir = tempDir("webchat-state-");
    const agentDir = tempDir("feature-agent-");
    const server = await serve(["--load"], { stateDir, env: { FEATURE_AGENT_DIR: agentDir } });
    const page = await openChat(server, { conversation: "history-a" });
    await page.setViewportSize({ width: 820, height: 560 });
    await ask(page, "first question");
    await answered(page, /received first question/);
    await ask(page, "second question");
    await answered(page, /received second question/);
    const dir = historyDir(server.projectDir, stateDir);
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1);
    if (process.platform !== "win32") {
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
      assert.equal(fs.statSync(path.join(dir, files[0]!)).mode & 0o777, 0o600);
    }
    await page.click("#new-chat");
    await page.waitForURL((url) => url.searchParams.get("conversation") !== "history-a", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.click("#history-button");
    await page.waitForSelector(".history-entry", TIMEOUT);
    assert.equal(await page.locator(".history-title").innerText(), "first question");
    assert.match(await page.locator(".history-entry time").innerText(), /\d/);
    await screenshots(page, "history");
    await page.click(".history-open");
    await page.waitForURL((url) => url.searchParams.has("reopen"), TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    // session/load: the agent replays the conversation itself.
    await page.waitForFunction(() => document.querySelectorAll(".message.user").length === 2, undefined, TIMEOUT);
    assert.deepEqual(
      (await page.locator(".message.user").allInnerTexts()).map((text) => text.trim()),
      ["first question", "second question"],
    );
    await ask(page, "third question");
    await answered(page, /received third question/);
    assert.equal(fs.readdirSync(dir).length, 1, "the reopened conversation is kept in the same entry");
    await page.click("#history-button");
    await page.waitForSelector(".history-entry.current", TIMEOUT);
    await page.click(".history-delete");
    await page.waitForFunction(() => document.querySelectorAll(".history-entry").length === 0, undefined, TIMEOUT);
    assert.deepEqual(fs.readdirSync(dir), []);
    await page.close();
  });

  it("history: an agent with session/resume gets the kept transcript shown, then goes on", async () => {
    const server = await serve(["--resume"]);
    const page = await openChat(server, { conversation: "resume-a" });
    await ask(page, "before resume");
    await answered(page, /received before resume/);
    await page.click("#new-chat");
    await page.waitForURL((url) => url.searchParams.get("conversation") !== "resume-a", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.click("#history-button");
    await page.click(".history-open");
    await page.waitForURL((url) => url.searchParams.has("reopen"), TIMEOUT);
    await page.waitForSelector(".notice", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    assert.deepEqual(await page.locator(".message.user").allInnerTexts(), ["before resume"]);
    assert.equal(await page.locator(".notice").innerText(), "Reopened: the agent continues this conversation.");
    await ask(page, "after resume");
    await answered(page, /received after resume/);
    await page.close();
  });

  it("history: an agent without session/load or resume shows the kept transcript read-only, with Continue in a new session", async () => {
    const server = await serve([]);
    const page = await openChat(server, { conversation: "readonly-a" });
    await ask(page, "kept words");
    await answered(page, /received kept words/);
    await page.click("#new-chat");
    await page.waitForURL((url) => url.searchParams.get("conversation") !== "readonly-a", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.click("#history-button");
    await page.click(".history-open");
    await page.waitForSelector("body[data-state=ended]", TIMEOUT);
    assert.deepEqual(await page.locator(".message.user").allInnerTexts(), ["kept words"]);
    assert.match(await page.locator(".message.agent").innerText(), /received kept words/);
    assert.match(await page.locator("#banner").innerText(), /read-only/);
    assert.doesNotMatch(await page.locator("#banner").innerText(), /session\/|\bresume\b/, "said in plain words, not with ACP's method names");
    // The composer stays editable (its text goes with Continue in a new session); Send is off and says why.
    assert.equal(await page.locator("#send").isDisabled(), true);
    assert.match((await page.locator("#send").getAttribute("title")) ?? "", /read-only/);
    await page.click("#banner-new-chat");
    await page.waitForURL((url) => !url.searchParams.has("reopen"), TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    assert.equal(await page.locator(".message").count(), 0);
    await page.close();
  });

  it('"/" with no commands says so, and the user\'s message shows the moment Enter is pressed', async () => {
    const page = await openChat(await serve([]));
    assert.doesNotMatch((await page.getAttribute("#input", "placeholder")) ?? "", /commands/, "no command promised");
    await page.keyboard.type("/");
    assert.equal(await page.locator("#slash-menu").innerText(), "This agent offers no commands.");
    await page.fill("#input", "");
    // Enter and the look at the page in one task: nothing from the server can have arrived.
    const shownAtOnce = await page.evaluate(() => {
      const input = document.getElementById("input") as HTMLTextAreaElement;
      input.value = "instant";
      input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
      return [...document.querySelectorAll(".message.user")].map((each) => each.textContent);
    });
    assert.deepEqual(shownAtOnce, ["instant"]);
    await answered(page, /received instant/);
    assert.equal(await page.locator(".message.user").count(), 1, "the server's copy confirms it, no second bubble");
    assert.equal(await page.locator(".message.user.pending").count(), 0);
    await page.close();
  });
});

describe("webchat history on disk", () => {
  it("is bounded in count, per conversation and in total", () => {
    const store = new HistoryStore(tempDir("history-bounds-"), () => {});
    const big = JSON.stringify({ kind: "notice", message: "x".repeat(100_000) });
    store.save(
      { id: "huge", title: "huge", createdAt: 1, updatedAt: 1 },
      Array.from({ length: 30 }, () => big),
    );
    assert.ok(fs.statSync(path.join(store.dir, "huge.jsonl")).size <= HISTORY_LIMITS.conversationBytes);
    assert.equal(store.load("huge")!.events.length, 10, "the newest events that fit");
    for (let index = 0; index < HISTORY_LIMITS.conversations + 10; index++)
      store.save({ id: `c${index}`, title: `conversation ${index}`, createdAt: index, updatedAt: index }, [big]);
    const left = fs.readdirSync(store.dir);
    assert.ok(left.length <= HISTORY_LIMITS.conversations, `${left.length} files`);
    assert.ok(left.reduce((sum, name) => sum + fs.statSync(path.join(store.dir, name)).size, 0) <= HISTORY_LIMITS.totalBytes);
    assert.ok(left.includes(`c${HISTORY_LIMITS.conversations + 9}.jsonl`), "the newest is kept");
    assert.equal(store.load("../etc/passwd"), undefined);
    assert.equal(store.delete("../x"), false);
  });
});
