// The chat's web server: the page (with a per-response CSP nonce), its two
// assets, and the websocket on /ws. Every request and upgrade passes the
// loopback guard (secret, Host, Origin) before anything else happens; an
// upgrade that fails it never starts an agent.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import * as path from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../../acp-wire/src/index.js";
import { createLoopbackGuard, errorLine, refusalLine, refuseUpgrade, requestTarget, targetForLog, type LoopbackGuard } from "../../loopback-auth/src/index.js";
import { MAX_PAGE_MESSAGE_BYTES, QUERY, type ServerMessage } from "../page/protocol.js";
import { CONVERSATION_ID_PATTERN } from "../../webview/src/panel-messages.js";
import { AGENT_PICKER_ENV, AgentCatalog, ourConductor } from "./agent-catalog.js";
import { ExtensionsManager } from "./extensions-manager.js";
import type { AgentCommand } from "./agent-command.js";
import { ContextChipWatcher } from "./context-chip.js";
import { Conversation, makeRoom, refuseConversation } from "./conversation.js";
import { HistoryStore, isHistoryId, newHistoryId, type StoredHistoryEntry } from "./history.js";
import { isAgentSessionId } from "./agent-session-list.js";
import { pageHtml } from "./page-html.js";
import type { ProjectFiles } from "./project-files.js";

export interface ChatServerOptions {
  command: AgentCommand;
  projectDir: string;
  files: ProjectFiles;
  title: string;
  host: string;
  port: number;
  token: string;
  allowedOrigins: string[];
  graceMs: number;
  /** Live conversations (each an agent) this server runs at most (--max-conversations). */
  maxConversations: number;
  /** The environment every agent gets. */
  agentEnv: NodeJS.ProcessEnv;
  /** This workspace's history folder (history.ts: historyDir); undefined: conversations are not kept. */
  historyDir?: string;
  /** Folder holding page.js and page.css (dist/webchat/). */
  assetsDir: string;
  log: Logger;
}

/**
 * The browser may keep the script and the stylesheet: their URLs carry this
 * server's secret, so a new server is fetched anew, while a window reload
 * skips two round trips (through code-server's proxy, ~0.2 s each:
 * docs/benchmarks-notes.md, the panel's reload). The page itself, with its nonce, is never stored.
 */
const ASSET_CACHING = "private, max-age=86400";
const ASSETS: Record<string, string> = { "/page.js": "text/javascript; charset=utf-8", "/page.css": "text/css; charset=utf-8" };

export class ChatServer {
  private readonly http: http.Server;
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_PAGE_MESSAGE_BYTES });
  private readonly guard: LoopbackGuard;
  private readonly conversations = new Map<string, Conversation>();
  private readonly chip: ContextChipWatcher;
  private unnamedCount = 0;
  private readonly history: HistoryStore | undefined;
  /** The agent picker (agent-catalog.ts): only when the agent command is our conductor. */
  private readonly agents: AgentCatalog | undefined;
  /** The Extensions section (extensions-manager.ts): only when the agent command is our conductor. */
  private readonly extensions: ExtensionsManager | undefined;

  constructor(private readonly options: ChatServerOptions) {
    this.guard = createLoopbackGuard({ token: options.token, port: () => this.port, listenHost: options.host, allowedOrigins: options.allowedOrigins });
    this.chip = new ContextChipWatcher(options.agentEnv, (chip) => this.broadcast({ type: "context", chip }));
    this.history = options.historyDir ? new HistoryStore(options.historyDir, options.log) : undefined;
    const conductor = ourConductor(options.command);
    this.agents = conductor && new AgentCatalog(conductor, { env: options.agentEnv, cwd: options.projectDir, log: (line) => options.log(`[agents] ${line}`) });
    this.extensions =
      conductor && new ExtensionsManager(conductor, { env: options.agentEnv, cwd: options.projectDir, log: (line) => options.log(`[extensions] ${line}`) });
    this.http = http.createServer((req, res) => this.onRequest(req, res));
    this.http.on("upgrade", (req, socket, head) => this.onUpgrade(req, socket, head));
  }

  get port(): number {
    return (this.http.address() as AddressInfo | null)?.port ?? this.options.port;
  }

  /** Rejects with the listen error (EADDRINUSE for a busy port). */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off("error", reject);
        resolve();
      });
    });
  }

  /** Ends every conversation (and its agent's process tree), then stops listening. */
  async close(): Promise<void> {
    this.chip.setActive(false);
    this.http.close();
    this.http.closeAllConnections();
    await Promise.all([...this.conversations.values()].map((conversation) => conversation.end("the server is stopping")));
  }

  /** Nothing a request carries may end the server: a throw is a bug, answered 500 and logged on one line. */
  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    try {
      this.route(req, res);
    } catch (error) {
      this.options.log(`internal error answering ${req.method} ${targetForLog(req)}: ${errorLine(error)}`);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("internal error (see the server's log)\n");
    }
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const verdict = this.guard.checkHttp(req);
    if (!verdict.ok) {
      this.options.log(refusalLine(req, verdict.reason));
      res.writeHead(verdict.status, { "Content-Type": "text/plain; charset=utf-8" }).end(`${verdict.reason}\n`);
      return;
    }
    const route = requestTarget(req)!.pathname; // the guard refused any other
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
    } else if (route === "/" || route === "/index.html") {
      const nonce = randomBytes(16).toString("base64");
      res.writeHead(200, { ...securityHeaders(nonce), "Content-Type": "text/html; charset=utf-8" });
      res.end(pageHtml({ nonce, token: this.options.token, title: this.options.title }));
    } else if (ASSETS[route]) {
      this.serveAsset(route, res);
    } else {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
    }
  }

  private serveAsset(route: string, res: http.ServerResponse): void {
    fs.readFile(path.join(this.options.assetsDir, route.slice(1)), (error, body) => {
      if (error) {
        this.options.log(`cannot serve ${route}: ${error.message} (was the page bundled? node scripts/bundle.mjs)`);
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("the page's files are missing\n");
        return;
      }
      res.writeHead(200, { ...securityHeaders(), "Cache-Control": ASSET_CACHING, "Content-Type": ASSETS[route]! }).end(body);
    });
  }

  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    // Until ws takes it, the socket has no error listener: a reset would end the server.
    socket.on("error", () => socket.destroy());
    try {
      this.upgrade(req, socket, head);
    } catch (error) {
      this.options.log(`internal error upgrading ${targetForLog(req)}: ${errorLine(error)}`);
      refuseUpgrade(socket, 500, "internal error (see the server's log)");
    }
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const verdict = this.guard.checkUpgrade(req);
    if (!verdict.ok) {
      this.options.log(`refused a websocket: ${verdict.reason}`);
      return refuseUpgrade(socket, verdict.status, verdict.reason);
    }
    const url = requestTarget(req)!; // the guard refused any other
    const named = url.searchParams.get(QUERY.conversation);
    if (url.pathname !== "/ws" || (named !== null && !CONVERSATION_ID_PATTERN.test(named))) {
      return refuseUpgrade(socket, 400, url.pathname !== "/ws" ? "websockets live on /ws" : "a conversation id is 1-64 letters, digits, '-' or '_'");
    }
    const reopen = url.searchParams.get(QUERY.reopen);
    const reopenAgent = url.searchParams.get(QUERY.reopenAgent);
    this.sockets.handleUpgrade(req, socket, head, (ws) => {
      try {
        this.attach(ws, named, isHistoryId(reopen) ? reopen : undefined, isAgentSessionId(reopenAgent) ? reopenAgent : undefined);
      } catch (error) {
        // The socket is a websocket by now: it is closed as one, not answered in HTTP.
        this.options.log(`internal error attaching a websocket: ${errorLine(error)}`);
        ws.close(1011, "internal error (see the server's log)");
      }
    });
  }

  /** `agentSessionId`: one of the agent's own sessions (History's `session/list` part) to reopen in a new conversation. */
  private attach(ws: WebSocket, named: string | null, reopenId: string | undefined, agentSessionId?: string): void {
    // The colon keeps these ids apart from any a URL can name (CONVERSATION_ID_PATTERN).
    const id = named ?? `unnamed:${++this.unnamedCount}`;
    // An oversized message or a frame that is not UTF-8: ws has already closed
    // this socket (1009, 1007); its conversation and every other socket go on.
    ws.on("error", (error) => this.options.log(`[${id}] closed a websocket: ${error.message}`));
    let conversation = this.conversations.get(id);
    if (!conversation) {
      if (!makeRoom(this.conversations.values(), this.options.maxConversations, this.options.log)) {
        return refuseConversation(ws, this.options.maxConversations, this.options.log);
      }
      const reopen = reopenId === undefined ? agentSessionReopen(agentSessionId) : this.history?.load(reopenId);
      if (reopenId !== undefined && !reopen) this.options.log(`[${id}] no kept conversation ${reopenId} to reopen: starting a new one`);
      conversation = new Conversation({
        id,
        history: this.history,
        reopen,
        named: named !== null,
        graceMs: this.options.graceMs,
        maxConversations: this.options.maxConversations,
        title: this.options.title,
        command: this.options.command,
        projectDir: this.options.projectDir,
        // With the picker, the conductor's errors and its demo agent point at it rather than at the config file.
        env: this.agents ? { ...this.options.agentEnv, [AGENT_PICKER_ENV]: "1" } : this.options.agentEnv,
        files: this.options.files,
        agents: this.agents,
        extensions: this.extensions,
        log: (message) => this.options.log(`[${id}] ${message}`),
        onEnded: (ended) => {
          if (this.conversations.get(ended.id) === ended) this.conversations.delete(ended.id);
        },
      });
      this.conversations.set(id, conversation);
    }
    this.chip.setActive(true);
    conversation.attach(ws, { type: "context", chip: this.chip.chip });
    ws.on("close", () => this.chip.setActive([...this.conversations.values()].some((each) => each.attached)));
  }

  private broadcast(message: ServerMessage): void {
    for (const conversation of this.conversations.values()) conversation.broadcast(message);
  }
}

/**
 * The page loads only its own script (by nonce) and stylesheet and talks only
 * to its own origin. No Referer leaves the page: its URL holds the secret.
 */
function securityHeaders(nonce?: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    nonce ? `script-src 'nonce-${nonce}'` : "script-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return {
    "Content-Security-Policy": csp,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  };
}

/** One of the agent's own sessions, reopened as a new conversation with nothing kept yet (the agent loads or resumes it). */
function agentSessionReopen(agentSessionId: string | undefined): { entry: StoredHistoryEntry; events: [] } | undefined {
  if (agentSessionId === undefined) return undefined;
  const now = Date.now();
  return { entry: { id: newHistoryId(), title: "", createdAt: now, updatedAt: now, agentSessionId }, events: [] };
}
