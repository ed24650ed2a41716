// The editor's MCP server over Streamable HTTP, inside a process that already
// runs for the conversation (the conductor; in the built-in chat, the chat
// server), for agents that advertise `mcpCapabilities.http`: no process per
// session (docs/editor-tools.md, "Over HTTP"). The same tools and handlers as
// the stdio server (server.ts); the official SDK's server transport.
//
// One listener on 127.0.0.1 per conductor, one endpoint per ACP session, each
// with its own path and its own secret, which the agent gets in the entry's
// `headers` and sends as `Authorization: Bearer`. Every request passes
// loopback-auth's checks (target, Host, Origin, secret in constant time) before
// its body is read; a query string is refused (the secret never travels in a
// URL). Bounded: request body, connections, requests at once, MCP sessions an
// endpoint holds. No CORS headers: a page's preflight gets nothing it could use.

import { randomBytes, randomUUID } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createLoopbackGuard, errorLine, generateSecret, refusalLine, type LoopbackGuard } from "../../loopback-auth/src/index.js";
import { LazyAjvValidator, createEditorToolsServer, type EditorTools } from "./server.js";
import { MAX_STDIN_LINE_BYTES } from "./stdio-transport.js";

/** The loopback address the listener binds (never a name that could resolve elsewhere). */
export const HTTP_TOOLS_HOST = "127.0.0.1";

/** The bounds of one listener (docs/security.md, "The editor's tools over HTTP"). */
export const HTTP_TOOLS_LIMITS = {
  /** A request body: the stdio server's line limit, past every tool's own (a proposal is 4 MiB), so those limits give the same errors. */
  bodyBytes: MAX_STDIN_LINE_BYTES,
  /** Request bodies held at once, all requests together; past it a request is answered 503 at once. */
  bufferedBytes: 2 * MAX_STDIN_LINE_BYTES,
  /** Open connections to the listener, all sessions together; more are closed as they come. */
  connections: 128,
  /** Requests worked on at once, all sessions together; more are answered 503 at once. */
  requests: 64,
  /** MCP sessions (initialize handshakes) one endpoint keeps; an agent reconnecting gets a fresh one after the oldest is closed. */
  mcpSessionsPerEndpoint: 4,
  /** How long a request's headers and body may take to arrive. */
  requestMs: 30_000,
} as const;

export type HttpToolsLimits = { -readonly [K in keyof typeof HTTP_TOOLS_LIMITS]: number };

export interface HttpToolsOptions {
  /** The window's state file (the same as the stdio server's SYMPOSIUM_EDITOR_STATE_FILE). */
  stateFile: string;
  log?: (message: string) => void;
  /** Smaller bounds (tests). */
  limits?: Partial<HttpToolsLimits>;
}

/** What an agent is given for one ACP session: where, and the header that opens it. */
export interface HttpToolsEndpoint {
  url: string;
  /** `Authorization: Bearer <secret>` (ACP HttpHeader). Never logged. */
  headers: Array<{ name: string; value: string }>;
  /** Ends the endpoint and every MCP session on it: its path answers 404 from then on. */
  close(): Promise<void>;
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  tools: EditorTools;
}

interface Endpoint {
  guard: LoopbackGuard;
  sessions: Map<string, McpSession>;
  /** Told when an agent first completes MCP's handshake on this endpoint (the tools-started marker). */
  onInitialized: (() => void) | undefined;
}

export class HttpToolsServer {
  private readonly endpoints = new Map<string, Endpoint>();
  private inFlight = 0;
  private port = 0;
  private readonly limits: HttpToolsLimits;
  /** Shared by every session's server: Ajv and each tool's compiled schema once per process, not per session. */
  private readonly validator = new LazyAjvValidator();
  /** Body bytes held now, all requests together. */
  private readonly buffered = { bytes: 0 };

  private constructor(
    private readonly http: http.Server,
    private readonly options: HttpToolsOptions,
  ) {
    this.limits = { ...HTTP_TOOLS_LIMITS, ...options.limits };
  }

  /** A listener on 127.0.0.1 at a port the system picks. */
  static async start(options: HttpToolsOptions): Promise<HttpToolsServer> {
    const server = http.createServer();
    const tools = new HttpToolsServer(server, options);
    server.on("connection", (socket) => tools.admitConnection(socket));
    server.requestTimeout = tools.limits.requestMs;
    server.headersTimeout = tools.limits.requestMs;
    server.on("request", (req, res) => void tools.serve(req, res));
    server.on("clientError", (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, HTTP_TOOLS_HOST, () => resolve());
    });
    tools.port = (server.address() as AddressInfo).port;
    return tools;
  }

  private connections = 0;
  /** Connections refused for the bound: whatever they send is not served. */
  private readonly refused = new WeakSet<Socket>();

  /** Counts a connection, or marks it refused past the bound. */
  private admitConnection(socket: Socket): void {
    if (this.connections >= this.limits.connections) {
      // Its request is answered 503 and the connection closed (Node's maxConnections would cut it without a word).
      this.refused.add(socket);
      return;
    }
    this.connections++;
    socket.once("close", () => this.connections--);
  }

  /** A fresh endpoint for one ACP session: its own path and secret. */
  open(onInitialized?: () => void): HttpToolsEndpoint {
    const id = randomBytes(12).toString("base64url");
    const token = generateSecret({});
    const guard = createLoopbackGuard({ token, port: this.port });
    this.endpoints.set(id, { guard, sessions: new Map(), onInitialized });
    return {
      url: `http://${HTTP_TOOLS_HOST}:${this.port}/mcp/${id}`,
      headers: [{ name: "Authorization", value: `Bearer ${token}` }],
      close: () => this.closeEndpoint(id),
    };
  }

  /** Every endpoint ended, then the listener (its open connections cut). */
  async close(): Promise<void> {
    await Promise.all([...this.endpoints.keys()].map((id) => this.closeEndpoint(id)));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private log(message: string): void {
    this.options.log?.(`editor tools over http: ${message}`);
  }

  private async closeEndpoint(id: string): Promise<void> {
    const endpoint = this.endpoints.get(id);
    if (endpoint === undefined) return;
    this.endpoints.delete(id);
    await Promise.all([...endpoint.sessions.values()].map(closeSession));
    endpoint.sessions.clear();
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (this.refused.has(req.socket)) return refuse(res, 503, "too many connections at once: retry");
    try {
      const endpoint = this.admitted(req, res);
      if (endpoint === null) return;
      if (this.inFlight >= this.limits.requests) return refuse(res, 503, "too many requests at once: retry");
      this.inFlight++;
      try {
        await this.handle(endpoint, req, res);
      } finally {
        this.inFlight--;
      }
    } catch (error) {
      this.log(errorLine(error));
      if (!res.headersSent) refuse(res, 500, "internal error");
      else res.destroy();
    }
  }

  /** The endpoint a request is for, once every check passed; else null, the refusal sent. Nothing of the body is read before. */
  private admitted(req: http.IncomingMessage, res: http.ServerResponse): Endpoint | null {
    const target = req.url ?? "";
    const endpoint = this.endpoints.get(target.startsWith("/mcp/") ? target.slice("/mcp/".length) : "");
    if (target.includes("?")) refuse(res, 400, "this endpoint takes no query string");
    else if (endpoint === undefined) refuse(res, 404, "no such endpoint");
    else {
      const verdict = endpoint.guard.checkHttp(req);
      if (verdict.ok) return endpoint;
      this.log(refusalLine(req, verdict.reason));
      refuse(res, verdict.status, "refused");
    }
    return null;
  }

  private async handle(endpoint: Endpoint, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // No stream of the server's own messages (it sends none): the spec's answer for a server without one.
    if (req.method === "GET") return refuse(res, 405, "this server sends no messages of its own: POST requests only");
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = endpoint.sessions.get(sessionId);
      if (session === undefined) return refuse(res, 404, "no such MCP session: initialize again");
      const body = req.method === "POST" ? await this.readJson(req, res) : undefined;
      if (body === NO_BODY) return;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST") return refuse(res, 400, "no Mcp-Session-Id: send initialize first");
    const body = await this.readJson(req, res);
    if (body === NO_BODY) return;
    if (!isInitializeRequest(body)) return refuse(res, 400, "no Mcp-Session-Id: send initialize first");
    const session = this.newSession(endpoint);
    await session.transport.handleRequest(req, res, body);
  }

  /** The request's JSON body, within the bounds; NO_BODY once a refusal is sent. */
  private async readJson(req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> {
    const { bodyBytes, bufferedBytes } = this.limits;
    if (Number(req.headers["content-length"] ?? 0) > bodyBytes) return tooLarge(req, res, 413, `a request body is at most ${bodyBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        this.buffered.bytes += chunk.length;
        if (size > bodyBytes) return tooLarge(req, res, 413, `a request body is at most ${bodyBytes} bytes`);
        if (this.buffered.bytes > bufferedBytes) return tooLarge(req, res, 503, "too much is being sent at once: retry");
        chunks.push(chunk);
      }
    } finally {
      this.buffered.bytes -= size;
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    } catch {
      res
        .writeHead(400, { "Content-Type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return NO_BODY;
    }
  }

  /** A fresh MCP session on an endpoint (the oldest closed past the bound): the same server as on stdio. */
  private newSession(endpoint: Endpoint): McpSession {
    if (endpoint.sessions.size >= this.limits.mcpSessionsPerEndpoint) {
      const [oldestId, oldest] = endpoint.sessions.entries().next().value!;
      endpoint.sessions.delete(oldestId);
      void closeSession(oldest);
    }
    const tools = createEditorToolsServer({ stateFile: this.options.stateFile, log: (message) => this.log(message), validator: this.validator });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // One JSON answer per request: no stream held open while a tool runs.
      enableJsonResponse: true,
      onsessioninitialized: (id) => void endpoint.sessions.set(id, session),
    });
    const session: McpSession = { transport, tools };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) endpoint.sessions.delete(transport.sessionId);
      tools.close();
    };
    tools.server.oninitialized = () => {
      const told = endpoint.onInitialized;
      endpoint.onInitialized = undefined;
      told?.();
    };
    void tools.server.connect(transport);
    return session;
  }
}

async function closeSession(session: McpSession): Promise<void> {
  session.tools.close();
  await session.tools.server.close().catch(() => {});
}

const NO_BODY = Symbol("no body");

function tooLarge(req: http.IncomingMessage, res: http.ServerResponse, status: number, message: string): typeof NO_BODY {
  refuse(res, status, message);
  // The rest is not read: the connection ends with the answer.
  res.on("finish", () => req.destroy());
  return NO_BODY;
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" }).end(`${message}\n`);
}
