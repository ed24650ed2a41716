// The editor's MCP server reaches every session (docs/editor-tools.md): the
// real conductor (in-process proxy), the proxy under a conductor and in wrap
// mode add it to mcpServers of session/new, load and resume, with the ACP
// SDK's client in front and the reporting agent behind telling what it got;
// never over the client's own entry of that name; not without a state file,
// nor when the state file or the config file turns the tools off. And the
// entry runs: the official MCP client starts exactly what the agent got and
// lists the tools.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TOOL_NAMES } from "../../../editor-tools/src/protocol.js";
import { defaultConfigPath } from "../../../conductor-hooks/src/config.js";
import { EDITOR_TOOLS_SERVER_NAME, editorToolsOffInConfig, type McpServerEntry } from "../../../editor-context-proxy/src/index.js";
import { TOOLS_STARTED_ENV } from "../../../editor-context-proxy/src/tools-started.js";
import { testClient, type AgentCalls } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, PROXY_CLI, REPO_DIR, REPORTING_AGENT, startNode, streamTo, tempDir, type RunningProcess } from "../../support/processes.js";
import { ScriptedConductor } from "../../support/scripted-conductor.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const agentCommand = `${process.execPath} ${REPORTING_AGENT}`;
const TOOLS_CLI = path.join(REPO_DIR, "dist", "symposium-editor-tools.mjs");
const CLIENT_ENTRY = { name: EDITOR_TOOLS_SERVER_NAME, command: "/their/own/server", args: ["--x"], env: [] };
const OTHER_ENTRY = { name: "github", command: "github-mcp", args: [], env: [{ name: "TOKEN", value: "t" }] };

interface Opened {
  method: string;
  params: { mcpServers?: McpServerEntry[] };
}

/** Opens sessions through `agent` as a client would: new with none, new with the client's own entry, load, resume. */
async function openSessions(agent: AgentCalls): Promise<Opened[]> {
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "t", version: "0" } });
  await agent.request("session/new", { cwd: "/project", mcpServers: [] });
  await agent.request("session/new", { cwd: "/project", mcpServers: [OTHER_ENTRY, CLIENT_ENTRY] });
  await agent.request("session/load", { sessionId: "session-1", cwd: "/project", mcpServers: [OTHER_ENTRY] });
  await agent.request("session/resume", { sessionId: "session-1", cwd: "/project" });
  return (await agent.request<{ opened: Opened[] }>("_test/sessions", {})).opened;
}

/** Our entry, without the per-session file the server announces its start in (tools-started.ts): checked here. */
function ours(opened: Opened): McpServerEntry | undefined {
  const entry = opened.params.mcpServers?.find((server) => server.name === EDITOR_TOOLS_SERVER_NAME);
  if (entry?.command !== process.execPath) return entry;
  const marker = entry.env.find((variable) => variable.name === TOOLS_STARTED_ENV);
  assert.ok(marker && path.isAbsolute(marker.value), `our entry names the file its server announces its start in: ${JSON.stringify(entry.env)}`);
  return { ...entry, env: entry.env.filter((variable) => variable !== marker) };
}

/** `servers` with ours as `ours` gives it. */
function withoutMarkers(servers: McpServerEntry[] | undefined): McpServerEntry[] | undefined {
  return servers?.map((server) => (server.name === EDITOR_TOOLS_SERVER_NAME ? ours({ method: "", params: { mcpServers: [server] } })! : server));
}

function assertAdded(opened: Opened[], stateFile: string): McpServerEntry {
  assert.deepEqual(
    opened.map((session) => session.method),
    ["session/new", "session/new", "session/load", "session/resume"],
  );
  const entry = ours(opened[0]!)!;
  assert.deepEqual(entry, {
    name: EDITOR_TOOLS_SERVER_NAME,
    command: process.execPath,
    args: [TOOLS_CLI],
    env: [{ name: "SYMPOSIUM_EDITOR_STATE_FILE", value: stateFile }],
  });
  assert.deepEqual(opened[1]!.params.mcpServers, [OTHER_ENTRY, CLIENT_ENTRY], "the client's own entry of that name is kept, nothing added");
  assert.deepEqual(withoutMarkers(opened[2]!.params.mcpServers), [OTHER_ENTRY, entry], "load: added after the client's");
  assert.deepEqual(withoutMarkers(opened[3]!.params.mcpServers), [entry], "resume without mcpServers: added");
  return entry;
}

async function throughConductor(env: NodeJS.ProcessEnv): Promise<Opened[]> {
  const proc = startNode(CONDUCTOR_CLI, ["agent", agentCommand], env);
  return sessionsOf(proc);
}

async function sessionsOf(proc: RunningProcess): Promise<Opened[]> {
  try {
    return await testClient(streamTo(proc.child)).run(openSessions);
  } finally {
    proc.child.stdin!.end();
    await proc.exited;
  }
}

describe("editor tools in every session", () => {
  it("the conductor adds the server to session/new, load and resume; the entry starts the server, which lists its tools", async () => {
    const stateFile = writeStateFile(SEED_STATE);
    const entry = assertAdded(
      await throughConductor({ SYMPOSIUM_EDITOR_STATE_FILE: stateFile, SYMPOSIUM_CONFIG: path.join(tempDir(), "none.jsonc") }),
      stateFile,
    );
    // Start exactly what the agent was given.
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: Object.fromEntries(entry.env.map(({ name, value }) => [name, value])),
      stderr: "pipe",
    });
    const client = new Client({ name: "agent", version: "0" });
    await client.connect(transport);
    try {
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [...TOOL_NAMES].sort());
    } finally {
      await client.close();
    }
  });

  it("no state file, the tools turned off in VS Code, or off in the config file: nothing added", async () => {
    const noConfig = path.join(tempDir(), "none.jsonc");
    const none = await throughConductor({ SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_CONFIG: noConfig });
    assert.ok(none.every((session) => ours(session) === undefined || session.params.mcpServers?.includes(CLIENT_ENTRY as McpServerEntry) === false));
    assert.equal(ours(none[0]!), undefined);
    const off = writeStateFile({ ...SEED_STATE, editorTools: { enabled: false, socket: null, secret: null } });
    assert.equal(ours((await throughConductor({ SYMPOSIUM_EDITOR_STATE_FILE: off, SYMPOSIUM_CONFIG: noConfig }))[0]!), undefined);
    const config = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(config, `{\n  // no editor tools, thanks\n  "agent": "x",\n  "editorTools": false,\n}\n`);
    assert.equal(editorToolsOffInConfig({ SYMPOSIUM_CONFIG: config }), true);
    const stateFile = writeStateFile(SEED_STATE);
    assert.equal(ours((await throughConductor({ SYMPOSIUM_EDITOR_STATE_FILE: stateFile, SYMPOSIUM_CONFIG: config }))[0]!), undefined);
  });

  it("the proxy under a conductor, and in wrap mode, adds it too", async () => {
    const stateFile = writeStateFile(SEED_STATE);
    const env = { SYMPOSIUM_EDITOR_STATE_FILE: stateFile, SYMPOSIUM_CONFIG: path.join(tempDir(), "none.jsonc") };
    const conductor = new ScriptedConductor("_proxy", PROXY_CLI, REPORTING_AGENT, env);
    try {
      assertAdded(await testClient(conductor.clientStream).run(openSessions), stateFile);
    } finally {
      await conductor.close();
    }
    assertAdded(await sessionsOf(startNode(PROXY_CLI, ["--", process.execPath, REPORTING_AGENT], env)), stateFile);
  });

  it("the proxy reads the config file where the conductor does", () => {
    const home = tempDir();
    assert.equal(defaultConfigPath({ SYMPOSIUM_CONFIG: path.join(home, "c.jsonc") }), path.join(home, "c.jsonc"));
    fs.writeFileSync(path.join(home, "c.jsonc"), `{"editorTools": false}`);
    assert.equal(editorToolsOffInConfig({ SYMPOSIUM_CONFIG: defaultConfigPath({ SYMPOSIUM_CONFIG: path.join(home, "c.jsonc") }) }), true);
    fs.writeFileSync(path.join(home, "c.jsonc"), `{"editorTools": true}`);
    assert.equal(editorToolsOffInConfig({ SYMPOSIUM_CONFIG: path.join(home, "c.jsonc") }), false);
  });
});
