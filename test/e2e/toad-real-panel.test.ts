// The chat panel in code-server + Chromium with the real Toad
// (scripts/install-toad.sh) named by symposium.toadCommand, driven like a
// user: select a line, open the panel, type into Toad's terminal; the agent
// behind our conductor (a recording agent) gets exactly one editor-context
// block with the selection; Stop ends the whole tree.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { e2eSkipReason, openFile } from "../harness/code-server.js";
import { hostProcesses } from "../support/panel-host.js";
import { descendants, eventually, isAlive, tempDir } from "../support/processes.js";
import { RECORDING_AGENT, TOAD_LAUNCHER, readAgentRecords, realToadSkip } from "../support/toad.js";
import { settled, typeInto, watchTerminalOutput, type ToadPage } from "../support/toad-page.js";
import { chatFrame, command, demoWindowSuite, gatePort, panelStatusFrame } from "./panel-helpers.js";

const skip = e2eSkipReason() || realToadSkip();

/** Types `text` into Toad's prompt as a user pasting it, and sends it once Toad has drawn it. */
const pasteInto = (frame: ToadPage, text: string): Promise<void> => typeInto(frame, text, { paste: true });

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** A Toad app (Toad titles it "toad"), a conductor or an agent. */
function isAppOrAgent(pid: number): boolean {
  const command = commandOf(pid);
  return (
    command === "toad" || (!command.startsWith("/bin/sh") && !command.includes("--serve") && /symposium-conductor\.mjs run|toad-recording-agent/.test(command))
  );
}

/**
 * Selects line `line` of main.rs like a user; once an agent has told us where
 * the editor state file is, waits until the tracker has written `expect` there
 * (on a loaded machine its debounce runs late), selecting again if it never does.
 */
async function selectLine(page: Page, line: number, expect: string, stateFile: () => string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // The keyboard back to the workbench (after typing, Toad's terminal has it).
    await page.locator(".part.editor").click({ position: { x: 600, y: 300 } });
    await openFile(page, "main.rs");
    await page.keyboard.press("Control+Home");
    for (let i = 1; i < line; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Shift+End");
    await page.waitForTimeout(400); // the tracker's debounce
    const file = stateFile();
    if (!file) return;
    const written = await eventually(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").includes(expect), 10_000, `the selection in ${file}`).then(
      () => true,
      () => false,
    );
    if (written) return;
    if (attempt === 3)
      assert.fail(`the tracker never wrote the selection of line ${line} to ${file}: ${fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "(no file)"}`);
  }
}

describe("chat panel in code-server with the real Toad", { skip, timeout: 600_000 }, () => {
  const record = path.join(tempDir("symposium-toad-e2e-"), "agent.jsonl");
  const records = () => readAgentRecords(record);
  const prompts = (): string[][] =>
    records()
      .filter((entry) => entry.prompt)
      .map((entry) => entry.prompt!.map((block) => block.text ?? ""));

  const stateFile = (): string | undefined => records().find((entry) => entry.start)?.env?.SYMPOSIUM_EDITOR_STATE_FILE;

  const demo = demoWindowSuite({ TOAD_AGENT_RECORD: record }, { "symposium.toadCommand": TOAD_LAUNCHER }, async ({ page }) => {
    // The conductor reads its config at each start: the recording agent instead of the demo agent.
    fs.writeFileSync(
      process.env.SYMPOSIUM_CONFIG!,
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(RECORDING_AGENT)}`, proxies: [] }),
    );
    await page.addInitScript(watchTerminalOutput);
  });

  it("shows Toad's page through the gate; a question typed into it reaches the agent with exactly one editor-context block, twice", async () => {
    await selectLine(demo.page, 2, "hello from the sample workspace", stateFile);
    await demo.page.keyboard.press("Control+Alt+Y");
    const frame = await chatFrame(demo.page, "body.-first-byte", 60_000);
    await eventually(() => records().some((entry) => entry.start), 30_000, "Toad's app to start the conductor and agent");
    await eventually(() => fs.readFileSync(stateFile()!, "utf8").includes("hello from the sample workspace"), 10_000, "the selection in the state file");
    await pasteInto(frame, "what does the selected line do?");
    await eventually(() => prompts().length === 1, 30_000, "the question to reach the agent");
    const blocks = prompts()[0]!.filter((text) => text.startsWith("<editor-context>"));
    assert.equal(blocks.length, 1, JSON.stringify(prompts()[0]));
    assert.match(blocks[0]!, /let greeting = "hello from the sample workspace";/);
    assert.ok(
      prompts()[0]!.some((text) => text === "what does the selected line do?"),
      JSON.stringify(prompts()[0]),
    );
    if (process.env.SYMPOSIUM_SCREENSHOT_TOAD) {
      await settled(frame);
      await demo.page.screenshot({ path: process.env.SYMPOSIUM_SCREENSHOT_TOAD });
    }

    await selectLine(demo.page, 1, "fn main() {", stateFile);
    await pasteInto(frame, "and this one?");
    await eventually(() => prompts().length === 2, 30_000, "the second question to reach the agent");
    const second = prompts()[1]!.filter((text) => text.startsWith("<editor-context>"));
    assert.equal(second.length, 1);
    assert.match(second[0]!, /fn main\(\)/);
    assert.doesNotMatch(second[0]!, /hello from the sample workspace/);
    for (const { env } of records().filter((entry) => entry.start))
      assert.equal(env!.SYMPOSIUM_CHAT_TOKEN, undefined, "no secret of ours in the agent's environment");
  });

  it("works the same through code-server's /proxy/PORT/ (remote development): page, websocket, a question with the selection", async () => {
    const [chat] = demo.page.frames().filter((each) => /[?&]token=/.test(each.url()));
    assert.ok(chat, "the chat's frame");
    const port = gatePort(chat);
    const secret = new URL(chat.url()).searchParams.get("token")!;
    const context = await demo.browser.newContext();
    await context.addCookies(await demo.page.context().cookies()); // code-server's login, as the panel has it
    const proxied = await context.newPage();
    try {
      await proxied.addInitScript(watchTerminalOutput);
      const agents = records().filter((entry) => entry.start).length;
      await proxied.goto(`${demo.server.url}proxy/${port}/?token=${secret}`);
      await proxied.waitForSelector("body.-first-byte", { timeout: 30_000 });
      await eventually(() => records().filter((entry) => entry.start).length > agents, 30_000, "the proxied page's app to start its agent");
      const asked = prompts().length;
      await pasteInto(proxied.mainFrame(), "asked through the proxy");
      await eventually(() => prompts().length > asked, 30_000, "the question through code-server's proxy to reach the agent");
      const last = prompts().at(-1)!;
      assert.ok(last.includes("asked through the proxy"), JSON.stringify(last));
      assert.equal(last.filter((text) => text.startsWith("<editor-context>")).length, 1);
    } finally {
      await context.close();
    }
  });

  it("Reload Window re-attaches to the same Toad server; the new page is a new Toad app and the old app and agent are gone 3 s later", async () => {
    const [host] = hostProcesses(demo.workspace);
    assert.ok(host, "a panel host runs");
    const oldAgents = records()
      .filter((entry) => entry.start)
      .map((entry) => entry.start!);
    const oldApps = descendants(host).filter((pid) => isAppOrAgent(pid));
    assert.ok(oldApps.length >= 3, "the old page's app, conductor and agent");
    await command(demo.page, "Developer: Reload Window");
    await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    await demo.page.keyboard.press("Control+Alt+Y");
    // Toad starts a new app per page load: the panel says the page is a new conversation.
    await panelStatusFrame(demo.page, /starts a new conversation for every page load/, 60_000);
    await chatFrame(demo.page, "body.-first-byte", 60_000);
    assert.deepEqual(hostProcesses(demo.workspace), [host], "the same host (and so the same Toad server)");
    await eventually(() => records().filter((entry) => entry.start).length > oldAgents.length, 30_000, "the new page's app to start its agent");
    await eventually(() => oldAgents.every((pid) => !isAlive(pid)), 10_000, `the old page's agents ${oldAgents.join(", ")} to end`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const left = oldApps.filter((pid) => isAlive(pid));
    assert.deepEqual(
      left,
      [],
      `no app, conductor or agent of the old page left 3 s later: ${left.map((pid) => `${pid} ${commandOf(pid)} (parent ${fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[3]})`).join("; ")}`,
    );
    await selectLine(demo.page, 2, "hello from the sample workspace", stateFile);
    // The panel's frame as it is now (the one found first may have been replaced while the panel settled).
    const frame = await chatFrame(demo.page, "body.-first-byte", 60_000);
    await pasteInto(frame, "after the reload");
    await eventually(() => prompts().some((prompt) => prompt.includes("after the reload")), 30_000, "the question after the reload to reach the agent");
    const last = prompts().at(-1)!;
    assert.equal(last.filter((text) => text.startsWith("<editor-context>")).length, 1);
  });

  it("Stop Chat ends the whole tree (host, Toad, its apps, conductors, agents): nothing left 3 s later", async () => {
    const [host] = hostProcesses(demo.workspace);
    assert.ok(host, "a panel host runs");
    const tree = [host, ...descendants(host)];
    assert.ok(tree.length >= 6, `host, Toad, app, conductor, agent…: ${tree.join(", ")}`);
    await command(demo.page, "Symposium: Stop Chat");
    await eventually(() => tree.every((pid) => !isAlive(pid)), 10_000, `no process of ${tree.join(", ")} left`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(
      tree.filter((pid) => isAlive(pid)),
      [],
    );
    assert.deepEqual(hostProcesses(demo.workspace), []);
  });
});
