// The editor's tools under test (test/process/editor-tools*.test.ts): a
// window's real channel server (editor-tools/src/channel-server.ts) on a
// real socket, its handlers standing in for VS Code, with the state file
// naming it; and the official MCP client on either transport the tools are
// served on: stdio (dist/symposium-editor-tools.mjs, a process) or http (the
// server a conductor runs in its own process, editor-tools/src/http-server.ts).

import * as fs from "node:fs";
import * as path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { HttpToolsServer, type HttpToolsEndpoint, type HttpToolsLimits } from "../../editor-tools/src/http-server.js";
import { ChannelServer, channelSecret, type ChannelHandler } from "../../editor-tools/src/channel-server.js";
import { REPO_DIR, tempDir } from "./processes.js";

export const TOOLS_CLI = path.join(REPO_DIR, "dist", "symposium-editor-tools.mjs");

/** The two ways the tools are served: the same handlers behind each. */
export const TRANSPORTS = ["stdio", "http"] as const;
export type ToolsTransport = (typeof TRANSPORTS)[number];

/** What each test started, ended by the test file's `after(endAll)`. */
export const cleanups: Array<() => Promise<void> | void> = [];

export async function endAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

export interface Window {
  dir: string;
  workspace: string;
  stateFile: string;
  socket: string;
  secret: string;
  server: ChannelServer;
  calls: Array<[string, Record<string, unknown>]>;
}

/** A private directory with a workspace, a state file naming the channel, and the channel server listening. */
export async function openWindow(
  handlers: Record<string, ChannelHandler> = {},
  options: { limits?: ConstructorParameters<typeof ChannelServer>[0]["limits"] } = {},
): Promise<Window> {
  const dir = tempDir("symposium-tools-");
  fs.chmodSync(dir, 0o700);
  const workspace = path.join(dir, "workspace");
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(workspace, "src", "main.ts"), "export const answer = 42;\nexport function greet(name: string) {\n  return `hello ${name}`;\n}\n");
  const socket = path.join(dir, "tools.sock");
  const secret = channelSecret();
  const calls: Window["calls"] = [];
  const recorded = Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      (params: Record<string, unknown>) => {
        calls.push([name, params]);
        return handler(params);
      },
    ]),
  );
  const server = new ChannelServer({
    address: socket,
    secret,
    handlers: recorded,
    identity: () => ({ pid: process.pid, workspaceFolders: [workspace] }),
    log: () => {},
    ...options,
  });
  await server.listen();
  cleanups.push(() => server.close());
  const stateFile = path.join(dir, "editor-state.json");
  const window = { dir, workspace, stateFile, socket, secret, server, calls };
  writeState(window, { socket, secret });
  return window;
}

export function writeState(window: Window, tools: { socket: string | null; secret: string | null; enabled?: boolean } | null): void {
  const state = {
    version: 1,
    activeFile: path.join(window.workspace, "src", "main.ts"),
    languageId: "typescript",
    selection: { text: "answer", startLine: 1, endLine: 1 },
    workspaceFolders: [window.workspace],
    diagnostics: [{ line: 1, severity: "warning", source: "ts", message: "unused" }],
    ...(tools ? { editorTools: { enabled: tools.enabled ?? true, socket: tools.socket, secret: tools.secret } } : {}),
  };
  fs.writeFileSync(window.stateFile, JSON.stringify(state), { mode: 0o600 });
}

/** The official MCP client on the tools served over `transport` for this state file. */
export async function mcpClient(stateFile: string, transport: ToolsTransport = "stdio"): Promise<{ client: Client }> {
  const client = new Client({ name: "test", version: "1.0.0" });
  if (transport === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [TOOLS_CLI],
        env: { ...(process.env as Record<string, string>), SYMPOSIUM_EDITOR_STATE_FILE: stateFile },
        stderr: "pipe",
      }),
    );
  } else {
    const { endpoint } = await httpEndpoint(stateFile);
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: headersOf(endpoint) } }));
  }
  cleanups.push(() => client.close());
  return { client };
}

/** An http tools server for this state file, with one session's endpoint. */
export async function httpEndpoint(
  stateFile: string,
  limits: Partial<HttpToolsLimits> = {},
): Promise<{ server: HttpToolsServer; endpoint: HttpToolsEndpoint }> {
  const server = await HttpToolsServer.start({ stateFile, limits });
  cleanups.push(() => server.close());
  return { server, endpoint: server.open() };
}

/** An entry's headers as a fetch takes them. */
export function headersOf(entry: { headers: Array<{ name: string; value: string }> }): Record<string, string> {
  return Object.fromEntries(entry.headers.map(({ name, value }) => [name, value]));
}

/** A tool's JSON answer; each test says the shape it expects. */
export function json(text: string): unknown {
  return JSON.parse(text);
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { text: first?.type === "text" ? first.text : "", isError: result.isError === true };
}
