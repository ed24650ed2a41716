// The chat shows which MCP servers its conversation's agent was given: the
// real chat server runs our conductor (in its process, as the extension starts
// it) in front of the reporting agent, with VS Code's state file set; the
// header's "Tools" chip in Chromium names the editor's server, and the agent's
// own report of its session/new says the same. With the tools turned off in
// VS Code (the state file's switch) neither has it. The user's own servers
// (symposium.mcpServers, through the conductor) are named too, and one the
// agent cannot take (http, to an agent without mcpCapabilities.http) is shown
// as not given, with why: the conductor's report in the session's answer.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { CONDUCTOR_CLI, OUT_DIR, scratchDirs } from "../../support/processes.js";

const skip = chromiumSkipReason();
const REPORTING_AGENT = path.join(OUT_DIR, "test", "fixtures", "reporting-agent.js");
const TIMEOUT = { timeout: 20_000 };
/** `SYMPOSIUM_SCREENSHOTS=DIR` keeps pictures of the chip and its tooltip, light and dark, to look at. */
const SCREENSHOTS = process.env.SYMPOSIUM_SCREENSHOTS;

const scratch = scratchDirs();

/** A home whose conductor config runs the reporting agent, and a state file saying whether the editor's tools are on. */
function home(toolsEnabled: boolean): { config: string; env: NodeJS.ProcessEnv } {
  const dir = scratch("chat-mcp-home-");
  const config = path.join(dir, "config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: quote([process.execPath, REPORTING_AGENT]) }));
  const stateFile = path.join(dir, "editor-state.json");
  const state = {
    activeFile: null,
    languageId: null,
    selection: null,
    workspaceFolders: [],
    editorTools: { enabled: toolsEnabled, socket: null, secret: null },
  };
  fs.writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  return { config, env: { HOME: dir, USERPROFILE: dir, SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: stateFile, SYMPOSIUM_AGENT: "" } };
}

/** What the agent says its session got, asked in a prompt. */
async function reportedServers(page: Page): Promise<unknown> {
  await typePrompt(page, "report-mcp-servers");
  const answer = page.locator(".message.agent", { hasText: '"mcpServers"' });
  await answer.waitFor(TIMEOUT);
  const text = (await answer.textContent()) ?? "";
  return (JSON.parse(/\{"mcpServers":.*?\]\}/.exec(text)![0]) as { mcpServers: unknown }).mcpServers;
}

async function screenshots(page: Page): Promise<void> {
  if (!SCREENSHOTS) return;
  await page.hover("#mcp-servers");
  for (const theme of ["light", "dark"]) {
    await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
    await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
    await page.screenshot({ path: path.join(SCREENSHOTS, `webchat-mcp-servers-${theme}.png`), clip: { x: 0, y: 0, width: 900, height: 160 } });
  }
}

describe("webchat: the MCP servers a conversation's agent was given", { skip }, () => {
  const suite = chatSuite();

  it("names the editor's server in the header, as the agent's session/new had it", async () => {
    const { config, env } = home(true);
    const server = await suite.serve({ agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config], env });
    const page = await openChatPage(suite.browser, server, {}, 20_000);
    await page.setViewportSize({ width: 900, height: 420 });
    const chip = page.locator(".conversation:not([hidden]) #mcp-servers");
    await chip.waitFor({ state: "visible", ...TIMEOUT });
    assert.equal(await chip.textContent(), "Tools: symposium-editor");
    assert.match((await chip.getAttribute("title")) ?? "", /MCP servers this conversation's agent was given: symposium-editor/);
    assert.deepEqual(await reportedServers(page), ["symposium-editor"]);
    await screenshots(page);
    await page.close();
  });

  it("names the user's servers the conductor gave, and says which it withheld and why", async () => {
    const { config, env } = home(true);
    const servers = [
      { name: "notes", command: process.execPath, args: ["-e", ""], env: [] },
      { type: "http", name: "remote-docs", url: "http://127.0.0.1:9/mcp", headers: [] },
    ];
    const server = await suite.serve({
      agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
      env: { ...env, SYMPOSIUM_MCP_SERVERS: JSON.stringify(servers) },
    });
    const page = await openChatPage(suite.browser, server, {}, 20_000);
    const chip = page.locator(".conversation:not([hidden]) #mcp-servers");
    await chip.waitFor({ state: "visible", ...TIMEOUT });
    assert.deepEqual(((await reportedServers(page)) as string[]).slice().sort(), ["notes", "symposium-editor"]);
    const text = (await chip.textContent()) ?? "";
    assert.match(text, /^Tools: .*\bnotes\b.* \(1 not given\)$/);
    assert.match(text, /symposium-editor/);
    assert.match((await chip.getAttribute("title")) ?? "", /Not given: remote-docs: .*http/);
    await page.close();
  });

  it("shows no chip when the editor's tools are turned off, and the agent got none", async () => {
    const { config, env } = home(false);
    const server = await suite.serve({ agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config], env });
    const page = await openChatPage(suite.browser, server, {}, 20_000);
    assert.deepEqual(await reportedServers(page), []);
    assert.equal(await page.locator(".conversation:not([hidden]) #mcp-servers").isHidden(), true);
    await page.close();
  });
});
