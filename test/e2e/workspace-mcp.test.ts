// The workspace's .vscode/mcp.json servers, in code-server + Chromium
// (extension/src/agents/workspace-mcp-consent.ts): opening the chat asks once, in a
// modal, whether the agent may have them; "Don't Allow" gives none and is
// remembered; a file whose servers change is asked about again; "Allow" gives
// them (the chat's Tools chip names them, as the conductor reported them to
// the agent's session) and is remembered across restarts. A server with shell
// syntax is never offered, and the user is told. The parsing's cases:
// test/unit/extension/workspace-mcp.test.ts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { e2eSkipReason } from "../harness/code-server.js";
import { chatFrame, command, demoWindowSuite, extensionLog, gatePort, symposiumActive, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();
const QUESTION = "Give this workspace's MCP servers (.vscode/mcp.json) to the agent?";

function writeMcpJson(workspace: string, servers: Record<string, unknown>): void {
  fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(workspace, ".vscode", "mcp.json"), `// the project's servers\n${JSON.stringify({ servers }, null, 2)}\n`);
}

/** The consent modal, once it shows: its text, then the button clicked. */
async function answerConsent(page: Page, button: "Allow" | "Don't Allow"): Promise<string> {
  const dialog = page.locator(".monaco-dialog-box", { hasText: QUESTION });
  await dialog.waitFor({ timeout: 90_000 });
  const text = await dialog.innerText();
  await dialog.locator(".monaco-button", { hasText: new RegExp(`^${button}$`) }).click();
  await dialog.waitFor({ state: "hidden", timeout: 10_000 });
  return text;
}

/** The Tools chip of the chat's conversation, once the agent's session answered (the chat is Ready); with `naming`, once it names that. */
async function toolsChip(frame: Frame, naming?: string): Promise<string> {
  await frame.locator(".conversation:not([hidden]) #status", { hasText: /Ready/ }).waitFor({ timeout: 60_000 });
  const chip = frame.locator(".conversation:not([hidden]) #mcp-servers", naming === undefined ? {} : { hasText: naming });
  await chip.waitFor({ state: "visible", timeout: 60_000 });
  return (await chip.textContent()) ?? "";
}

async function restartedChat(page: Page, oldPort: number): Promise<Frame> {
  await command(page, "Symposium: Restart Chat");
  return chatFrame(page, "#input:visible", 90_000, oldPort);
}

describe("the workspace's .vscode/mcp.json servers, with the user's consent", { skip, timeout: 900_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) =>
    writeMcpJson(window.workspace, {
      "project-notes": { type: "stdio", command: process.execPath, args: ["-e", ""] },
      chained: { command: "notes; rm -rf ~" },
    }),
  );
  let frame: Frame;

  it("asks in a modal naming what would run; Don't Allow gives none, and the refused server is never offered", async () => {
    await symposiumActive(demo.page);
    await command(demo.page, "Symposium: Open Chat");
    const question = await answerConsent(demo.page, "Don't Allow");
    assert.match(question, /project-notes: /);
    assert.doesNotMatch(question, /chained|rm -rf/, "a refused server is not offered");
    frame = await chatFrame(demo.page, "#input:visible", 90_000);
    assert.doesNotMatch(await toolsChip(frame), /project-notes/);
    const log = await waitForText(async () => extensionLog(demo.server), /did not allow this workspace's MCP servers/, 10_000);
    assert.match(log, /server 'chained' refused: "command" holds shell syntax/);
  });

  it("remembers the answer: a restart asks nothing and gives none", async () => {
    frame = await restartedChat(demo.page, gatePort(frame));
    assert.doesNotMatch(await toolsChip(frame), /project-notes/);
    assert.equal(await demo.page.locator(".monaco-dialog-box", { hasText: QUESTION }).count(), 0, "not asked again");
  });

  it("asks again when the file's servers change; Allow gives them to the agent, and is remembered", async () => {
    writeMcpJson(demo.workspace, { "project-notes": { type: "stdio", command: process.execPath, args: ["-e", "0"] } });
    const port = gatePort(frame);
    await command(demo.page, "Symposium: Restart Chat");
    await answerConsent(demo.page, "Allow");
    frame = await chatFrame(demo.page, "#input:visible", 90_000, port);
    assert.match(await toolsChip(frame, "project-notes"), /project-notes/);
    frame = await restartedChat(demo.page, gatePort(frame));
    assert.match(await toolsChip(frame, "project-notes"), /project-notes/);
    assert.equal(await demo.page.locator(".monaco-dialog-box", { hasText: QUESTION }).count(), 0, "not asked again");
  });
});
