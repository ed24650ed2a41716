// The editor's MCP server (dist/symposium-editor-tools.mjs, and the same
// server over http as a conductor serves it) driven by the official MCP
// client, against the window's real channel server
// (editor-tools/src/channel-server.ts) on a real Unix socket, its
// handlers standing in for VS Code (the code-server e2e has the real ones):
// tools listed, calls answered by the window, the state-file answers when no
// window is connected, and bad input: wrong secret, dead or hostile peer, a
// stale state file, a window closing mid-request, 1,000 calls in flight, a
// 50 MB proposal, a symlink out of the workspace, garbage on stdin.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LIMITS, TOOL_NAMES } from "../../../editor-tools/src/protocol.js";
import { checkProposal, proposedText } from "../../../editor-tools/src/proposal.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";
import { ChannelServer, MAX_SOCKET_PATH_BYTES, channelAddress, channelSecret } from "../../../editor-tools/src/channel-server.js";
import { TOOLS_SECRET_ENV, openToolChannel } from "../../../lm-provider/src/tool-channel.js";
import { TOOLS_CLI, TRANSPORTS, call, endAll, cleanups, json, mcpClient as clientOn, openWindow, writeState } from "../../support/editor-window.js";
import { LineCollector, eventually, startNode, tempDir } from "../../support/processes.js";
import { ageFile } from "../../support/state-files.js";

const POSIX_ONLY = process.platform === "win32" ? "Unix sockets in a temp directory; Windows' pipes are covered by the e2e" : false;

after(endAll);

// The same answers, bounds and errors on both transports (one set of handlers).
for (const transport of TRANSPORTS) {
  describe(`editor tools: the MCP server against the window's channel (${transport})`, { skip: POSIX_ONLY }, () => {
    const mcpClient = (stateFile: string): ReturnType<typeof clientOn> => clientOn(stateFile, transport);

    it("lists every tool with a description and an input schema, each always loaded (not deferred behind Claude Code's ToolSearch)", async () => {
      const window = await openWindow();
      const { client } = await mcpClient(window.stateFile);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOL_NAMES].sort());
      for (const tool of tools) {
        assert.ok((tool.description ?? "").length > 60, `${tool.name} explains itself`);
        assert.equal(tool.inputSchema.type, "object");
        assert.deepEqual(tool._meta, { "anthropic/alwaysLoad": true }, tool.name);
      }
      const readFile = tools.find((tool) => tool.name === "read_file")!;
      assert.deepEqual(readFile.inputSchema.required, ["path"]);
    });

    it("answers from the window: the call reaches its handler with the tool's arguments", async () => {
      const window = await openWindow({
        editor_state: async () => ({ activeFile: "/live/file.ts", selections: [{ text: "live" }] }),
        find_references: async (params) => ({
          total: 1,
          offset: 0,
          references: [{ path: "/live/file.ts", line: 3, asked: params.symbol }],
        }),
      });
      const { client } = await mcpClient(window.stateFile);
      const state = await call(client, "editor_state");
      assert.equal(state.isError, false);
      assert.equal((json(state.text) as { activeFile: string }).activeFile, "/live/file.ts");
      const references = await call(client, "find_references", { symbol: "greet" });
      assert.equal((json(references.text) as { references: Array<{ asked: string }> }).references[0]!.asked, "greet");
      assert.deepEqual(window.calls[1], ["find_references", { symbol: "greet" }]);
      await call(client, "find_references", { symbol: "greet", unknown: "dropped" });
      assert.deepEqual(window.calls[2], ["find_references", { symbol: "greet" }], "only the schema's properties reach the window");
    });

    it("refuses bad arguments before the window sees them", async () => {
      const window = await openWindow({ read_file: async () => ({}) });
      const { client } = await mcpClient(window.stateFile);
      const missing = await call(client, "read_file", { line: 0 });
      assert.equal(missing.isError, true);
      assert.match(missing.text, /path/);
      const both = await call(client, "propose_edit", { path: "src/main.ts", newText: "a", edits: [{ oldText: "b", newText: "c" }] });
      assert.equal(both.isError, true);
      assert.match(both.text, /either newText .* or edits/);
      assert.equal(window.calls.length, 0);
    });

    it("a 50 MB proposal is refused with a clear error, and the server goes on", async () => {
      const window = await openWindow({ propose_edit: async () => ({ decision: "applied" }), editor_state: async () => ({ ok: true }) });
      const { client } = await mcpClient(window.stateFile);
      const huge = await call(client, "propose_edit", { path: "src/main.ts", newText: "x".repeat(50 * 1024 * 1024) });
      assert.equal(huge.isError, true);
      assert.match(huge.text, /52428800 bytes, over the 4194304-byte limit/);
      assert.equal(window.calls.length, 0, "the window never saw it");
      assert.equal((await call(client, "editor_state")).isError, false);
    });

    it("propose_edit of 1,000 edits on a 10 MB file: refused at once, saying what to do; another tool is answered meanwhile", async () => {
      // The window's own checks (the handler runs these two before it shows anything): editor-tools-handlers.ts.
      const file = "a".repeat(10 * 1024 * 1024 - 1) + "X";
      const window = await openWindow({
        propose_edit: async (params) => ({ decision: "applied", length: proposedText(file, checkProposal(params)).length }),
        editor_state: async () => ({ live: true }),
      });
      const { client } = await mcpClient(window.stateFile);
      const edits = Array.from({ length: 1000 }, () => ({ oldText: "X", newText: "X" }));
      const [proposal, state] = await Promise.all([call(client, "propose_edit", { path: "src/main.ts", edits }), call(client, "editor_state")]);
      assert.equal(proposal.isError, true);
      assert.match(proposal.text, /1000 edits on a file of 10485760 characters is more work than one proposal may ask .*send at most 3 edits per propose_edit/);
      assert.deepEqual(json(state.text), { live: true });
      const tooMany = await call(client, "propose_edit", { path: "src/main.ts", edits: [...edits, { oldText: "X", newText: "Y" }] });
      assert.equal(tooMany.isError, true, "over the schema's 1,000 edits: refused by the MCP server");
      assert.equal(window.calls.filter(([name]) => name === "propose_edit").length, 1, "the window never saw the 1,001 edits");
      const within = await call(client, "propose_edit", { path: "src/main.ts", edits: [{ oldText: "X", newText: "Y" }] });
      assert.deepEqual(json(within.text), { decision: "applied", length: file.length });
    });

    it("1,000 calls in flight are all answered (over http, those past its bounds refused with a clear error), at most maxRunning at work in the window at once", async () => {
      let running = 0;
      let most = 0;
      const window = await openWindow({
        hover: async (params) => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 2));
          running--;
          return { hover: `at ${String(params.line)}` };
        },
      });
      const { client } = await mcpClient(window.stateFile);
      const settled = await Promise.allSettled(Array.from({ length: 1000 }, (_, index) => call(client, "hover", { path: "src/main.ts", line: index + 1 })));
      const refused = settled.flatMap((outcome) => (outcome.status === "rejected" ? [String(outcome.reason)] : []));
      // stdio has no connection to bound; over http each call is a request on a connection of its own.
      if (transport === "stdio") assert.deepEqual(refused, []);
      // Past the bounds our server answers 503 saying retry; on a loaded machine the kernel's
      // listen queue can also refuse a connection before the server sees it (fetch failed).
      // Either way the calls that went through are answered right, and the server goes on.
      for (const reason of refused) assert.match(reason, /Error POSTing to endpoint.*too many (requests|connections) at once: retry|fetch failed/);
      assert.ok(refused.length < settled.length, "some calls went through");
      settled.forEach((outcome, index) => {
        if (outcome.status === "rejected") return;
        assert.equal(outcome.value.isError, false);
        assert.equal((json(outcome.value.text) as { hover: string }).hover, `at ${index + 1}`);
      });
      assert.ok(most <= LIMITS.maxRunning, `at most ${LIMITS.maxRunning} at once (saw ${most})`);
      // Answered after, once the burst's connections are gone (what "retry" says).
      const answered = async (): Promise<{ text: string }> => call(client, "hover", { path: "src/main.ts", line: 7 }).catch(() => answered());
      assert.deepEqual(json((await answered()).text), { hover: "at 7" });
    });

    it("a window closed in the middle of a request: the call fails at once, saying so", async () => {
      let started!: () => void;
      const inHandler = new Promise<void>((resolve) => (started = resolve));
      const window = await openWindow({
        find_definitions: () => {
          started();
          return new Promise(() => {}); // never answers: the window goes away first
        },
      });
      const { client } = await mcpClient(window.stateFile);
      const pending = call(client, "find_definitions", { symbol: "greet" });
      await inHandler;
      await window.server.close();
      const answer = await pending;
      assert.equal(answer.isError, true);
      assert.match(answer.text, /VS Code window closed the connection/, "at once, not after a timeout");
      // The next call finds no window, at once, and the state-file tools still answer.
      const again = await call(client, "find_definitions", { symbol: "greet" });
      assert.match(again.text, /No live VS Code window is connected .*the window is closed/);
      const state = await call(client, "editor_state");
      assert.equal(state.isError, false);
      assert.match((json(state.text) as { note: string }).note, /state file/);
    });

    it("a wrong secret: the window refuses; live tools say so, state-file tools answer from the file", async () => {
      const window = await openWindow({ editor_state: async () => ({ live: true }) });
      writeState(window, { socket: window.socket, secret: channelSecret() });
      const { client } = await mcpClient(window.stateFile);
      const references = await call(client, "find_references", { symbol: "greet" });
      assert.equal(references.isError, true);
      assert.match(references.text, /did not accept this server .*not authenticated/);
      const state = json((await call(client, "editor_state")).text) as { activeFile: string; selections: unknown[] };
      assert.equal(state.activeFile, path.join(window.workspace, "src", "main.ts"));
      assert.deepEqual(state.selections, [{ text: "answer", startLine: 1, endLine: 1 }]);
      const diagnostics = json((await call(client, "diagnostics")).text) as { diagnostics: Array<{ message: string }> };
      assert.equal(diagnostics.diagnostics[0]!.message, "unused");
      assert.equal(window.calls.length, 0);
    });

    it("no channel in the state file: live tools fail at once; read_file reads the workspace, never outside it", async () => {
      const window = await openWindow();
      writeState(window, null);
      fs.writeFileSync(path.join(window.dir, "secret.txt"), "outside the project\n");
      fs.symlinkSync(window.dir, path.join(window.workspace, "escape"));
      const { client } = await mcpClient(window.stateFile);
      const hover = await call(client, "hover", { symbol: "greet" });
      assert.match(hover.text, /No live VS Code window is connected: the state file names no live channel/);
      const read = await call(client, "read_file", { path: "src/main.ts", line: 2, limit: 1 });
      assert.equal(read.isError, false);
      assert.match(read.text, /main\.ts: lines 2-2 of 5 \(saved, from the disk\); more from line 3/);
      assert.match(read.text, /export function greet/);
      for (const escape of ["escape/secret.txt", "../secret.txt", path.join(window.dir, "secret.txt"), "escape/new-file.txt"]) {
        const refused = await call(client, "read_file", { path: escape });
        assert.equal(refused.isError, true, escape);
        assert.match(refused.text, /outside the workspace folders/, escape);
        assert.doesNotMatch(refused.text, /outside the project\n/);
      }
    });

    it("a stale state file: no window, and editor_state says the file cannot be used", async () => {
      const window = await openWindow({ editor_state: async () => ({ live: true }) });
      ageFile(window.stateFile, 120);
      const { client } = await mcpClient(window.stateFile);
      const state = await call(client, "editor_state");
      assert.equal(state.isError, true);
      assert.match(state.text, /No live VS Code window is connected, and the state file cannot be used: .* is stale/);
      const definitions = await call(client, "find_definitions", { symbol: "x" });
      assert.match(definitions.text, /No live VS Code window is connected: .* is stale/);
      assert.equal(window.calls.length, 0);
    });

    it("a hostile peer at the socket (answers garbage) or a dead one (never answers): clear errors, no hang", async () => {
      const window = await openWindow();
      const garbage = net.createServer((socket) => socket.end("this is not json\n"));
      const garbageSocket = path.join(window.dir, "garbage.sock");
      await new Promise<void>((resolve) => garbage.listen(garbageSocket, resolve));
      cleanups.push(() => void garbage.close()); // not awaited: its peer, the MCP server, is stopped after it
      writeState(window, { socket: garbageSocket, secret: window.secret });
      const { client } = await mcpClient(window.stateFile);
      const answer = await call(client, "document_symbols", { path: "src/main.ts" });
      assert.equal(answer.isError, true);
      assert.match(answer.text, /did not accept this server .*(not JSON-RPC|closed the connection)/);
      // A file that is not a socket at all.
      writeState(window, { socket: window.stateFile, secret: window.secret });
      assert.match((await call(client, "document_symbols", { path: "src/main.ts" })).text, /No live VS Code window is connected/);
    });

    it(
      "garbage from the MCP client is skipped; the server still answers",
      { skip: transport === "http" && "stdin's framing (http's: editor-tools-http.test.ts)" },
      async () => {
        const window = await openWindow({ editor_state: async () => ({ ok: 1 }) });
        const server = startNode(TOOLS_CLI, [], { SYMPOSIUM_EDITOR_STATE_FILE: window.stateFile });
        cleanups.push(() => void server.child.kill());
        const out = new LineCollector(server.child.stdout!);
        server.child.stdin!.write('not json at all\n{"jsonrpc":"2.0"}\n[1,2,3]\n{"jsonrpc":"2.0","id":{},"method":7}\n' + "\u0000\u0001\n");
        server.child.stdin!.write(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
          }) + "\n",
        );
        server.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
        server.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "no_such_tool", arguments: {} } }) + "\n");
        server.child.stdin!.write(
          JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "editor_state", arguments: { extra: [1] } } }) + "\n",
        );
        const byId = async (id: number): Promise<Record<string, unknown>> => {
          await eventually(() => out.parsed().some((message) => message.id === id), 10_000, `the answer to ${id}`);
          return out.parsed().find((message) => message.id === id)!;
        };
        assert.ok((await byId(1)).result, "initialize answered");
        assert.match(JSON.stringify(await byId(2)), /no_such_tool not found/);
        assert.match(JSON.stringify(await byId(3)), /\\"ok\\": 1/);
        server.child.stdin!.end();
        assert.equal(await server.exited, 0, "it ends when its input does");
      },
    );
  });
}

/** A peer speaking to a channel's socket line by line, as a hostile client would. */
async function raw(socketPath: string): Promise<{ send(line: string): void; next(): Promise<Record<string, unknown>>; closed: Promise<void> }> {
  const socket = net.createConnection(socketPath);
  await new Promise((resolve) => socket.once("connect", resolve));
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = "";
  socket.on("data", (chunk) => {
    buffer += chunk.toString();
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      waiters.shift()?.();
    }
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  cleanups.push(() => void socket.destroy());
  return {
    send: (line) => socket.write(line + "\n"),
    next: async () => {
      if (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
      return JSON.parse(lines.shift()!) as Record<string, unknown>;
    },
    closed,
  };
}

describe("editor tools: the window's channel, spoken to directly", { skip: POSIX_ONLY }, () => {
  it("the socket is 0600 in a 0700 directory, and refuses a caller without the secret", async () => {
    const window = await openWindow({ editor_state: async () => ({ live: true }) });
    assert.equal(fs.statSync(window.socket).mode & 0o777, 0o600);
    const early = await raw(window.socket);
    early.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "editor_state", params: {} }));
    assert.match(JSON.stringify(await early.next()), /not authenticated/);
    await early.closed;
    const wrong = await raw(window.socket);
    wrong.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "authenticate",
        params: { secret: window.secret.slice(0, -1) + (window.secret.endsWith("0") ? "1" : "0") },
      }),
    );
    assert.match(JSON.stringify(await wrong.next()), /"code":-32001/);
    await wrong.closed;
    assert.equal(window.calls.length, 0);
  });

  it("an oversized line is refused unread; unknown methods and a full queue get errors; the connection goes on", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const window = await openWindow(
      { hover: async () => (await gate, { hover: "done" }) },
      { limits: { maxMessageBytes: 1024, maxRunning: 1, maxWaiting: 2 } },
    );
    const peer = await raw(window.socket);
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "authenticate", params: { secret: window.secret } }));
    assert.deepEqual((await peer.next()).result, { pid: process.pid, workspaceFolders: [window.workspace] });
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "hover", params: { pad: "x".repeat(5000) } }));
    assert.match(JSON.stringify(await peer.next()), /discarded \(limit 1024\)/);
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "__proto__", params: {} }));
    assert.match(JSON.stringify(await peer.next()), /no tool named/);
    for (const id of [4, 5, 6, 7]) peer.send(JSON.stringify({ jsonrpc: "2.0", id, method: "hover", params: {} }));
    const busy = await peer.next();
    assert.equal(busy.id, 7);
    assert.match(JSON.stringify(busy), /busy/);
    release();
    const done = [await peer.next(), await peer.next(), await peer.next()];
    assert.deepEqual(done.map((answer) => answer.id).sort(), [4, 5, 6]);
  });

  it("a client that never reads its answers is not read either: what the window buffers stays bounded; others are answered", async () => {
    const answerText = "x".repeat(10_000);
    const limits = { connectionBufferBytes: 64 * 1024, maxPendingPerConnection: 4 };
    let served = 0;
    const window = await openWindow({ read_file: async () => (served++, { text: answerText }), editor_state: async () => ({ live: true }) }, { limits });
    const flood = net.createConnection(window.socket);
    cleanups.push(() => void flood.destroy());
    await new Promise((resolve) => flood.once("connect", resolve));
    flood.pause(); // never reads: its answers pile up in the window unless the window stops reading it
    const requests = Array.from({ length: 4000 }, (_, index) => JSON.stringify({ jsonrpc: "2.0", id: index + 1, method: "read_file", params: { path: "a" } }));
    flood.write([JSON.stringify({ jsonrpc: "2.0", id: 0, method: "authenticate", params: { secret: window.secret } }), ...requests].join("\n") + "\n");
    await eventually(() => served >= 10, 10_000, "the flood being served");
    const other = await raw(window.socket);
    other.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "authenticate", params: { secret: window.secret } }));
    await other.next();
    other.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "editor_state", params: {} }));
    assert.deepEqual((await other.next()).result, { live: true }, "another client is answered meanwhile");
    const answerBytes = answerText.length + 100;
    const bound = limits.connectionBufferBytes + (limits.maxPendingPerConnection + 1) * answerBytes;
    assert.ok(window.server.bufferedBytes() <= bound, `the window holds ${window.server.bufferedBytes()} bytes of unread answers, at most ${bound}`);
    assert.ok(served < 400, `the window stopped serving the client that does not read (served ${served} of 4000)`);
    // Once the client reads, the window reads it again: every request is answered, in full.
    let answered = 0;
    let buffer = "";
    flood.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      answered += lines.filter((line) => line.includes(answerText)).length;
    });
    flood.resume();
    await eventually(() => answered === 4000, 30_000, "every answer, once the client reads");
  });

  it("insideFolders: a symlink out of the workspace is refused, also for a file that does not exist yet", () => {
    const dir = tempDir("symposium-paths-");
    const workspace = path.join(dir, "ws");
    fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "src", "a.ts"), "");
    fs.symlinkSync(dir, path.join(workspace, "out-link"));
    fs.symlinkSync(path.join(workspace, "src"), path.join(workspace, "in-link"));
    const real = fs.realpathSync(workspace);
    assert.equal(insideFolders("src/a.ts", [workspace]), path.join(real, "src", "a.ts"));
    assert.equal(insideFolders("in-link/a.ts", [workspace]), path.join(real, "src", "a.ts"));
    assert.equal(insideFolders("src/new/deeper.ts", [workspace]), path.join(real, "src", "new", "deeper.ts"));
    assert.equal(insideFolders("out-link/ws-secret.txt", [workspace]), undefined);
    assert.equal(insideFolders("out-link/new/deeper.txt", [workspace]), undefined);
    assert.equal(insideFolders("../x", [workspace]), undefined);
    assert.equal(insideFolders(".", [workspace]), undefined);
    assert.equal(insideFolders("src/a.ts\0", [workspace]), undefined);
  });
});

/** A channel into the window, of either kind, with one method whose answers come from `answer` (its calls counted). */
interface OpenedChannel {
  socket: string;
  secret: string;
  server: ChannelServer;
  request(id: number): string;
  served(): number;
}

const CHANNEL_KINDS: Array<[string, (answer: () => Promise<string>) => Promise<OpenedChannel>]> = [
  [
    "the editor tools' channel",
    async (answer) => {
      const window = await openWindow({ read_file: async () => ({ text: await answer() }) });
      return { ...window, request: (id) => rpc(id, "read_file", { path: "a" }), served: () => window.calls.length };
    },
  ],
  [
    "a language model session's tool channel (the consumer's tools)",
    async (answer) => {
      const dir = tempDir("symposium-lm-tools-");
      fs.chmodSync(dir, 0o700);
      let served = 0;
      const handler = { tools: () => [], call: async () => (served++, { text: await answer(), isError: false }) };
      const channel = await openToolChannel(dir, handler, () => {});
      cleanups.push(() => channel.server.close());
      const secret = channel.relayEnv[TOOLS_SECRET_ENV]!;
      return { socket: channel.address, secret, server: channel.server, request: (id) => rpc(id, "call_tool", { name: "echo" }), served: () => served };
    },
  ],
];

function rpc(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

for (const [kind, open] of CHANNEL_KINDS) {
  describe(`a hostile peer at ${kind}`, { skip: POSIX_ONLY }, () => {
    it("the socket is 0600; a request before authenticate, a wrong secret, or silence past the deadline: closed, nothing served", async () => {
      const channel = await open(async () => "served");
      assert.equal(fs.statSync(channel.socket).mode & 0o777, 0o600);
      const early = await raw(channel.socket);
      early.send(channel.request(1));
      assert.match(JSON.stringify(await early.next()), /not authenticated/);
      await early.closed;
      const wrong = await raw(channel.socket);
      wrong.send(rpc(1, "authenticate", { secret: channel.secret.slice(0, -1) + (channel.secret.endsWith("0") ? "1" : "0") }));
      assert.match(JSON.stringify(await wrong.next()), /"code":-32001/);
      await wrong.closed;
      const started = Date.now();
      const silent = await raw(channel.socket);
      await silent.closed;
      const waited = Date.now() - started;
      assert.ok(waited >= LIMITS.authenticateMs - 500, `closed after the ${LIMITS.authenticateMs} ms deadline (${waited} ms)`);
      assert.equal(channel.served(), 0);
    });

    it(`at most ${LIMITS.maxConnections} connections at once: one more is closed, the others are answered`, async () => {
      const channel = await open(async () => "served");
      const peers = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => raw(channel.socket)));
      const extra = await raw(channel.socket);
      await extra.closed;
      const first = peers[0]!;
      first.send(rpc(1, "authenticate", { secret: channel.secret }));
      await first.next();
      first.send(channel.request(2));
      assert.match(JSON.stringify(await first.next()), /served/);
    });

    it("1,000 requests in flight from one peer: all answered, at most maxRunning at work at once", async () => {
      let running = 0;
      let most = 0;
      const channel = await open(async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return "served";
      });
      const peer = await raw(channel.socket);
      peer.send(rpc(0, "authenticate", { secret: channel.secret }));
      await peer.next();
      for (let id = 1; id <= 1000; id++) peer.send(channel.request(id));
      const answers = await Promise.all(Array.from({ length: 1000 }, () => peer.next()));
      assert.equal(answers.filter((answer) => JSON.stringify(answer).includes("served")).length, 1000);
      assert.ok(most <= LIMITS.maxRunning, `at most ${LIMITS.maxRunning} at once (saw ${most})`);
    });

    it("a peer that never reads its answers is not read either: what the window buffers stays bounded; others are answered", async () => {
      const answerText = "x".repeat(10_000);
      const channel = await open(async () => answerText);
      const flood = net.createConnection(channel.socket);
      cleanups.push(() => void flood.destroy());
      await new Promise((resolve) => flood.once("connect", resolve));
      flood.pause();
      const requests = Array.from({ length: 4000 }, (_, index) => channel.request(index + 1));
      flood.write([rpc(0, "authenticate", { secret: channel.secret }), ...requests].join("\n") + "\n");
      await eventually(() => channel.served() >= 10, 10_000, "the flood being served");
      const other = await raw(channel.socket);
      other.send(rpc(1, "authenticate", { secret: channel.secret }));
      await other.next();
      other.send(channel.request(2));
      assert.match(JSON.stringify(await other.next()), /x{100}/, "another peer is answered meanwhile");
      const bound = LIMITS.connectionBufferBytes + (LIMITS.maxPendingPerConnection + 1) * (answerText.length + 100);
      assert.ok(channel.server.bufferedBytes() <= bound, `the window holds ${channel.server.bufferedBytes()} bytes of unread answers, at most ${bound}`);
      assert.ok(channel.served() < 1000, `the window stopped serving the peer that does not read (served ${channel.served()} of 4000)`);
    });
  });
}

describe("editor tools: the channel's address", () => {
  it("a socket in the private directory on POSIX, a named pipe with a random name on Windows; never a port", () => {
    const posix = channelAddress("/run/user/1000/symposium", "linux");
    assert.match(posix, /^\/run\/user\/1000\/symposium\/symposium-tools-[0-9a-f]{24}\.sock$/);
    assert.ok(Buffer.byteLength(posix) <= MAX_SOCKET_PATH_BYTES);
    assert.match(channelAddress("C:\\Users\\u\\AppData\\Local\\Symposium", "win32"), /^\\\\\.\\pipe\\symposium-tools-[0-9a-f]{24}$/);
    assert.notEqual(channelAddress("/d", "linux"), channelAddress("/d", "linux"));
    assert.match(channelSecret(), /^[0-9a-f]{64}$/);
  });
});

// P15: the stdio server is one more Node process per session, so what only a tool call needs (Ajv, which checks
// its arguments) is loaded by the first call, from a chunk of its own, not at start (scripts/bundle.mjs).
describe("editor tools on stdio: what a call needs is loaded by the first call", { skip: POSIX_ONLY }, () => {
  /** Node's module hooks, in their own thread, write each module's URL to LOADED_MODULES_FILE as it loads. */
  const recordLoads = `data:text/javascript,${encodeURIComponent(
    `import { register } from "node:module"; register(${JSON.stringify(
      `data:text/javascript,${encodeURIComponent(
        `import { appendFileSync } from "node:fs"; export async function load(url, context, next) { appendFileSync(process.env.LOADED_MODULES_FILE, url + "\\n"); return next(url, context); }`,
      )}`,
    )});`,
  )}`;

  it("starts and lists its tools without the argument validator, and loads it for the first call", async () => {
    const window = await openWindow({ editor_state: async () => ({ activeFile: "/live/file.ts" }) });
    const loads = path.join(tempDir(), "loaded-modules");
    fs.writeFileSync(loads, "");
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", recordLoads, TOOLS_CLI],
        env: { ...(process.env as Record<string, string>), SYMPOSIUM_EDITOR_STATE_FILE: window.stateFile, LOADED_MODULES_FILE: loads },
        stderr: "pipe",
      }),
    );
    cleanups.push(() => client.close());
    const validator = (): string[] =>
      fs
        .readFileSync(loads, "utf8")
        .split("\n")
        .filter((url) => url.includes("/dist/chunks/ajv-provider-"));
    assert.ok(fs.readFileSync(loads, "utf8").includes("symposium-editor-tools.mjs"), "the hooks saw the server load");
    assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
    assert.deepEqual(validator(), [], "not loaded at start nor for tools/list");
    const state = await call(client, "editor_state");
    assert.equal(state.isError, false, state.text);
    assert.equal(validator().length, 1, "the first call loaded the validator's chunk");
  });
});
