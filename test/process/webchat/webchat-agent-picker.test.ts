// The agent picker in the header, in
// real Chromium against the real chat server running the real conductor
// (dist/symposium-conductor.mjs) with a temporary config holding two custom
// local agents (test/fixtures/named-agent.ts). Choosing agent B saves it
// through `registry use`, starts a new conversation that B answers, and
// leaves the first conversation in the history. A page cannot choose an id
// the list does not have; a command that is not our conductor gets no picker.
// With no configuration, the first-run menu's choice opens a new conversation
// with the chosen agent, which answers the question asked of the menu.
// While `run` downloads a binary agent (a stalled download from a local
// server), the status says "Installing <id> <version>…".
// WEBCHAT_SCREENSHOT_DIR=docs writes the picker's pictures (light and dark).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, loadChat, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import { recordingTarball, startRegistryServer } from "../../support/registry-server.js";
import { CHAT_AGENT_COMMAND, type ChatServer } from "../../support/webchat-server.js";
import { platformKey } from "../../../conductor-hooks/src/registry-format.js";
import { ourConductor } from "../../../webchat/src/agent-catalog.js";
import type { AgentCommand } from "../../../webchat/src/agent-command.js";
import { parseArgs } from "../../../webchat/src/args.js";
import { builtinChatArgs } from "../../../extension/src/panel/frontend-command-line.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 20_000 };
const NAMED_AGENT = path.join(OUT_DIR, "test", "fixtures", "named-agent.js");
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

function namedAgent(id: string, name: string): object {
  return { id, name, description: `the test agent ${name}`, distribution: { local: { command: process.execPath, args: [NAMED_AGENT, name] } } };
}

/** A temporary home whose config runs agent A, with A and B as custom agents; the registry is the shipped snapshot (no network). */
function home(): { dir: string; config: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("agent-picker-home-");
  const config = path.join(dir, ".symposium", "config.jsonc");
  fs.mkdirSync(path.dirname(config), { recursive: true });
  const agents = [namedAgent("agent-a", "Agent A"), namedAgent("agent-b", "Agent B")];
  fs.writeFileSync(config, JSON.stringify({ agent: { id: "agent-a" }, agents }, null, 2));
  return {
    dir,
    config,
    env: {
      HOME: dir,
      USERPROFILE: dir,
      SYMPOSIUM_CONFIG: "",
      SYMPOSIUM_REGISTRY_URL: "",
      SYMPOSIUM_EDITOR_STATE_FILE: "",
      SYMPOSIUM_AGENT: "",
      SYMPOSIUM_CHAT_GRACE_MS: "60000",
    },
  };
}

describe("webchat agent picker", { skip }, () => {
  const suite = chatSuite();

  /** The chat server running `<node> dist/symposium-conductor.mjs run --config <config>`, as the extension runs it. */
  async function serveConductor(): Promise<{ server: ChatServer; config: string }> {
    const { dir, config, env } = home();
    const server = await suite.serve({
      agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
      extraArgs: ["--state-dir", path.join(dir, "state")],
      env,
    });
    return { server, config };
  }

  async function openChat(server: ChatServer): Promise<Page> {
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: 900, height: 560 });
    return loadChat(page, server, { conversation: "first" }, TIMEOUT.timeout);
  }

  const ask = typePrompt;

  async function answered(page: Page, text: string): Promise<void> {
    await page
      .waitForFunction((wanted) => [...document.querySelectorAll(".message.agent")].some((each) => each.textContent?.includes(wanted)), text, TIMEOUT)
      .catch(async (error: Error) => {
        throw new Error(`${error.message}: no answer with "${text}" in:\n${await page.locator("#transcript").innerText()}`);
      });
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
  }

  it("lists the conductor's agents with the current one; choosing B starts a new conversation B answers; the first stays in the history", async () => {
    const { server, config } = await serveConductor();
    const page = await openChat(server);
    await page.waitForSelector("#agent-picker:not([hidden])", TIMEOUT);
    const ids = await page.locator("#agent-picker option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    // The config's custom agents first, then the built-ins and the shipped registry snapshot.
    assert.deepEqual(ids.slice(0, 2), ["agent-a", "agent-b"]);
    assert.ok(ids.includes("demo"), `the built-in demo agent in ${ids.join(", ")}`);
    assert.ok(ids.length > 4, "the registry snapshot's agents too");
    assert.equal(await page.locator("#agent-picker").inputValue(), "agent-a", "the running agent is shown as the current one");

    await ask(page, "who are you?");
    await answered(page, "Agent A heard: who are you?");
    const firstUrl = page.url();

    await page.selectOption("#agent-picker", "agent-b");
    await page.waitForURL((url) => url.toString() !== firstUrl && url.searchParams.get("conversation") !== "first", TIMEOUT);
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    await page.waitForFunction(() => document.querySelector("#transcript .notice")?.textContent === "New conversation with Agent B", undefined, TIMEOUT);
    assert.match(fs.readFileSync(config, "utf8"), /"agent": \{\s*"id": "agent-b"/, "registry use wrote B as the config's agent");
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>("#agent-picker")?.value === "agent-b", undefined, TIMEOUT);
    assert.match(await page.locator("#status").innerText(), /^Agent B · Ready/);

    await ask(page, "and now?");
    await answered(page, "Agent B heard: and now?");
    assert.equal(await page.locator(".message.agent").count(), 1, "a new conversation: only B's answer");

    await page.click("#history-button");
    await page.waitForFunction(() => document.querySelectorAll(".history-entry").length === 2, undefined, TIMEOUT);
    assert.deepEqual((await page.locator(".history-title").allInnerTexts()).sort(), ["and now?", "who are you?"]);
    if (SCREENSHOTS) await screenshots(page);
    await page.close();
  });

  it("a first run: the menu's choice opens a new conversation, where the chosen agent answers the question asked first", async () => {
    const { dir, config, env } = home();
    fs.rmSync(config); // no configuration: the conductor starts the first-run menu
    const server = await suite.serve({
      agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
      extraArgs: ["--state-dir", path.join(dir, "state")],
      env,
    });
    const page = await openChat(server);
    await ask(page, "what can you do?");
    await answered(page, "Welcome to Symposium!");
    const firstUrl = page.url();

    await ask(page, "demo");
    await page.waitForURL((url) => url.toString() !== firstUrl && url.searchParams.get("conversation") !== "first", TIMEOUT);
    await page.waitForFunction(
      () => document.querySelector("#transcript .notice")?.textContent === "New conversation with Built-in demo agent",
      undefined,
      TIMEOUT,
    );
    // The question asked of the menu is sent in the new conversation once the agent is ready, and answered there.
    await answered(page, "I am Symposium's built-in demo agent");
    assert.deepEqual(await page.locator(".message.user").allInnerTexts(), ["what can you do?"]);
    assert.match(await page.locator(".message.agent").innerText(), /what can you do\?/);
    assert.match(await page.locator("#status").innerText(), /^Built-in demo agent · Ready/);
    assert.match(fs.readFileSync(config, "utf8"), /"id": "demo"/);

    await page.click("#history-button");
    await page.waitForFunction(() => document.querySelectorAll(".history-entry").length === 2, undefined, TIMEOUT);
    assert.deepEqual(await page.locator(".history-title").allInnerTexts(), ["what can you do?", "what can you do?"]);
    await page.close();
  });

  it("a page's choice must be an id from the list: another is refused, the config unchanged, the server going on", async () => {
    const { server, config } = await serveConductor();
    const page = await openChat(server);
    await page.waitForSelector("#agent-picker:not([hidden])", TIMEOUT);
    const before = fs.readFileSync(config, "utf8");
    // A second socket from the page's own origin sends what the picker never would.
    const answers = await page.evaluate(async (token) => {
      const socket = new WebSocket(new URL(`ws?token=${token}&conversation=rogue`, location.href).toString().replace(/^http/, "ws"));
      const got: unknown[] = [];
      socket.addEventListener("message", (event) => {
        const message = JSON.parse(String(event.data)) as { type: string };
        if (message.type === "agentChoice") got.push(message);
      });
      await new Promise((resolve) => socket.addEventListener("open", resolve));
      // A choice of the wrong shape (42) is refused by the server's check of page messages
      // before any agent list is asked, with a line in its log, not an answer.
      socket.send(JSON.stringify({ type: "chooseAgent", id: 42 }));
      for (const id of ["../../etc/passwd", "agent-a; rm -rf /"]) {
        socket.send(JSON.stringify({ type: "chooseAgent", id }));
        const count = got.length;
        await new Promise<void>((resolve) => {
          const poll = setInterval(() => got.length > count && (clearInterval(poll), resolve()), 20);
        });
      }
      socket.close();
      return got;
    }, server.token);
    assert.deepEqual(
      answers.map((answer) => (answer as { ok: boolean }).ok),
      [false, false],
    );
    assert.match((answers[0] as { message: string }).message, /no agent with the id "\.\.\/\.\.\/etc\/passwd" in the list; choose one the picker shows/);
    await eventually(
      () => server.process.stderr().includes('ignored a page message: chooseAgent: "id" must be a string, not a number'),
      5_000,
      "the wrong shape in the server's log",
    );
    assert.equal(fs.readFileSync(config, "utf8"), before);
    assert.equal(server.process.child.exitCode, null);
    await eventually(() => server.process.stderr().includes("refused an agent choice: no agent with the id"), 5_000, "the refusal in the server's log");
    // The picker still works after that.
    await page.selectOption("#agent-picker", "agent-b");
    await page.waitForFunction(() => document.querySelector("#transcript .notice")?.textContent === "New conversation with Agent B", undefined, TIMEOUT);
    await page.close();
  });

  it("a command that is not our conductor: no picker, and chooseAgent is ignored", async () => {
    const server = await suite.serve({ command: CHAT_AGENT_COMMAND });
    const page = await openChatPage(suite.browser, server, {}, TIMEOUT.timeout);
    await page.evaluate(() => {
      // The page's own socket is private to its module: a second one from the same origin sends the choice.
      const socket = new WebSocket(new URL(`ws${location.search}`, location.href).toString().replace(/^http/, "ws"));
      socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "chooseAgent", id: "demo" })));
    });
    await eventually(
      () => server.process.stderr().includes("ignored chooseAgent: the agent command is not Symposium's conductor"),
      5_000,
      "the ignored choice in the log",
    );
    assert.equal(await page.locator("#agent-picker").isHidden(), true);
    assert.equal(server.process.child.exitCode, null);
    await page.close();
  });

  it("while the conductor downloads the agent the status says what it installs, and a stalled download ends the start saying so", async () => {
    const archives = await startRegistryServer();
    try {
      archives.files.set("/slow.tar.gz", (await recordingTarball("binary")).bytes);
      archives.stalled.add("/slow.tar.gz");
      const { dir, config, env } = home();
      const binary = { [platformKey()!]: { archive: archives.url("/slow.tar.gz"), cmd: "bin/recording-agent" } };
      const slow = { id: "slow-agent", name: "Slow agent", version: "1.0.0", distribution: { binary } };
      fs.writeFileSync(config, JSON.stringify({ agent: { id: "slow-agent" }, agents: [slow] }));
      const server = await suite.serve({
        agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
        extraArgs: ["--state-dir", path.join(dir, "state")],
        env: { ...env, SYMPOSIUM_DOWNLOAD_STALL_MS: "3000" },
      });
      const page = await suite.browser.newPage();
      await page.goto(server.url.toString());
      // Once the picker's list arrives the agent's name comes first ("Slow agent · Installing …").
      await page.waitForFunction(() => document.querySelector("#status")?.textContent?.endsWith("Installing slow-agent 1.0.0…"), undefined, TIMEOUT);
      await page.waitForSelector("body[data-state=ended]", TIMEOUT);
      assert.match(await page.locator("#banner").innerText(), /the download of .*\/slow\.tar\.gz stalled: nothing arrived for 3 s/);
      await page.close();
    } finally {
      await archives.close();
    }
  });

  async function screenshots(page: Page): Promise<void> {
    const dir = SCREENSHOTS!;
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      const file = path.join(dir, `webchat-agent-picker-${theme}.png`);
      await page.screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 5_000);
    }
  }
});

describe("the agent picker finds our conductor in the agent command", () => {
  const conductor = { program: "/opt/VS Code/code", args: ["/ext's dir/dist/symposium-conductor.mjs"], env: { ELECTRON_RUN_AS_NODE: "1" } };
  const program = (words: string[], env: Record<string, string> = {}): AgentCommand => ({ kind: "program", program: words[0]!, args: words.slice(1), env });

  it("takes the conductor from the program and arguments the extension gives the chat, none of them split again", () => {
    assert.deepEqual(ourConductor(parseArgs(builtinChatArgs(conductor, "/p"), "/").command), { ...conductor, configArgs: [] });
    const windows = {
      program: "C:\\Program Files\\Microsoft VS Code\\Code.exe",
      args: ["C:\\Users\\me\\.vscode\\ext (1)\\dist\\symposium-conductor.mjs"],
      env: { ELECTRON_RUN_AS_NODE: "1" },
    };
    assert.deepEqual(ourConductor(parseArgs(builtinChatArgs(windows, "C:\\p"), "/").command), { ...windows, configArgs: [] });
    assert.deepEqual(ourConductor(program(["node", "/x/symposium-conductor.mjs", "run", "--config", "/tmp/my config.jsonc"]))?.configArgs, [
      "--config",
      "/tmp/my config.jsonc",
    ]);
    assert.deepEqual(ourConductor(program(["symposium-conductor", "run"])), { program: "symposium-conductor", args: [], env: {}, configArgs: [] });
  });

  it("anything else is not ours: another conductor, a wrapper in front of ours, another subcommand, a command line for the shell", () => {
    for (const words of [
      ["symposium-acp-agent", "run"],
      ["node", "/d/symposium-editor-context.mjs", "--", "node", "/d/symposium-conductor.mjs", "run"],
      ["node", "/d/symposium-conductor.mjs", "agent", "my-agent"],
      ["npx", "-y", "@zed-industries/claude-code-acp"],
    ]) {
      assert.equal(ourConductor(program(words)), undefined, words.join(" "));
    }
    // A line for the shell is the user's own, run as it is (Toad's contract): never split to look inside.
    assert.equal(ourConductor({ kind: "shell", line: "symposium-conductor run" }), undefined);
  });
});
