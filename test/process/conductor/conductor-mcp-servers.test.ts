// The user's MCP servers for every agent (docs/extensions.md): the config
// file's `mcpServers` and symposium.mcpServers ($SYMPOSIUM_MCP_SERVERS) reach
// the agent unchanged in session/new, load and resume, after the client's own,
// through the real conductor to the reporting agent, which tells what it got;
// an http server only to an agent that advertises mcpCapabilities.http; hostile
// entries refused with a message naming them, the others still given, and the
// config file left as it was. The session's answer lists given and withheld.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { MCP_SERVERS_ENV, MCP_SERVERS_META, type McpServersReport } from "../../../conductor-hooks/src/mcp-servers.js";
import { testClient, type AgentCalls } from "../../support/acp-client.js";
import { node, run } from "../../support/conductor-run.js";
import { REPORTING_AGENT, streamTo, tempDir } from "../../support/processes.js";

const FROM_CONFIG = { name: "github", command: "github-mcp", args: ["--stdio"], env: [{ name: "TOKEN", value: "t" }] };
const HTTP_SERVER = { type: "http", name: "docs", url: "https://mcp.example.test/docs", headers: [{ name: "Authorization", value: "Bearer x" }] };
const FROM_SETTING = { name: "notes", command: "notes-server; rm -rf ~", args: ["$(whoami)"], env: [] };
const CLIENTS = { name: "clients-own", command: "client-server", args: [], env: [] };

interface Opened {
  method: string;
  params: { mcpServers?: unknown[] };
}

interface Conversation {
  opened: Opened[];
  reports: Array<McpServersReport | undefined>;
  stderr: string;
}

function writeConfig(servers: unknown[]): string {
  const file = path.join(tempDir(), "config.jsonc");
  fs.writeFileSync(
    file,
    `{
  // the user's own servers, for every agent
  "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)},
  "mcpServers": ${JSON.stringify(servers)},
}
`,
  );
  return file;
}

function reportOf(answer: unknown): McpServersReport | undefined {
  const meta = (answer as { _meta?: Record<string, unknown> } | null)?._meta;
  return meta?.[MCP_SERVERS_META] as McpServersReport | undefined;
}

/** new (with the client's own server), load, resume through `run`; what the agent got and what each answer says. */
async function converse(configPath: string, env: NodeJS.ProcessEnv = {}): Promise<Conversation> {
  const proc = run(configPath, [], env);
  const reports: Array<McpServersReport | undefined> = [];
  const opened = await testClient(streamTo(proc.child))
    .run(async (agent: AgentCalls) => {
      await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "t", version: "0" } });
      reports.push(reportOf(await agent.request("session/new", { cwd: "/project", mcpServers: [CLIENTS] })));
      reports.push(reportOf(await agent.request("session/load", { sessionId: "session-1", cwd: "/project", mcpServers: [] })));
      reports.push(reportOf(await agent.request("session/resume", { sessionId: "session-1", cwd: "/project" })));
      return (await agent.request<{ opened: Opened[] }>("_test/sessions", {})).opened;
    })
    .finally(() => proc.child.stdin!.end());
  await proc.exited;
  return { opened, reports, stderr: proc.stderr() };
}

describe("the user's MCP servers", () => {
  it("reach the agent unchanged in new, load and resume, the config's then the setting's, after the client's", async () => {
    const config = writeConfig([FROM_CONFIG]);
    const { opened, reports } = await converse(config, { [MCP_SERVERS_ENV]: JSON.stringify([FROM_SETTING]) });
    assert.deepEqual(
      opened.map((session) => [session.method, session.params.mcpServers]),
      [
        ["session/new", [CLIENTS, FROM_CONFIG, FROM_SETTING]],
        ["session/load", [FROM_CONFIG, FROM_SETTING]],
        ["session/resume", [FROM_CONFIG, FROM_SETTING]],
      ],
    );
    assert.deepEqual(reports[0], { given: ["clients-own", "github", "notes"], withheld: [] });
    assert.deepEqual(reports[2], { given: ["github", "notes"], withheld: [] });
  });

  it("withholds an http server from an agent that does not advertise mcpCapabilities.http, and says why", async () => {
    const config = writeConfig([FROM_CONFIG, HTTP_SERVER]);
    const { opened, reports, stderr } = await converse(config);
    assert.deepEqual(opened[0]!.params.mcpServers, [CLIENTS, FROM_CONFIG]);
    assert.deepEqual(reports[0]?.given, ["clients-own", "github"]);
    assert.equal(reports[0]?.withheld[0]?.name, "docs");
    assert.match(reports[0]?.withheld[0]?.reason ?? "", /mcpCapabilities\.http/);
    assert.match(stderr, /MCP server 'docs' withheld: the agent does not take http MCP servers/);
  });

  it("gives an http server to an agent that advertises mcpCapabilities.http", async () => {
    const config = writeConfig([HTTP_SERVER]);
    const { opened, reports } = await converse(config, { REPORTING_AGENT_CAPABILITIES: JSON.stringify({ mcpCapabilities: { http: true } }) });
    assert.deepEqual(opened[0]!.params.mcpServers, [CLIENTS, HTTP_SERVER]);
    assert.deepEqual(reports[0], { given: ["clients-own", "docs"], withheld: [] });
  });

  it("refuses hostile entries, naming each and what to fix; the others still go; the config file is left as it was", async () => {
    const hostile = [
      { type: "http", name: "file-url", url: "file:///etc/passwd", headers: [] },
      { type: "http", name: "js-url", url: "javascript:alert(1)" },
      { type: "http", name: "header-split", url: "https://x.test", headers: [{ name: "X", value: "a\r\nEvil: 1" }] },
      { name: "github", command: "another-github" },
      { name: "no-command", args: [] },
      { name: "huge", command: "x", args: ["y".repeat(70 * 1024)] },
      { type: "ws", name: "odd-type", url: "wss://x.test" },
      "just a string",
      FROM_CONFIG,
    ];
    const config = writeConfig([FROM_CONFIG, ...hostile.slice(0, -1)]);
    const before = fs.readFileSync(config, "utf8");
    const many = Array.from({ length: 70 }, (_, index) => ({ name: `s${index}`, command: "server" }));
    const { opened, reports, stderr } = await converse(config, { [MCP_SERVERS_ENV]: JSON.stringify(many) });
    assert.equal(fs.readFileSync(config, "utf8"), before, "nothing lost from the config file");
    const given = opened[0]!.params.mcpServers as Array<{ name: string }>;
    assert.deepEqual(
      given.map((server) => server.name),
      ["clients-own", "github", ...many.slice(0, 63).map((server) => server.name)],
      "64 of the user's at most: the config's good one and the setting's first 63",
    );
    for (const name of ["file-url", "js-url", "header-split", "no-command", "huge", "odd-type"]) {
      assert.match(stderr, new RegExp(`MCP server '${name}' refused: .*mcpServers\\[\\d\\] \\(${name}\\)`), name);
    }
    assert.match(stderr, /MCP server 'github' refused: .*another server is named 'github' already/);
    assert.match(stderr, /"url" must be an http:\/\/ or https:\/\/ address, not 'file:\/\/\/etc\/passwd'/);
    assert.match(stderr, /MCP server 's63' refused: .*more than 64 MCP servers/);
    assert.match(stderr, /mcpServers\[8\]' refused: .*an MCP server is an object/);
    const withheld = reports[0]!.withheld.map((refusal) => refusal.name);
    assert.ok(withheld.includes("file-url") && withheld.includes("s69"), "the chat is told what was refused");
  });

  it("gives a shell-looking command as a program name, unchanged: the agent runs it, never a shell of ours", async () => {
    const config = writeConfig([]);
    const { opened } = await converse(config, { [MCP_SERVERS_ENV]: JSON.stringify([FROM_SETTING]) });
    assert.deepEqual(opened[0]!.params.mcpServers, [CLIENTS, FROM_SETTING]);
  });
});
