// The editor's tools served by the conductor itself over HTTP
// (docs/editor-tools.md, "Over HTTP"): through the real conductor, a real ACP
// agent that advertises mcpCapabilities.http and, as Claude Code does,
// connects and lists the tools inside session/new; the official MCP client
// on the entry it was given; and each of the endpoint's checks (secret, Host,
// Origin, no query, body bound) refusing a request before any tool runs,
// against a positive control that the same request with everything right is
// answered.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOL_NAMES } from "../../../editor-tools/src/protocol.js";
import { EDITOR_TOOLS_TRANSPORT_ENV } from "../../../conductor-hooks/src/editor-tools-http.js";
import { testClient } from "../../support/acp-client.js";
import { call, cleanups, endAll, headersOf, httpEndpoint, json, openWindow } from "../../support/editor-window.js";
import { CONDUCTOR_CLI, OUT_DIR, startNode, streamTo, tempDir } from "../../support/processes.js";

const MCP_HTTP_AGENT = path.join(OUT_DIR, "test", "fixtures", "mcp-http-agent.js");
const POSIX_ONLY = process.platform === "win32" ? "the window's channel on a Unix socket; Windows' pipes are covered by the e2e" : false;

after(endAll);

interface HttpEntry {
  type: "http";
  name: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
}

interface Reported {
  servers: Array<Record<string, unknown>>;
  listed: Record<string, string[]>;
}

/**
 * A conversation through the conductor with the fixture agent (`mode`: whether it advertises http):
 * what its session/new was given and listed, and the first prompt's notices; `during` runs while the
 * conductor is still up. The conductor has stopped when this returns.
 */
async function converse<T>(
  stateFile: string,
  mode: "http" | "stdio",
  during: (reported: Reported) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ reported: Reported; result: T; notices: unknown }> {
  const report = path.join(tempDir(), "report.ndjson");
  const proc = startNode(CONDUCTOR_CLI, ["agent", `${process.execPath} ${MCP_HTTP_AGENT} ${mode}`], {
    SYMPOSIUM_EDITOR_STATE_FILE: stateFile,
    SYMPOSIUM_CONFIG: path.join(tempDir(), "none.jsonc"),
    MCP_HTTP_AGENT_REPORT: report,
    ...env,
  });
  try {
    return await testClient(streamTo(proc.child)).run(async (agent) => {
      await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "t", version: "0" } });
      const { sessionId } = await agent.request<{ sessionId: string }>("session/new", { cwd: tempDir(), mcpServers: [] });
      const reported = JSON.parse(fs.readFileSync(report, "utf8").trim()) as Reported;
      const result = await during(reported);
      const answer = await agent.request<{ _meta?: Record<string, unknown> }>("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      return { reported, result, notices: answer._meta?.["symposium.dev/notices"] };
    });
  } finally {
    proc.child.stdin!.end();
    await proc.exited;
  }
}

function ourEntry(reported: Reported): Record<string, unknown> {
  const entry = reported.servers.find((server) => server.name === "symposium-editor");
  assert.ok(entry, `the session was offered symposium-editor (got ${JSON.stringify(reported.servers.map((server) => server.name))})`);
  return entry;
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request as any local process or web page could send it: headers exactly as given (Host included). */
function rawPost(url: string, headers: Record<string, string>, body: string, target?: string): Promise<RawAnswer> {
  const address = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: address.hostname,
        port: address.port,
        path: target ?? address.pathname,
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Host: address.host, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});
const EDITOR_STATE_CALL = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "editor_state", arguments: {} } });

describe("the editor's tools over http, served by the conductor", { skip: POSIX_ONLY }, () => {
  it("an agent that advertises http gets an http entry with a secret header, lists the tools inside session/new, and the official client calls them", async () => {
    const window = await openWindow({ editor_state: async () => ({ activeFile: "/live/over-http.ts" }) });
    const { reported, result, notices } = await converse(window.stateFile, "http", async (reported) => {
      const entry = ourEntry(reported) as unknown as HttpEntry;
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: headersOf(entry) } }));
      cleanups.push(() => client.close());
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      const state = await call(client, "editor_state");
      return { entry, tools, state };
    });
    const { entry, tools, state } = result;
    assert.equal(entry.type, "http");
    assert.match(entry.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp\/[\w-]+$/, "loopback, the secret not in the URL");
    assert.equal(entry.headers.length, 1);
    assert.match(entry.headers[0]!.value, /^Bearer [\w-]{43}$/);
    assert.equal(entry.headers[0]!.name, "Authorization");
    assert.ok(!("command" in entry), "no process to start");
    assert.deepEqual(reported.listed["symposium-editor"], [...TOOL_NAMES], "the agent listed them before answering session/new");
    assert.deepEqual([...tools].sort(), [...TOOL_NAMES].sort());
    assert.equal(state.isError, false);
    assert.deepEqual(json(state.text), { activeFile: "/live/over-http.ts" });
    assert.equal(notices, undefined, "started: no 'did not start the tools' notice");
    await assert.rejects(rawPost(entry.url, headersOf(entry), INITIALIZE), /ECONNREFUSED/, "the endpoint closed with the conversation");
  });

  it("an agent without http, or SYMPOSIUM_EDITOR_TOOLS_TRANSPORT=stdio: the stdio entry, as before", async () => {
    const window = await openWindow();
    for (const [mode, env] of [
      ["stdio", {}],
      ["http", { [EDITOR_TOOLS_TRANSPORT_ENV]: "stdio" }],
    ] as const) {
      const { reported } = await converse(window.stateFile, mode, async () => null, env);
      const entry = ourEntry(reported);
      assert.equal(entry.command, process.execPath, `${mode}: a stdio entry`);
      assert.deepEqual(reported.listed["symposium-editor"], [...TOOL_NAMES]);
    }
  });

  it("two sessions get two endpoints, each with its own secret: one session's secret does not open the other's", async () => {
    const window = await openWindow({ editor_state: async () => ({ live: true }) });
    const { server } = await httpEndpoint(window.stateFile);
    const [first, second] = [server.open(), server.open()];
    assert.notEqual(first.url, second.url);
    assert.equal((await rawPost(first.url, headersOf(first), INITIALIZE)).status, 200);
    assert.equal((await rawPost(second.url, headersOf(first), INITIALIZE)).status, 403);
    await first.close();
    assert.equal((await rawPost(first.url, headersOf(first), INITIALIZE)).status, 404, "a closed endpoint is gone");
    assert.equal((await rawPost(second.url, headersOf(second), INITIALIZE)).status, 200, "the other goes on");
  });
});

describe("the http endpoint's checks, each refusing before any tool runs", { skip: POSIX_ONLY }, () => {
  /** An MCP session opened with the right secret, and a tools/call on it with the given headers. */
  async function endpointWithSession(): Promise<{
    callWith(headers: Record<string, string>, target?: string): Promise<RawAnswer>;
    calls(): number;
    path: string;
    secret: string;
  }> {
    const window = await openWindow({ editor_state: async () => ({ live: true }) });
    const { endpoint } = await httpEndpoint(window.stateFile);
    const good = headersOf(endpoint);
    const init = await rawPost(endpoint.url, good, INITIALIZE);
    assert.equal(init.status, 200, init.body);
    const session = String(init.headers["mcp-session-id"]);
    const initialized = await rawPost(
      endpoint.url,
      { ...good, "Mcp-Session-Id": session },
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    assert.equal(initialized.status, 202);
    return {
      callWith: (headers, target) => rawPost(endpoint.url, { ...good, "Mcp-Session-Id": session, ...headers }, EDITOR_STATE_CALL, target),
      calls: () => window.calls.length,
      path: new URL(endpoint.url).pathname,
      secret: good.Authorization!.slice("Bearer ".length),
    };
  }

  it("the right secret, Host and no Origin: answered (the control for the refusals below)", async () => {
    const endpoint = await endpointWithSession();
    const answer = await endpoint.callWith({});
    assert.equal(answer.status, 200);
    assert.match(answer.body, /"result"/);
    assert.equal(endpoint.calls(), 1);
  });

  it("no secret, or a wrong one: 403, the tool never runs", async () => {
    const endpoint = await endpointWithSession();
    for (const authorization of ["", "Bearer ", "Bearer wrong-secret-of-some-length-000000000000", "Basic abc"]) {
      const answer = await endpoint.callWith({ Authorization: authorization });
      assert.equal(answer.status, 403, `Authorization '${authorization}'`);
      assert.doesNotMatch(answer.body, /result|live/);
    }
    assert.equal(endpoint.calls(), 0);
  });

  it("a Host that is not this server's loopback address and port (DNS rebinding): 403, the tool never runs", async () => {
    const endpoint = await endpointWithSession();
    for (const host of ["evil.example", "evil.example:80", "127.0.0.1:1", "localhost.evil.example"]) {
      const answer = await endpoint.callWith({ Host: host });
      assert.equal(answer.status, 403, `Host '${host}'`);
    }
    assert.equal(endpoint.calls(), 0);
  });

  it("an Origin that is not ours (a web page): 403, the tool never runs; no CORS header in any answer", async () => {
    const endpoint = await endpointWithSession();
    for (const origin of ["http://evil.example", "null", "https://127.0.0.1"]) {
      const answer = await endpoint.callWith({ Origin: origin });
      assert.equal(answer.status, 403, `Origin '${origin}'`);
      assert.equal(answer.headers["access-control-allow-origin"], undefined);
    }
    assert.equal(endpoint.calls(), 0);
    const answered = await endpoint.callWith({});
    assert.equal(answered.headers["access-control-allow-origin"], undefined);
  });

  it("the secret in the URL's query is not taken (nor any query): refused, the tool never runs", async () => {
    const endpoint = await endpointWithSession();
    const secret = endpoint.secret;
    const inQuery = await endpoint.callWith({ Authorization: "" }, `${endpoint.path}?token=${encodeURIComponent(secret)}`);
    assert.equal(inQuery.status, 400);
    const withQuery = await endpoint.callWith({}, `${endpoint.path}?x=1`);
    assert.equal(withQuery.status, 400);
    assert.equal(endpoint.calls(), 0);
  });

  it("a body over the bound: 413 without reading it; garbage JSON: a parse error; the endpoint goes on", async () => {
    const window = await openWindow({ editor_state: async () => ({ live: true }) });
    const { endpoint } = await httpEndpoint(window.stateFile, { bodyBytes: 1024 });
    const big = await rawPost(
      endpoint.url,
      headersOf(endpoint),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(4096) } }),
    );
    assert.equal(big.status, 413);
    assert.match(big.body, /at most 1024 bytes/);
    const garbage = await rawPost(endpoint.url, headersOf(endpoint), "not json at all");
    assert.equal(garbage.status, 400);
    assert.match(garbage.body, /Parse error/);
    assert.equal((await rawPost(endpoint.url, headersOf(endpoint), INITIALIZE)).status, 200);
    assert.equal(window.calls.length, 0);
  });
});
