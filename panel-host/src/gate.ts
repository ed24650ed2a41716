// The one way into the panel: an HTTP and websocket reverse proxy on the
// gate port, in front of the frontend's private port. Every request and
// upgrade passes loopback-auth's checks (secret, Host, Origin) first; the
// control routes (identity, attach, stop) answer here; everything else goes
// to the frontend, with its Host and Origin rewritten to the frontend's own
// (the gate has checked the real ones) and its HTML made to work through the
// gate (page-rewrite.ts); websockets are relayed message by message
// (ws-relay.ts), so a client's bad frame never reaches the frontend.

import * as http from "node:http";
import type { Duplex } from "node:stream";
import {
  createLoopbackGuard,
  errorLine,
  parseOriginList,
  refuseUpgrade,
  requestTarget,
  targetForLog,
  type LoopbackGuard,
} from "../../loopback-auth/src/index.js";
import { CONTROL, type HostIdentity, type LaunchSpec } from "./launch-spec.js";
import { rewriteFrontendPage } from "./page-rewrite.js";
import { WebSocketRelay } from "./ws-relay.js";

/** A window's attach request is a small JSON object; more is refused unread. */
const MAX_ATTACH_BODY_BYTES = 64 * 1024;

export interface GateBackend {
  /** `http://127.0.0.1:PORT` while the frontend runs. */
  privateOrigin(): string | undefined;
  identity(): HostIdentity;
  stop(): void;
}

export class Gate {
  private guard: LoopbackGuard;
  private readonly origins = new Set<string>();
  private readonly sockets = new Set<Duplex>();
  private readonly relay: WebSocketRelay;
  /** When a window last attached; the idle timer reads it. */
  lastAttach = Date.now();
  readonly server: http.Server;

  constructor(
    private readonly spec: LaunchSpec,
    private readonly backend: GateBackend,
    private readonly log: (message: string) => void,
  ) {
    spec.allowedOrigins.forEach((origin) => this.origins.add(origin));
    this.guard = this.makeGuard();
    this.relay = new WebSocketRelay({
      log,
      opened: (socket) => this.sockets.add(socket),
      closed: (socket) => {
        this.sockets.delete(socket);
        this.lastAttach = Date.now();
      },
      refuse: refuseUpgrade,
    });
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.on("upgrade", (req, socket, head) => this.onUpgrade(req, socket, head));
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.spec.port, "127.0.0.1", () => resolve());
    });
  }

  /** Open websockets: a window is attached while one is. */
  get openSockets(): number {
    return this.sockets.size;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }

  private makeGuard(): LoopbackGuard {
    return createLoopbackGuard({ token: this.spec.secret, port: this.spec.port, allowedOrigins: [...this.origins] });
  }

  /** Nothing a request carries may end the host: a throw is a bug, answered 500 and logged on one line. */
  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    try {
      this.route(req, res);
    } catch (error) {
      this.internalError(`answering ${req.method} ${targetForLog(req)}`, error, res);
    }
  }

  private internalError(doing: string, error: unknown, res: http.ServerResponse): void {
    this.log(`internal error ${doing}: ${errorLine(error)}`);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end("internal error (see the panel's log)\n");
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const verdict = this.guard.checkHttp(req);
    if (!verdict.ok) {
      this.log(`refused ${req.method} ${targetForLog(req)}: ${verdict.reason}`);
      res.writeHead(verdict.status, { "content-type": "text/plain; charset=utf-8" }).end(`${verdict.reason}\n`);
      return;
    }
    if (hostLikePath(req)) {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end(`${HOST_LIKE_PATH}\n`);
      return;
    }
    const path = requestTarget(req)!.pathname; // the guard refused any other
    if (path === CONTROL.identity && req.method === "GET") return json(res, this.backend.identity());
    if (path === CONTROL.attach && req.method === "POST") return void this.attach(req, res);
    if (path === CONTROL.stop && req.method === "POST") {
      json(res, { stopping: true });
      return this.backend.stop();
    }
    const target = this.backend.privateOrigin();
    if (!target) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "1" }).end("The chat is starting; try again in a moment.\n");
      return;
    }
    this.forward(req, res, target);
  }

  /** A window says it is here (and, under remote VS Code, from which origin its panel loads). */
  private async attach(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let body: { origin?: unknown };
    try {
      body = (JSON.parse((await readBody(req, MAX_ATTACH_BODY_BYTES)) || "{}") ?? {}) as { origin?: unknown };
      if (typeof body.origin === "string" && body.origin) {
        const [origin] = parseOriginList(body.origin);
        if (origin && !this.origins.has(origin)) {
          this.origins.add(origin);
          this.guard = this.makeGuard();
          this.log(`allowing pages from ${origin}`);
        }
      }
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end(`${(error as Error).message}\n`);
      return;
    }
    this.lastAttach = Date.now();
    json(res, this.backend.identity());
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, target: string): void {
    const upstream = http.request(`${target}${req.url ?? "/"}`, {
      method: req.method,
      headers: { ...privateHeaders(req, target), "accept-encoding": "identity" },
    });
    upstream.once("response", (answer) => {
      try {
        this.answerFromFrontend(answer, res, target);
      } catch (error) {
        this.internalError(`passing on the answer to ${req.method} ${targetForLog(req)}`, error, res);
      }
    });
    upstream.once("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain; charset=utf-8" });
      res.end(`The chat server did not answer: ${error.message}\n`);
    });
    req.pipe(upstream);
  }

  private answerFromFrontend(answer: http.IncomingMessage, res: http.ServerResponse, target: string): void {
    const headers = { ...answer.headers };
    if (!/^text\/html/i.test(String(headers["content-type"] ?? ""))) {
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
      return;
    }
    readBody(answer)
      .then((page) => {
        const body = rewriteFrontendPage(page, target, this.spec.secret);
        delete headers["content-length"];
        delete headers["transfer-encoding"];
        res.writeHead(answer.statusCode ?? 502, { ...headers, "content-length": Buffer.byteLength(body) }).end(body);
      })
      .catch((error: unknown) => this.internalError("rewriting the frontend's page", error, res));
  }

  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    try {
      this.upgrade(req, socket, head);
    } catch (error) {
      this.log(`internal error upgrading ${targetForLog(req)}: ${errorLine(error)}`);
      refuseUpgrade(socket, 500, "internal error (see the panel's log)");
    }
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const verdict = this.guard.checkUpgrade(req);
    if (!verdict.ok) {
      this.log(`refused websocket ${targetForLog(req)}: ${verdict.reason}`);
      return refuseUpgrade(socket, verdict.status, verdict.reason);
    }
    if (hostLikePath(req)) return refuseUpgrade(socket, 400, HOST_LIKE_PATH);
    const target = this.backend.privateOrigin();
    if (!target) return refuseUpgrade(socket, 503, "the chat is starting");
    this.relay.relay(req, socket, head, `${target.replace(/^http/, "ws")}${req.url}`, privateHeaders(req, target));
  }
}

const HOST_LIKE_PATH = "a path may not start with '//'";

/**
 * A path like `//a:99999/` is valid HTTP, but a frontend that resolves it with
 * `new URL(path, base)` reads a host there and may throw: no frontend route
 * has one, so the gate keeps it from them.
 */
function hostLikePath(req: http.IncomingMessage): boolean {
  return (req.url ?? "").startsWith("//");
}

/** The request's headers as the frontend expects them from a caller on its own origin. */
function privateHeaders(req: http.IncomingMessage, target: string): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = { ...req.headers, host: new URL(target).host };
  if (headers.origin !== undefined) headers.origin = target;
  delete headers.referer;
  return headers;
}

function json(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(value));
}

function readBody(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else reject(new Error(`the request's body is over ${maxBytes / 1024} KiB`));
    });
    stream.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    stream.once("error", reject);
  });
}
