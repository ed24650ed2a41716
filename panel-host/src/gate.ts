// The one way into the panel: an HTTP and websocket reverse proxy on the
// gate port, in front of the frontend's private port. Every request and
// upgrade passes loopback-auth's checks (secret, Host, Origin) first; the
// control routes (identity, attach, stop) answer here; everything else goes
// to the frontend, with its Host and Origin rewritten to the frontend's own
// (the gate has checked the real ones) and its HTML made to work through the
// gate (page-rewrite.ts).

import * as http from "node:http";
import type { Duplex } from "node:stream";
import { createLoopbackGuard, parseOriginList, refuseUpgrade, type LoopbackGuard } from "../../loopback-auth/src/index.js";
import { CONTROL, type HostIdentity, type LaunchSpec } from "./launch-spec.js";
import { rewriteFrontendPage } from "./page-rewrite.js";

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

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const verdict = this.guard.checkHttp(req);
    if (!verdict.ok) {
      this.log(`refused ${req.method} ${pathOf(req)}: ${verdict.reason}`);
      res.writeHead(verdict.status, { "content-type": "text/plain; charset=utf-8" }).end(`${verdict.reason}\n`);
      return;
    }
    const path = pathOf(req);
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
      body = JSON.parse((await readBody(req)) || "{}") as { origin?: unknown };
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
    const upstream = http.request(`${target}${req.url ?? "/"}`, { method: req.method, headers: { ...privateHeaders(req, target), "accept-encoding": "identity" } });
    upstream.once("response", (answer) => {
      const headers = { ...answer.headers };
      if (!/^text\/html/i.test(String(headers["content-type"] ?? ""))) {
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        return;
      }
      void readBody(answer).then((page) => {
        const body = rewriteFrontendPage(page, target, this.spec.secret);
        delete headers["content-length"];
        delete headers["transfer-encoding"];
        res.writeHead(answer.statusCode ?? 502, { ...headers, "content-length": Buffer.byteLength(body) }).end(body);
      });
    });
    upstream.once("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain; charset=utf-8" });
      res.end(`The chat server did not answer: ${error.message}\n`);
    });
    req.pipe(upstream);
  }

  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    const verdict = this.guard.checkUpgrade(req);
    if (!verdict.ok) {
      this.log(`refused websocket ${pathOf(req)}: ${verdict.reason}`);
      return refuseUpgrade(socket, verdict.status, verdict.reason);
    }
    const target = this.backend.privateOrigin();
    if (!target) return refuseUpgrade(socket, 503, "the chat is starting");
    const upstream = http.request(`${target}${req.url ?? "/"}`, { method: req.method, headers: privateHeaders(req, target) });
    upstream.once("upgrade", (answer, upstreamSocket, upstreamHead) => {
      socket.write(`HTTP/1.1 101 Switching Protocols\r\n${rawHeaders(answer.rawHeaders)}\r\n`);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      this.sockets.add(socket);
      const close = (): void => {
        this.sockets.delete(socket);
        this.lastAttach = Date.now();
        socket.destroy();
        upstreamSocket.destroy();
      };
      socket.once("close", close);
      upstreamSocket.once("close", close);
      upstreamSocket.on("error", close);
      socket.pipe(upstreamSocket).pipe(socket);
    });
    upstream.once("response", (answer) => {
      socket.end(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n${rawHeaders(answer.rawHeaders)}\r\n`);
      answer.resume();
    });
    upstream.once("error", () => refuseUpgrade(socket, 502, "the chat server did not answer"));
    upstream.end();
  }
}

/** The request's headers as the frontend expects them from a caller on its own origin. */
function privateHeaders(req: http.IncomingMessage, target: string): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = { ...req.headers, host: new URL(target).host };
  if (headers.origin !== undefined) headers.origin = target;
  delete headers.referer;
  return headers;
}

function rawHeaders(raw: string[]): string {
  let text = "";
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return text;
}

function pathOf(req: http.IncomingMessage): string {
  return new URL(req.url ?? "/", "http://gate.invalid").pathname;
}

function json(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(value));
}

function readBody(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    stream.once("error", reject);
  });
}
