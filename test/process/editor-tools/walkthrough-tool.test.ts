// present_walkthrough on the editor's MCP server (dist/symposium-editor-tools.mjs),
// driven by the official MCP client over stdio against the window's real
// channel server on a real Unix socket, its handler standing in for VS Code's
// (the code-server e2e has the real one): the tool and the format's resource
// listed, a walkthrough reaching the window, the answer naming what did not
// resolve, format mistakes and bounds refused before the window is asked, and
// a clear answer when no window is connected.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { WALKTHROUGH_FORMAT_URI, WALKTHROUGH_LIMITS, type PresentWalkthroughResult } from "../../../editor-tools/src/walkthrough-format.js";
import { ChannelServer, channelSecret } from "../../../editor-tools/src/channel-server.js";
import { REPO_DIR, tempDir } from "../../support/processes.js";

const TOOLS_CLI = path.join(REPO_DIR, "dist", "symposium-editor-tools.mjs");
const POSIX_ONLY = process.platform === "win32" ? "Unix sockets in a temp directory; Windows' pipes are covered by the e2e" : false;
const FENCE = "```";

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Window {
  workspace: string;
  stateFile: string;
  calls: Array<Record<string, unknown>>;
}

/** A workspace, a state file naming the channel, and the channel answering present_walkthrough with `answer` (or no channel). */
async function openWindow(answer?: (params: Record<string, unknown>) => PresentWalkthroughResult): Promise<Window> {
  const dir = tempDir("symposium-walkthrough-");
  fs.chmodSync(dir, 0o700);
  const workspace = path.join(dir, "workspace");
  fs.mkdirSync(workspace);
  const calls: Window["calls"] = [];
  const stateFile = path.join(dir, "editor-state.json");
  let editorTools = {};
  if (answer) {
    const socket = path.join(dir, "tools.sock");
    const secret = channelSecret();
    const handler = async (params: Record<string, unknown>): Promise<unknown> => {
      calls.push(params);
      return answer(params);
    };
    const server = new ChannelServer({
      address: socket,
      secret,
      handlers: { present_walkthrough: handler },
      identity: () => ({ pid: process.pid, workspaceFolders: [workspace] }),
      log: () => {},
    });
    await server.listen();
    cleanups.push(() => server.close());
    editorTools = { editorTools: { enabled: true, socket, secret } };
  }
  const state = { version: 1, activeFile: null, languageId: null, selection: null, workspaceFolders: [workspace], ...editorTools };
  fs.writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  return { workspace, stateFile, calls };
}

async function mcpClient(stateFile: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLS_CLI],
    env: { ...(process.env as Record<string, string>), SYMPOSIUM_EDITOR_STATE_FILE: stateFile },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

async function present(client: Client, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name: "present_walkthrough", arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { text: first?.type === "text" ? first.text : "", isError: result.isError === true };
}

const SHOWN: PresentWalkthroughResult = {
  title: "The parser",
  diagrams: 1,
  actions: 1,
  gitdiffs: 0,
  placed: 1,
  ambiguous: [{ comment: 2, location: "symbol:parse", places: 3 }],
  unresolved: [{ comment: 3, location: "search:src/a.ts:nowhere", reason: "no line of src/a.ts contains nowhere" }],
};

const WALKTHROUGH = [
  "# The parser",
  `${FENCE}mermaid\nflowchart LR\n  a --> b\n${FENCE}`,
  `${FENCE}comment\nlocation: src/a.ts:3\nHere.\n${FENCE}`,
  `${FENCE}comment\nlocation: symbol:parse\nThere.\n${FENCE}`,
  `${FENCE}comment\nlocation: search:src/a.ts:nowhere\nNowhere.\n${FENCE}`,
  `${FENCE}action\nbutton: Run the tests\nRun them.\n${FENCE}`,
].join("\n\n");

describe("present_walkthrough: the MCP tool", { skip: POSIX_ONLY }, () => {
  it("is listed with a description that teaches the format and names its resource, which reads the whole format", async () => {
    const window = await openWindow();
    const client = await mcpClient(window.stateFile);
    const tool = (await client.listTools()).tools.find((each) => each.name === "present_walkthrough");
    assert.ok(tool, "present_walkthrough is listed");
    for (const taught of [
      "```mermaid",
      "```comment",
      "location:",
      "```action",
      "button:",
      "```gitdiff",
      "symbol:<name>",
      "search:<path>:<text>",
      "256 KiB",
      WALKTHROUGH_FORMAT_URI,
    ])
      assert.ok(tool.description!.includes(taught), `the description says ${taught}`);
    assert.deepEqual(tool.inputSchema.required, ["markdown", "baseFolder"]);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((resource) => resource.uri),
      [WALKTHROUGH_FORMAT_URI],
    );
    const read = await client.readResource({ uri: WALKTHROUGH_FORMAT_URI });
    const text = (read.contents[0] as { text: string }).text;
    assert.match(text, /# The walkthrough format/);
    assert.match(text, new RegExp(`At most ${WALKTHROUGH_LIMITS.maxComments} comments`));
    await assert.rejects(client.readResource({ uri: "symposium://elsewhere" }), /No resource symposium:\/\/elsewhere/);
  });

  it("reaches the window with the Markdown, the base folder and the agent's name; the answer says what was shown and what did not resolve", async () => {
    const window = await openWindow(() => SHOWN);
    const client = await mcpClient(window.stateFile);
    const answer = await present(client, { markdown: WALKTHROUGH, baseFolder: window.workspace });
    assert.equal(answer.isError, false, answer.text);
    assert.deepEqual(window.calls, [{ markdown: WALKTHROUGH, baseFolder: window.workspace, agent: "test" }], "the agent's name: its MCP client's");
    assert.match(answer.text, /Shown to the user: "The parser" — 1 comment\(s\) placed, 1 with several places/);
    assert.match(answer.text, /Comment 2 \(symbol:parse\): 3 places; the user picks one/);
    assert.match(answer.text, /Not resolved[^\n]*\n- comment 3 \(search:src\/a\.ts:nowhere\): no line of src\/a\.ts contains nowhere/);
  });

  it("refuses a format mistake, a size over the bound and missing arguments before the window is asked", async () => {
    const window = await openWindow(() => SHOWN);
    const client = await mcpClient(window.stateFile);
    const unclosed = await present(client, { markdown: `# x\n\n${FENCE}comment\nlocation: a.ts:1\ntext`, baseFolder: window.workspace });
    assert.equal(unclosed.isError, true);
    assert.match(unclosed.text, /line 3: the ```comment block is never closed/);
    const badLocation = await present(client, { markdown: `${FENCE}comment\nlocation: a.ts\ntext\n${FENCE}`, baseFolder: window.workspace });
    assert.match(badLocation.text, /none of path:line, path:start-end, symbol:name, search:path:text/);
    const huge = await present(client, { markdown: "word ".repeat(60_000), baseFolder: window.workspace });
    assert.equal(huge.isError, true);
    assert.match(huge.text, /over the 256 KiB limit/);
    const missing = await present(client, { markdown: "# x" });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /baseFolder/);
    assert.deepEqual(window.calls, [], "the window was never asked");
  });

  it("with no window connected, says so at once", async () => {
    const window = await openWindow();
    const client = await mcpClient(window.stateFile);
    const answer = await present(client, { markdown: WALKTHROUGH, baseFolder: window.workspace });
    assert.equal(answer.isError, true);
    assert.match(answer.text, /No live VS Code window is connected/);
  });
});
