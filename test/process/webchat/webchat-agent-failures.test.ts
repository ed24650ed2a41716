// An agent that does not start never leaves
// the built-in chat stuck. In real Chromium, against the real chat server
// running the real conductor (dist/symposium-conductor.mjs) with a temporary
// config whose custom agents fail to start the ways real ones do
// (test/fixtures/failing-start-agent.ts): the chat ends in a state that says
// what happened (the agent's message, its stderr, the exit status), Send is
// off with a reason, typed text survives switching to another agent, the
// switch shows no lost-connection banner, the header names the agent as the
// picker does, and long error lines wrap. Known failures get their remedy
// (Claude Code as root, Codex without bubblewrap); a sign-in under way shows
// what the agent prints, Cancel and a time limit; Sign out is not offered
// before a sign-in. CHATUX_SCREENSHOT_DIR=DIR writes the failure states'
// pictures (light and dark).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, typePrompt } from "../../support/chat-browser.js";
import { CONDUCTOR_CLI, OUT_DIR, tempDir } from "../../support/processes.js";
import type { ChatServer } from "../../support/webchat-server.js";
import { escapeRegExp } from "../../support/conductor-run.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 20_000 };
const FAILING = path.join(OUT_DIR, "test", "fixtures", "failing-start-agent.js");
const NAMED = path.join(OUT_DIR, "test", "fixtures", "named-agent.js");
const SCREENSHOTS = process.env.CHATUX_SCREENSHOT_DIR;
/** The address failing-start-agent's "google" mode prints while it signs in. */
const GOOGLE_SIGNIN_URL = "https://accounts.google.com/o/oauth2/v2/auth?client_id=fixture.apps.googleusercontent.com&state=fixture-state";

function localAgent(id: string, name: string, script: string, args: string[]): object {
  return { id, name, distribution: { local: { command: process.execPath, args: [script, ...args] } } };
}

/** A temporary home whose config runs `agentId`; the custom agents fail at start in three ways, and "Agent B" works. */
function home(agentId: string): { dir: string; config: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("agent-failures-home-");
  const config = path.join(dir, ".symposium", "config.jsonc");
  fs.mkdirSync(path.dirname(config), { recursive: true });
  const agents = [
    localAgent("fails-session", "Session Refuser", FAILING, ["session", "Session Refuser"]),
    localAgent("exits-at-start", "Early Exiter", FAILING, ["exit", "early-exiter"]),
    localAgent("needs-sign-in", "Locked Agent", FAILING, ["auth", "Locked Agent"]),
    localAgent("agent-b", "Agent B", NAMED, ["Agent B"]),
    localAgent("claude-as-root", "Claude Code", FAILING, ["root", "Claude Code"]),
    localAgent("gemini-google", "Gemini CLI", FAILING, ["google", "Gemini CLI"]),
    localAgent("gemini-offline", "Gemini CLI", FAILING, ["google", "Gemini CLI offline"]),
    localAgent("codex-no-bwrap", "Codex", FAILING, ["bwrap", "Codex"]),
  ];
  fs.writeFileSync(config, JSON.stringify({ agent: { id: agentId }, agents }, null, 2));
  const env = {
    HOME: dir,
    USERPROFILE: dir,
    SYMPOSIUM_CONFIG: "",
    SYMPOSIUM_REGISTRY_URL: "",
    SYMPOSIUM_EDITOR_STATE_FILE: "",
    SYMPOSIUM_AGENT: "",
    SYMPOSIUM_CHAT_GRACE_MS: "60000",
  };
  return { dir, config, env };
}

describe("webchat: an agent that does not start", { skip }, () => {
  const suite = chatSuite();

  async function serve(agentId: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<ChatServer> {
    const { dir, config, env } = home(agentId);
    return suite.serve({
      agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
      extraArgs: ["--state-dir", path.join(dir, "state")],
      env: { ...env, ...extraEnv },
    });
  }

  /** The chat, in a panel-sized window, until the conversation has ended (the agent did not start). */
  async function openFailing(server: ChatServer): Promise<Page> {
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: 520, height: 640 });
    const url = new URL(server.url);
    url.searchParams.set("conversation", "first");
    await page.goto(url.toString());
    await page.waitForSelector("body[data-state=ended]", TIMEOUT);
    return page;
  }

  async function bannerText(page: Page): Promise<string> {
    return page.locator("#banner").innerText();
  }

  it("session/new fails: the agent's message and stderr, Retry and another agent; Send off saying why; the text kept across the switch", async () => {
    const server = await serve("fails-session");
    const page = await openFailing(server);
    const banner = await bannerText(page);
    assert.match(
      banner,
      /^The agent did not start a session: Internal error: agent 'Session Refuser' wrote on stderr: Session Refuser: spawn \/usr\/local\/bin\/the-cli EACCES/,
    );
    // The conductor's explanation: the command exactly as run, and where to choose another agent (the picker, not the file).
    assert.match(banner, new RegExp(`Command: ${escapeRegExp(quote([process.execPath, FAILING, "session", "Session Refuser"]))}`));
    assert.match(banner, /choose another agent with the agent picker in the chat's header/);
    assert.doesNotMatch(banner, /set "agent" in/);
    // "Choose another agent" comes with the agent list, which may arrive after the banner.
    await page.locator("#banner-choose-agent").waitFor(TIMEOUT);
    assert.deepEqual(await page.locator("#banner .actions button").allInnerTexts(), ["Retry", "Choose another agent"]);
    // One name: the header and the picker say the list's name, never a bare "Agent".
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>("#agent-picker")?.value === "fails-session", undefined, TIMEOUT);
    assert.equal(await page.locator("#status").innerText(), "Session Refuser · Did not start");
    assert.equal(await page.locator("#agent-picker option[value='']").count(), 0, "no placeholder entry");
    if (SCREENSHOTS) await screenshots(page, "session");

    // Send is off, and says why; Enter keeps the text and says why too.
    assert.equal(await page.locator("#send").isDisabled(), true);
    assert.match((await page.locator("#send").getAttribute("title")) ?? "", /the agent did not start/);
    assert.equal(await page.locator("#input").isDisabled(), false, "the composer stays editable");
    await typePrompt(page, "please keep this text");
    await page.waitForSelector("#composer-notice:not([hidden])", TIMEOUT);
    assert.match(await page.locator("#composer-notice").innerText(), /^Not sent: the agent did not start\. Retry, or choose another agent/);
    assert.equal(await page.locator("#input").inputValue(), "please keep this text");

    // Switching agents: no red lost-connection banner meanwhile, the text still in the composer.
    await page.evaluate(() => {
      const seen: string[] = [];
      new MutationObserver(() => {
        seen.push(document.getElementById("banner")!.innerText);
        sessionStorage.setItem("test/banners", JSON.stringify(seen));
      }).observe(document.getElementById("banner")!, { childList: true, subtree: true, characterData: true });
    });
    const firstUrl = page.url();
    await page.selectOption("#agent-picker", "agent-b");
    await page.waitForURL((url) => url.toString() !== firstUrl, TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    const banners = JSON.parse((await page.evaluate(() => sessionStorage.getItem("test/banners"))) ?? "[]") as string[];
    assert.deepEqual(
      banners.filter((text) => text.includes("connection to the chat server was lost")),
      [],
    );
    assert.equal(await page.locator("#banner").isHidden(), true);
    assert.equal(await page.locator("#input").inputValue(), "please keep this text", "the typed text survived the switch");
    assert.equal(await page.locator("#status").innerText(), "Agent B · Ready");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => (document.querySelector(".message.agent")?.textContent ?? "").includes("Agent B heard: please keep this text"),
      undefined,
      TIMEOUT,
    );
    await page.close();
  });

  it("an agent that exits at start: its exit status and stderr, wrapped to the panel; Retry starts it again", async () => {
    const server = await serve("exits-at-start");
    const page = await openFailing(server);
    const banner = await bannerText(page);
    assert.match(banner, /^The agent did not start: component 'agent' exited with code 3: early-exiter: fatal: no credentials at \/home\/user\//);
    assert.match(banner, /Last lines of its stderr:[\s\S]*early-exiter: starting/);
    assert.equal(banner.match(/What to try:/g)?.length, 1, "the advice once, not again in the stderr tail");
    assert.doesNotMatch(banner, /--trace|SYMPOSIUM_LOG|config\.jsonc/, "no conductor flags, no config file the user never wrote");
    assert.equal(await page.locator("#status").innerText(), "Early Exiter · Did not start");
    // The long stderr line wraps inside the banner: nothing is cut at the panel's edge.
    const overflow = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("#banner, #banner pre")].map((element) => element.scrollWidth - element.clientWidth),
    );
    assert.ok(
      overflow.every((pixels) => pixels <= 1),
      `the banner and its blocks overflow by ${overflow.join(", ")} px`,
    );
    if (SCREENSHOTS) await screenshots(page, "exit");
    const firstConversation = new URL(page.url()).searchParams.get("conversation");
    await page.click("#banner-retry");
    await page.waitForURL((url) => url.searchParams.get("conversation") !== firstConversation, TIMEOUT);
    await page.waitForSelector("body[data-state=ended]", TIMEOUT);
    assert.match(await bannerText(page), /exited with code 3/, "started again, and said again why it stopped");
    await page.close();
  });

  it("an agent that wants a sign-in first: the card, a status that says so, Send off saying why, and Try again", async () => {
    const server = await serve("needs-sign-in");
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: 520, height: 640 });
    await page.goto(server.url.toString());
    await page.waitForSelector(".signin", TIMEOUT);
    // The agent's own command with the method's args: the conductor in front of it would not sign anybody in.
    await page.waitForFunction(() => document.querySelector(".signin-command")?.textContent !== "", undefined, TIMEOUT);
    assert.equal(await page.locator(".signin-command").innerText(), quote([process.execPath, FAILING, "auth", "Locked Agent", "--login"]));
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "Locked Agent · Sign in to start", undefined, TIMEOUT);
    assert.equal(await page.locator("#send").isDisabled(), true);
    assert.match((await page.locator("#send").getAttribute("title")) ?? "", /sign in first/);
    assert.equal(await page.locator(".signin-retry").innerText(), "Try again");
    assert.equal(await page.locator("#sign-out").isHidden(), true, "not signed in: no Sign out beside 'Sign in to start'");
    if (SCREENSHOTS) await screenshots(page, "signin");
    await page.close();
  });

  it("Claude Code run as root: the banner says so, and what to do (a normal user, or IS_SANDBOX=1 where root is intended)", async () => {
    const server = await serve("claude-as-root");
    const page = await openFailing(server);
    const banner = await bannerText(page);
    assert.match(
      banner,
      /^The agent did not start a session: Internal error: --dangerously-skip-permissions cannot be used with root\/sudo privileges for security reasons: Claude Code does not start as root\b[\s\S]*To fix: run VS Code \(or the chat\) as a normal user, not root/,
    );
    assert.match(
      banner,
      /What to try:\n- run VS Code \(or the chat\) as a normal user, not root\n- or, in a container or sandbox where running as root is intended, set IS_SANDBOX=1 for the agent/,
    );
    assert.equal(banner.match(/What to try:/g)?.length, 1);
    assert.doesNotMatch(banner, /--trace|SYMPOSIUM_LOG/);
    await page.locator("#banner-choose-agent").waitFor(TIMEOUT);
    assert.equal(await page.locator("#status").innerText(), "Claude Code · Did not start");
    if (SCREENSHOTS) await screenshots(page, "root");
    await page.close();
  });

  it("an agent chosen in the picker that does not start: no 'New conversation with' under its failure", async () => {
    const server = await serve("agent-b");
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: 520, height: 640 });
    await page.goto(server.url.toString());
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>("#agent-picker option[value='fails-session']") !== null, undefined, TIMEOUT);
    await page.selectOption("#agent-picker", "fails-session");
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "Session Refuser · Did not start", undefined, TIMEOUT);
    await page.locator("#banner-retry").waitFor(TIMEOUT);
    assert.doesNotMatch(await page.locator("#transcript").innerText(), /New conversation with/);
    await page.close();
  });

  it("Log in with Google pending: the agent's address on the card, Cancel, the time limit, and what to try after", async () => {
    const server = await serve("gemini-google");
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: 520, height: 640 });
    await page.goto(server.url.toString());
    await page.locator(".signin-method", { hasText: "Log in with Google" }).click(TIMEOUT);
    await page.waitForSelector(".signin-pending", TIMEOUT);
    await page.waitForFunction((url) => document.querySelector(".signin-output")?.textContent?.includes(url) === true, GOOGLE_SIGNIN_URL, TIMEOUT);
    const pending = await page.locator(".signin-pending").innerText();
    assert.match(pending, /^Signing in with Log in with Google…/);
    assert.match(pending, /the chat gives up after 3 min/);
    assert.match(pending, /Please visit the following URL to authorize the application:/);
    assert.match(pending, /Waiting for authentication\.\.\./, "its stderr too");
    assert.equal(await page.locator(".signin-method").isDisabled(), true, "one sign-in at a time");
    assert.equal(await page.locator(".signin-cancel").innerText(), "Cancel");
    if (SCREENSHOTS) await screenshots(page, "signin-pending");
    await page.click(".signin-cancel");
    await page.waitForSelector(".signin-pending", { state: "detached", ...TIMEOUT });
    await page.waitForFunction(() => (document.querySelector(".signin-outcome")?.textContent ?? "") !== "", undefined, TIMEOUT);
    assert.equal(
      await page.locator(".signin-outcome").innerText(),
      "The sign-in was cancelled. What to try: open the address the agent printed (above) in a browser yourself, or run `gemini` in a terminal and choose how to log in, or set GEMINI_API_KEY; then press Try again.",
    );
    assert.match(await page.locator(".signin-output.kept").innerText(), new RegExp(escapeRegExp(GOOGLE_SIGNIN_URL)), "what the agent printed stays");
    assert.equal(await page.locator(".signin-method").isDisabled(), false, "the method can be tried again");
    await page.close();
  });

  it("Gemini's answer on its prompt's line (offline): the sign-in fails at once, with what it printed and what to try", async () => {
    const server = await serve("gemini-offline");
    const page = await suite.browser.newPage();
    await page.goto(server.url.toString());
    await page.locator(".signin-method", { hasText: "Log in with Google" }).click(TIMEOUT);
    await page.waitForFunction(() => (document.querySelector(".signin-outcome")?.textContent ?? "") !== "", undefined, TIMEOUT);
    assert.match(
      await page.locator(".signin-outcome").innerText(),
      /^The sign-in failed: Failed to authenticate with user code\b[\s\S]* What to try: open the address the agent printed/,
    );
    assert.match(await page.locator(".signin-output.kept").innerText(), /oauth2\.googleapis\.com\/token failed/);
    await page.close();
  });

  it("a sign-in that never finishes ends at the time limit, saying why and what to try", async () => {
    const server = await serve("gemini-google", { SYMPOSIUM_CHAT_SIGNIN_TIMEOUT_MS: "1500" });
    const page = await suite.browser.newPage();
    await page.goto(server.url.toString());
    await page.locator(".signin-method", { hasText: "Log in with Google" }).click(TIMEOUT);
    await page.waitForFunction(() => (document.querySelector(".signin-outcome")?.textContent ?? "") !== "", undefined, TIMEOUT);
    assert.match(
      await page.locator(".signin-outcome").innerText(),
      /^The sign-in did not finish within 1 min: the agent may be waiting for a browser page that never opened here, or for a server it cannot reach\. What to try: open the address the agent printed \(above\) in a browser yourself, or run `gemini` in a terminal/,
    );
    assert.equal(await page.locator(".signin-pending").count(), 0);
    await page.close();
  });

  it("Codex without bubblewrap: the failed tool call is followed by the cause and how to install it", async () => {
    const server = await serve("codex-no-bwrap");
    const page = await suite.browser.newPage();
    await page.goto(server.url.toString());
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await typePrompt(page, "add a line to hello.txt");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (document.querySelector("#transcript .error")?.textContent ?? "").includes("bubblewrap"), undefined, TIMEOUT);
    const error = await page.locator("#transcript .error").innerText();
    assert.match(error, /^Codex's sandbox on Linux needs bubblewrap \(bwrap\), which is not installed here\./);
    assert.match(error, /install bubblewrap \(Debian, Ubuntu: sudo apt-get install bubblewrap/);
    await page.close();
  });

  async function screenshots(page: Page, name: string): Promise<void> {
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      await page.screenshot({ path: path.join(SCREENSHOTS!, `chatux-${name}-${theme}.png`) });
    }
  }
});
