// The editor's tools served by the conductor itself, over HTTP, to an agent
// whose initialize answer advertises `mcpCapabilities.http` (Claude Code's
// adapter does): the stdio entry the editor-context proxy adds to a session's
// `mcpServers` is swapped for an http entry naming an endpoint of this
// process (editor-tools/src/http-server.ts), so no process starts per session
// (docs/editor-tools.md, "Over HTTP"). Other agents keep the stdio entry.
// `SYMPOSIUM_EDITOR_TOOLS_TRANSPORT=stdio` keeps it for every agent.
//
// The listener starts at the first session that needs it (a session/new held
// until it listens, a millisecond) and its code is loaded then, so a
// conductor whose agent takes no http pays nothing. Each session's endpoint
// closes when the conductor stops, or when its setup request fails.

import { INITIALIZE, idJson, isObject, isRequest, type Logger, type WireMessage } from "../../acp-wire/src/index.js";
import { EDITOR_TOOLS_SERVER_NAME, SESSION_SETUP_METHODS, type McpServerEntry } from "../../editor-context-proxy/src/index.js";
import { TOOLS_STARTED_ENV, announceStarted } from "../../editor-context-proxy/src/tools-started.js";
import type { HttpToolsEndpoint, HttpToolsServer } from "../../editor-tools/src/http-server.js";
import { transportsOf } from "./mcp-servers.js";
import type { Observation } from "./router.js";

/** `stdio` keeps the stdio server for every agent (the http one is used when the agent takes it). */
export const EDITOR_TOOLS_TRANSPORT_ENV = "SYMPOSIUM_EDITOR_TOOLS_TRANSPORT";

/** ACP's http MCP server entry (McpServerHttp). */
export interface McpServerHttpEntry {
  type: "http";
  name: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
}

export class EditorToolsOverHttp {
  private initializeId: string | null = null;
  private agentTakesHttp = false;
  private server: Promise<HttpToolsServer> | null = null;
  /** Endpoints whose setup request is in flight, by its id. */
  private readonly pending = new Map<string, HttpToolsEndpoint>();

  constructor(
    private readonly stateFile: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
  ) {}

  private get wanted(): boolean {
    return this.agentTakesHttp && this.env[EDITOR_TOOLS_TRANSPORT_ENV] !== "stdio";
  }

  /** Notes the initialize request's id; holds a setup request until the listener is up when the agent takes http. */
  observe(request: WireMessage): Observation | null {
    if (!isRequest(request)) return null;
    if (request.method === INITIALIZE) this.initializeId = idJson(request.id);
    if (!SESSION_SETUP_METHODS.has(request.method) || !this.wanted) return null;
    const hold = this.listener().then(
      () => {},
      (error: unknown) => this.log(`the editor's tools stay on stdio: no http listener (${(error as Error).message})`),
    );
    return { hold };
  }

  /** A setup request whose stdio `symposium-editor` entry (ours, with its start marker) is swapped for an http one; null to leave it. */
  swapped(message: WireMessage | null): WireMessage | null {
    if (message === null || !isRequest(message) || !SESSION_SETUP_METHODS.has(message.method) || !this.wanted) return message;
    if (!isObject(message.params) || !Array.isArray(message.params.mcpServers)) return message;
    const servers: unknown[] = message.params.mcpServers;
    const index = servers.findIndex(isOurStdioEntry);
    const server = this.listening;
    if (index < 0 || server === null) return message;
    const marker = (servers[index] as McpServerEntry).env.find((variable) => variable.name === TOOLS_STARTED_ENV)?.value;
    const endpoint = server.open(() => announceStarted(marker, this.log));
    this.pending.set(idJson(message.id), endpoint);
    const entry: McpServerHttpEntry = { type: "http", name: EDITOR_TOOLS_SERVER_NAME, url: endpoint.url, headers: endpoint.headers };
    return { ...message, params: { ...message.params, mcpServers: servers.map((each, i) => (i === index ? entry : each)) } };
  }

  /** Learns from the initialize answer whether the agent takes http; closes the endpoint of a setup request that failed. */
  noteAnswer(answer: WireMessage): void {
    const id = idJson(answer.id);
    if (id === this.initializeId) {
      this.initializeId = null;
      this.agentTakesHttp = transportsOf(answer).has("http");
      return;
    }
    const endpoint = this.pending.get(id);
    if (endpoint === undefined) return;
    this.pending.delete(id);
    if (!("result" in answer)) void endpoint.close();
  }

  async close(): Promise<void> {
    this.pending.clear();
    if (this.server === null) return;
    const server = await this.server.catch(() => null);
    await server?.close();
  }

  private listening: HttpToolsServer | null = null;

  private listener(): Promise<HttpToolsServer> {
    this.server ??= import("../../editor-tools/src/http-server.js")
      .then(({ HttpToolsServer }) => HttpToolsServer.start({ stateFile: this.stateFile, log: this.log }))
      .then((server) => (this.listening = server));
    return this.server;
  }
}

/** Our stdio entry as the editor-context proxy added it (an entry the client sent under the name has no start marker). */
function isOurStdioEntry(server: unknown): boolean {
  return (
    isObject(server) &&
    server.name === EDITOR_TOOLS_SERVER_NAME &&
    Array.isArray(server.env) &&
    server.env.some((variable) => isObject(variable) && variable.name === TOOLS_STARTED_ENV)
  );
}
