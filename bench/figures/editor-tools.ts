// P13–P15: the editor's MCP server (docs/editor-tools.md). P13 times an
// editor_state round trip the way an agent makes it (the official MCP client →
// dist/symposium-editor-tools.mjs on stdio → the private socket → the window's
// real channel server, editor-tools/src/channel-server.ts → back), against
// the same call answered directly (the channel's handler called in this
// process); P14 the proxy's rewrite of session/new (the server's entry added
// to mcpServers) against forwarding a prompt untouched; P15 the server's
// memory after start, tools/list and 100 calls, against a bare `node`, in the
// same runs. The window's handler answers a fixed editor state shaped as the
// editor_state handler's (editor-tools/src/tools/editor-state.ts): a real
// find_references against VS Code's own provider is timed in the e2e
// (test/e2e/editor-tools.test.ts) and logged there.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parseLine } from "../../acp-wire/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { EditorContextInjector, editorToolsServer } from "../../editor-context-proxy/src/index.js";
import { ChannelServer, channelSecret, type ChannelHandler } from "../../editor-tools/src/channel-server.js";
import { rssMb } from "../../test/support/memory.js";
import { REPO, RUNS, median, node, percentile, type Figure } from "./common.js";

const TOOLS_CLI = path.join(REPO, "dist", "symposium-editor-tools.mjs");
const ROUND_TRIPS = 300;
const MEMORY_CALLS = 100;

/** A window: a private directory, its channel server answering editor_state, and a state file naming it. */
interface Window {
  stateFile: string;
  handler: ChannelHandler;
  close(): Promise<void>;
}

async function openWindow(dir: string): Promise<Window> {
  const home = fs.mkdtempSync(path.join(dir, "window-"));
  fs.chmodSync(home, 0o700);
  const workspace = path.join(home, "project");
  const active = path.join(workspace, "src", "main.ts");
  const selection = "export function greet(name: string) {\n  return `hello ${name}`;\n}\n".repeat(4);
  const handler: ChannelHandler = async () => ({
    activeFile: active,
    languageId: "typescript",
    unsaved: true,
    selections: [{ start: { line: 12, character: 1 }, end: { line: 24, character: 2 }, text: selection }],
    visibleLines: [{ startLine: 1, endLine: 48 }],
    openEditors: Array.from({ length: 8 }, (_, index) => ({ path: path.join(workspace, "src", `file-${index}.ts`), unsaved: index === 0, active: false })),
    omittedEditors: 0,
    workspaceFolders: [workspace],
  });
  const socket = path.join(home, "tools.sock");
  const secret = channelSecret();
  const server = new ChannelServer({
    address: socket,
    secret,
    handlers: { editor_state: handler },
    identity: () => ({ pid: process.pid, workspaceFolders: [workspace] }),
    log: () => {},
  });
  await server.listen();
  const stateFile = path.join(home, "editor-state.json");
  const state = { version: 1, activeFile: active, languageId: "typescript", workspaceFolders: [workspace], editorTools: { enabled: true, socket, secret } };
  fs.writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  return { stateFile, handler, close: () => server.close() };
}

/** The editor's MCP server for `stateFile`, started by the official MCP client over stdio. */
async function startServer(stateFile: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: node,
    args: [TOOLS_CLI],
    env: { ...(process.env as Record<string, string>), [STATE_FILE_ENV]: stateFile },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

async function elapsedMs(call: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** P13: editor_state through the MCP server and the socket, against the handler called directly; alternating, one call each at a time. */
export async function p13(dir: string): Promise<Figure> {
  const window = await openWindow(dir);
  const { client } = await startServer(window.stateFile);
  try {
    const viaServer = () => client.callTool({ name: "editor_state", arguments: {} });
    const direct = async () => JSON.stringify(await window.handler({}));
    for (let i = 0; i < 50; i++) await Promise.all([viaServer(), direct()]); // warm-up: connection, JIT
    const samples = { server: [] as number[], direct: [] as number[] };
    for (let i = 0; i < ROUND_TRIPS; i++) {
      samples.server.push(await elapsedMs(viaServer));
      samples.direct.push(await elapsedMs(direct));
    }
    const p50 = percentile(samples.server, 50);
    const directP50 = percentile(samples.direct, 50);
    return {
      id: "P13",
      what: "editor_state round trip: official MCP client → editor-tools server (stdio) → socket → the window's channel server → back",
      value: `p50 ${p50.toFixed(2)} ms`,
      goal: "p50 ≤ 5 ms",
      met: p50 <= 5,
      detail: `p90 ${percentile(samples.server, 90).toFixed(2)} ms, p99 ${percentile(samples.server, 99).toFixed(2)} ms over ${ROUND_TRIPS} calls; the same handler called in-process (what the extension host does itself, answer serialised): p50 ${directP50.toFixed(3)} ms, so the hops add ${(p50 - directP50).toFixed(2)} ms; calls alternate with the direct ones, one at a time`,
    };
  } finally {
    await client.close();
    await window.close();
  }
}

/** P14, in process: the proxy's rewrite of a session/new (parse, the state file's check, the entry added, serialise), against forwarding a prompt-less request untouched. */
export function p14(dir: string): Figure {
  const iterations = 5_000;
  const window = path.join(dir, "p14-state.json");
  fs.writeFileSync(
    window,
    JSON.stringify({ version: 1, activeFile: "/p/a.ts", workspaceFolders: ["/p"], editorTools: { enabled: true, socket: "/p/s", secret: "x" } }),
  );
  const entry = editorToolsServer(window, path.join(REPO, "dist"));
  if (entry === null) throw new Error(`P14 needs ${TOOLS_CLI} (npm run build)`);
  const sessionNew = Buffer.from(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/p", mcpServers: [{ name: "theirs", command: "theirs-mcp", args: ["--stdio"], env: [] }] },
    }),
  );
  const time = (injector: EditorContextInjector): number[] => {
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = process.hrtime.bigint();
      const parsed = parseLine(sessionNew);
      const rewritten = parsed.ok ? injector.rewrite(parsed.message) : null;
      const forwarded = rewritten === null ? sessionNew : JSON.stringify(rewritten);
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (forwarded.length === 0) throw new Error("unreachable");
    }
    return samples;
  };
  const withTools = new EditorContextInjector({ stateFile: window, editorTools: entry });
  const without = new EditorContextInjector({ stateFile: path.join(dir, "absent.json") });
  time(withTools); // warm-up
  time(without);
  const rewritten = time(withTools);
  const forwarded = time(without);
  const p99 = percentile(rewritten, 99);
  return {
    id: "P14",
    what: "the proxy's rewrite of session/new: the editor's MCP server added to mcpServers (parse + state-file check + entry + serialise)",
    value: `p50 ${percentile(rewritten, 50).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms`,
    goal: "p99 ≤ 1 ms",
    met: p99 <= 1,
    detail: `${iterations.toLocaleString("en")} in a row; the same session/new forwarded untouched (no state file, no entry): p50 ${percentile(forwarded, 50).toFixed(3)} ms, p99 ${percentile(forwarded, 99).toFixed(3)} ms`,
  };
}

/** A bare `node` kept alive on its stdin, as the floor every Node process starts from. */
async function bareNodeRssMb(): Promise<number> {
  const child = spawn(node, ["-e", "process.stdin.resume(); process.stdout.write('up\\n')"], { stdio: ["pipe", "pipe", "ignore"] });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 200)); // as long as the server's side settles below, about
  const rss = rssMb(child.pid!);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin.end();
  await exited;
  return rss;
}

/** The editor-tools server's VmRSS after start, tools/list and MEMORY_CALLS editor_state calls. */
async function serverRssMb(window: Window): Promise<{ started: number; after: number }> {
  const { client, pid } = await startServer(window.stateFile);
  try {
    const started = rssMb(pid);
    await client.listTools();
    for (let i = 0; i < MEMORY_CALLS; i++) await client.callTool({ name: "editor_state", arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { started, after: rssMb(pid) };
  } finally {
    await client.close();
  }
}

/** P15: the server's memory against a bare `node`, interleaved, median of RUNS. */
export async function p15(dir: string): Promise<Figure> {
  const window = await openWindow(dir);
  try {
    await serverRssMb(window); // warm-up: page cache
    const server: number[] = [];
    const atStart: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const measured = await serverRssMb(window);
      server.push(measured.after);
      atStart.push(measured.started);
      bare.push(await bareNodeRssMb());
    }
    const rss = median(server);
    const floor = median(bare);
    return {
      id: "P15",
      what: `editor-tools server's memory: VmRSS after start, tools/list and ${MEMORY_CALLS} editor_state calls`,
      value: `${rss.toFixed(1)} MB (+${(rss - floor).toFixed(1)} MB over a bare node)`,
      goal: "≤ 40 MB",
      met: rss <= 40,
      detail: `median of ${RUNS}, interleaved with a bare \`node -e\` waiting on its stdin: ${floor.toFixed(1)} MB; the server just started (initialize answered): ${median(atStart).toFixed(1)} MB`,
    };
  } finally {
    await window.close();
  }
}
