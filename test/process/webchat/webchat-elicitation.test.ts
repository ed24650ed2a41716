// Elicitation and usage in the chat page, in real Chromium against the real chat server and
// a fixture agent written with the ACP SDK (test/fixtures/elicitation-agent.ts):
// the agent's questions (elicitation, form and URL modes) as cards answered by
// keyboard and clicks, a secret never kept, schemas and addresses the chat
// refuses, and the context meter from usage_update with absurd figures ignored.
// WEBCHAT_SCREENSHOT_DIR=/tmp writes the pictures (light and dark).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { OUT_DIR, tempDir } from "../../support/processes.js";
import type { ChatServer } from "../../support/webchat-server.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 10_000 };
const AGENT = path.join(OUT_DIR, "test", "fixtures", "elicitation-agent.js");
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;
const SECRET = "hunter2-secret-XYZ";

describe("webchat: elicitation and usage", { skip }, () => {
  const suite = chatSuite();
  const stateDirs = new Map<ChatServer, string>();

  async function serve(): Promise<ChatServer> {
    const stateDir = tempDir("webchat-state-");
    const server = await suite.serve({ command: quote([process.execPath, AGENT]), extraArgs: ["--state-dir", stateDir] });
    stateDirs.set(server, stateDir);
    return server;
  }

  /**
   * The last prompt's turn is over and its answer matches `pattern`: every message sent has its
   * answer (so an earlier answer that matches too is not taken for this one's).
   */
  async function answered(page: Page, pattern: RegExp): Promise<string> {
    await page
      .waitForFunction(
        (source) => {
          const answers = [...document.querySelectorAll(".message.agent")];
          const caughtUp = answers.length >= document.querySelectorAll(".message.user").length && document.body.dataset.state === "ready";
          return caughtUp && new RegExp(source).test(answers.at(-1)?.textContent?.trim() ?? "");
        },
        pattern.source,
        TIMEOUT,
      )
      .catch(async (error: Error) => {
        throw new Error(`${error.message}: no answer matching ${pattern} in:\n${await page.locator("#transcript").innerText()}`);
      });
    return page.locator(".message.agent").last().innerText();
  }

  async function screenshots(page: Page, name: string): Promise<void> {
    const dir = SCREENSHOTS ?? tempDir("webchat-shots-");
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      const file = path.join(dir, `acp2026-${name}-${theme}.png`);
      await page.screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 5_000);
    }
  }

  /** Every file under `dir`, read whole. */
  function filesText(dir: string): string {
    if (!fs.existsSync(dir)) return "";
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8"))
      .join("\n");
  }

  it("initialize advertises both elicitation modes", async () => {
    const page = await openChatPage(suite.browser, await serve());
    await typePrompt(page, "caps");
    await answered(page, /^caps \{"form":\{\},"url":\{\}\}$/);
    await page.close();
  });

  it("a form: fields from the schema, checked before sending; the secret is masked, sent once, and kept nowhere", async () => {
    const server = await serve();
    const page = await openChatPage(suite.browser, server);
    await page.setViewportSize({ width: 820, height: 640 });
    await typePrompt(page, "form");
    const card = page.locator(".elicitation.form");
    await card.waitFor(TIMEOUT);
    assert.equal(await card.locator(".elicitation-message").innerText(), "A few details, please");
    assert.equal(await card.locator("[data-field=token] input").getAttribute("type"), "password", "a writeOnly field is a password input");
    assert.equal(await card.locator("[data-field=count] input").inputValue(), "2", "the schema's default");
    // Too short a name: the card says why and sends nothing.
    await card.locator("[data-field=name] input").fill("A");
    await card.locator(".elicitation-submit").click();
    assert.match(await card.locator("[data-field=name] .elicitation-problem").innerText(), /Your name needs at least 2 characters/);
    assert.equal(await page.evaluate(() => document.body.dataset.state), "prompting", "nothing was answered");
    await card.locator("[data-field=name] input").fill("Ada");
    await card.locator("[data-field=token] input").fill(SECRET);
    await card.locator("[data-field=count] input").fill("9");
    await card.locator("[data-field=colour] select").selectOption("blue");
    await card.locator("[data-field=agree] input").check();
    await card.locator("[data-field=name] input").focus();
    await page.keyboard.press("Enter");
    assert.match(await card.locator("[data-field=count] .elicitation-problem").innerText(), /How many must be at most 5/);
    await screenshots(page, "elicitation-form");
    await card.locator("[data-field=count] input").fill("3");
    await card.locator("[data-field=count] input").press("Enter");
    const said = await answered(page, /^form accept /);
    assert.deepEqual(JSON.parse(said.slice("form accept ".length)), {
      name: "Ada",
      token: `<${SECRET.length} characters>`,
      count: 3,
      colour: "blue",
      agree: true,
    });
    await card.locator(".elicitation-outcome").filter({ hasText: "Answered." }).waitFor(TIMEOUT);
    assert.equal(await card.locator("[data-field=token] input").inputValue(), "", "the secret is emptied once sent");
    // Nowhere kept: not in the page, not in what a reload replays, not in the history on disk.
    assert.ok(!(await page.content()).includes(SECRET));
    const reloaded = await openChatPage(suite.browser, server);
    assert.ok(!(await reloaded.content()).includes(SECRET));
    assert.ok(!filesText(stateDirs.get(server)!).includes(SECRET), "the history holds no secret");
    await Promise.all([page.close(), reloaded.close()]);
  });

  it("Decline and Cancel answer the agent; Escape cancels the turn and the question with it", async () => {
    const page = await openChatPage(suite.browser, await serve());
    await typePrompt(page, "form");
    await page.locator(".elicitation .elicitation-decline").click();
    await answered(page, /^form decline$/);
    assert.equal(await page.locator(".elicitation .elicitation-outcome").last().innerText(), "Declined.");
    await typePrompt(page, "form");
    await page.locator(".elicitation:not(.settled) .elicitation-cancel").click();
    await answered(page, /^form cancel$/);
    await typePrompt(page, "form");
    await page.locator(".elicitation:not(.settled)").waitFor(TIMEOUT);
    await page.keyboard.press("Escape");
    await answered(page, /^form cancel$/);
    assert.equal(await page.locator(".elicitation:not(.settled)").count(), 0);
    await page.close();
  });

  it("a URL question: the address shown whole, opened outside the chat's frame on a click; complete marks it done", async () => {
    const server = await serve();
    const page = await openChatPage(suite.browser, server);
    await page.setViewportSize({ width: 820, height: 420 });
    // An address that answers (the chat server's own, which refuses it without the secret): the tab stays on it.
    const origin = new URL(server.url).origin;
    const address = `${origin}/sign-in?state=abc`;
    await typePrompt(page, `url ${address}`);
    const card = page.locator(".elicitation.url");
    await card.waitFor(TIMEOUT);
    assert.equal(await card.locator(".elicitation-url code").innerText(), address);
    assert.equal(await card.locator(".elicitation-url strong").innerText(), new URL(origin).host);
    await screenshots(page, "elicitation-url");
    const [popup] = await Promise.all([page.waitForEvent("popup", TIMEOUT), card.locator(".elicitation-open").click()]);
    await popup.waitForLoadState();
    assert.equal(popup.url(), address);
    assert.equal(await popup.evaluate(() => window.opener === null), true, "no handle back to the chat");
    await popup.close();
    await answered(page, /^url accept$/);
    await card.locator(".elicitation-outcome").filter({ hasText: /^Done/ }).waitFor(TIMEOUT);
    await page.close();
  });

  it("refused: javascript: and file: addresses, a schema of 1,000 fields, a nested schema: a clear message, the agent gets an error", async () => {
    const page = await openChatPage(suite.browser, await serve());
    const cases: Array<[string, RegExp]> = [
      ["url javascript:alert(1)", /the chat opens only http and https addresses, not "javascript:alert\(1\)"/],
      ["url file:///etc/passwd", /the chat opens only http and https addresses, not "file:\/\/\/etc\/passwd"/],
      ["huge", /the form asks for 1000 fields \(at most 32\)/],
      ["nested", /the field "inner" is of type "object": a form takes only strings, numbers, booleans and lists of choices/],
    ];
    for (const [prompt, why] of cases) {
      const errors = await page.locator("#transcript .error").count();
      await typePrompt(page, prompt);
      const said = await answered(page, /^refused: /);
      assert.match(said, why);
      await page.waitForFunction((count) => document.querySelectorAll("#transcript .error").length > count, errors, TIMEOUT);
      assert.match(await page.locator("#transcript .error").last().innerText(), new RegExp(`The agent asked a question the chat cannot show: ${why.source}`));
    }
    assert.equal(await page.locator(".elicitation").count(), 0, "no card for a refused question");
    await page.close();
  });

  it("usage_update: a context meter in the header; negative or absurd figures are ignored, used is clamped to the window", async () => {
    const page = await openChatPage(suite.browser, await serve());
    await page.setViewportSize({ width: 820, height: 300 });
    const meter = page.locator("#usage-meter");
    assert.equal(await meter.isHidden(), true, "no meter before the agent says anything");
    await typePrompt(page, "usage 50000 200000 1.5");
    await answered(page, /^usage 50000/);
    await meter.filter({ hasText: "50k / 200k · $1.50" }).waitFor(TIMEOUT);
    await screenshots(page, "usage");
    for (const absurd of ["usage -5 200000", "usage 1e15 1e16", "usage NaN 100"]) {
      await typePrompt(page, absurd);
      await answered(page, /^usage /);
      assert.equal(await meter.locator(".usage-label").innerText(), "50k / 200k · $1.50", absurd);
    }
    await typePrompt(page, "usage 300000 200000");
    await answered(page, /^usage 300000/);
    await meter.filter({ hasText: "200k / 200k" }).waitFor(TIMEOUT);
    assert.equal(await meter.locator("meter").evaluate((element) => (element as HTMLMeterElement).value), 1);
    await page.close();
  });
});
