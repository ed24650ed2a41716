// The window's end of the private channel into VS Code (protocol.ts,
// docs/editor-tools.md), without `vscode` so tests drive it directly. One class
// serves both users: the window's editor tools (extension/src/tools/editor-tools-host.ts)
// and each language-model session's relay of the consumer's tools
// (lm-provider/src/tool-channel.ts), each with its own address, secret and
// handlers. A Unix domain socket in the private state directory (a named pipe
// on Windows), never a TCP port. A connection's first request must be
// `authenticate` with the secret (compared in constant time), within
// LIMITS.authenticateMs; anything else first, or a wrong secret, is answered
// once and the connection closed. Lines are bounded (LIMITS.maxMessageBytes),
// so are connections, requests at work and requests waiting, and a connection
// whose answers are not read is not read either (ChannelConnection).

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { errorResponse, idJson, isObject, isRequest, oversizedLineError, parseLine, type IdLike } from "../../acp-wire/src/jsonrpc.js";
import { LineWriter, readLines } from "../../acp-wire/src/ndjson-streams.js";
import { AUTHENTICATE, CHANNEL_ERROR, ChannelRefusal, LIMITS, type AuthenticateResult } from "./protocol.js";

export { ChannelRefusal };

type ConnectionLimit = "maxMessageBytes" | "authenticateMs" | "connectionBufferBytes" | "maxPendingPerConnection";

export type ChannelHandler = (params: Record<string, unknown>) => Promise<unknown>;

export interface ChannelServerOptions {
  /** The socket's path (POSIX) or the pipe's name (Windows). */
  address: string;
  secret: string;
  handlers: Readonly<Record<string, ChannelHandler>>;
  /** Who is asking: the window's pid and folders, the answer to `authenticate`. */
  identity: () => AuthenticateResult;
  log: (message: string) => void;
  limits?: Partial<Record<ConnectionLimit | "maxRunning" | "maxWaiting" | "maxConnections", number>>;
}

/** A fresh secret for one window. */
export function channelSecret(): string {
  return crypto.randomBytes(32).toString("hex");
}

/** Where a new channel listens: a socket beside the state file, or a pipe with a random name on Windows. */
export function channelAddress(stateDirectory: string, platform: NodeJS.Platform = process.platform): string {
  const name = `symposium-tools-${crypto.randomBytes(12).toString("hex")}`;
  return platform === "win32" ? `\\\\.\\pipe\\${name}` : path.join(stateDirectory, `${name}.sock`);
}

/** The longest socket path every POSIX system takes (macOS: 104 bytes with the terminator). */
export const MAX_SOCKET_PATH_BYTES = 103;

/**
 * A channel address in `stateDirectory`, or, when that path is too long for a socket, in a new private (0700)
 * directory under /tmp (short on every POSIX system, unlike macOS's os.tmpdir()). Throws when neither can be had.
 */
export function listenableChannelAddress(stateDirectory: string): string {
  const address = channelAddress(stateDirectory);
  if (process.platform === "win32" || Buffer.byteLength(address) <= MAX_SOCKET_PATH_BYTES) return address;
  const base = fs.existsSync("/tmp") ? "/tmp" : os.tmpdir();
  return channelAddress(fs.mkdtempSync(path.join(base, "symposium-")));
}

export class ChannelServer {
  private readonly server: net.Server;
  private readonly connections = new Set<net.Socket>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly limits: Record<keyof typeof LIMITS, number>;

  constructor(private readonly options: ChannelServerOptions) {
    this.limits = { ...LIMITS, ...options.limits };
    this.server = net.createServer((socket) => this.accept(socket));
    this.server.maxConnections = this.limits.maxConnections;
  }

  /** Listens; the socket file is made 0600 (its directory is 0700 already). */
  async listen(): Promise<void> {
    const address = this.options.address;
    if (process.platform !== "win32" && Buffer.byteLength(address) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`the socket path ${address} is longer than ${MAX_SOCKET_PATH_BYTES} bytes`);
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(address, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.server.on("error", (error) => this.options.log(`the channel at ${address} failed: ${error.message}`));
    if (process.platform !== "win32") fs.chmodSync(address, 0o600);
  }

  /** Stops listening, ends every connection and removes the socket file. */
  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (process.platform !== "win32") fs.rmSync(this.options.address, { force: true });
  }

  /** Bytes waiting in every connection's socket for their peers to read (what backpressure bounds). */
  bufferedBytes(): number {
    let total = 0;
    for (const socket of this.connections) total += socket.writableLength;
    return total;
  }

  private accept(socket: net.Socket): void {
    this.connections.add(socket);
    const connection = new ChannelConnection(socket, this.limits, {
      secretMatches: (given) => this.secretMatches(given),
      identity: this.options.identity,
      serve: (method, params) => this.serve(method, params),
    });
    socket.on("close", () => {
      connection.closed();
      this.connections.delete(socket);
    });
  }

  private secretMatches(given: unknown): boolean {
    if (typeof given !== "string") return false;
    const expected = Buffer.from(this.options.secret);
    const actual = Buffer.from(given);
    return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
  }

  /** The answer's members after the id: `"result":…` or `"error":…`. A full queue is refused at once. */
  private async serve(method: string, params: Record<string, unknown>): Promise<string> {
    const handler = Object.hasOwn(this.options.handlers, method) ? this.options.handlers[method] : undefined;
    if (handler === undefined) return errorMember(CHANNEL_ERROR.methodNotFound, `no tool named ${JSON.stringify(method.slice(0, 100))}`);
    if (this.running >= this.limits.maxRunning && this.waiting.length >= this.limits.maxWaiting) {
      return errorMember(CHANNEL_ERROR.busy, `the VS Code window is busy (${this.limits.maxWaiting} requests waiting); try again`);
    }
    await this.turn();
    try {
      const result = await handler(params);
      return `"result":${JSON.stringify(result ?? null)}`;
    } catch (error) {
      if (error instanceof ChannelRefusal) return errorMember(error.code, error.message);
      this.options.log(`the channel's ${method} failed: ${(error as Error).stack ?? String(error)}`);
      return errorMember(CHANNEL_ERROR.failed, `${method} failed in VS Code: ${(error as Error).message}`);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Resolves when fewer than maxRunning requests are at work, counting this one in. */
  private turn(): Promise<void> {
    if (this.running < this.limits.maxRunning) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.running++;
        resolve();
      }),
    );
  }
}

interface ConnectionServices {
  secretMatches(given: unknown): boolean;
  identity(): AuthenticateResult;
  /** The answer's members after the id (ChannelServer.serve). */
  serve(method: string, params: Record<string, unknown>): Promise<string>;
}

/**
 * One client's connection: authentication first, then its requests, with backpressure. A client that does not
 * read its answers is not read either: while more than `connectionBufferBytes` of answers wait in the socket, or
 * `maxPendingPerConnection` of its requests are unanswered, the socket is paused and the lines already read wait
 * here; reading resumes on 'drain'. So what one connection holds in the window stays bounded.
 */
class ChannelConnection {
  private readonly writer: LineWriter;
  private authenticated = false;
  private readonly deadline: NodeJS.Timeout;
  private readonly queued: Buffer[] = [];
  private pending = 0;
  private waitingForDrain = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly limits: Readonly<Record<ConnectionLimit, number>>,
    private readonly services: ConnectionServices,
  ) {
    this.writer = new LineWriter(socket);
    this.deadline = setTimeout(() => socket.destroy(), limits.authenticateMs);
    socket.on("error", () => socket.destroy());
    void readLines(socket, limits.maxMessageBytes, {
      onLine: (line) => {
        this.queued.push(line);
        this.pump();
      },
      onOversizedLine: (bytes) => this.writer.writeLine(errorResponse(null, oversizedLineError(bytes, limits.maxMessageBytes))),
    });
  }

  closed(): void {
    clearTimeout(this.deadline);
    this.queued.length = 0;
  }

  private get full(): boolean {
    return this.socket.writableLength > this.limits.connectionBufferBytes || this.pending >= this.limits.maxPendingPerConnection;
  }

  /** Handles queued lines while the connection has room; pauses reading when it has none. */
  private pump(): void {
    while (this.queued.length > 0 && !this.full && !this.socket.destroyed) this.handle(this.queued.shift()!);
    if (this.socket.destroyed) return;
    if (!this.full) {
      if (this.socket.isPaused()) this.socket.resume();
      return;
    }
    this.socket.pause();
    if (this.socket.writableLength > this.limits.connectionBufferBytes && !this.waitingForDrain) {
      this.waitingForDrain = true;
      this.socket.once("drain", () => {
        this.waitingForDrain = false;
        this.pump();
      });
    }
  }

  private handle(line: Buffer): void {
    const parsed = parseLine(line);
    if (!parsed.ok) return void this.writer.writeLine(errorResponse(parsed.id, parsed.error));
    const message = parsed.message;
    if (!isRequest(message)) return; // notifications and answers mean nothing here
    const id = jsonRpcId(message.id);
    const params = isObject(message.params) ? message.params : {};
    if (!this.authenticated) return this.authenticate(id, message.method, params);
    this.pending++;
    void this.services.serve(message.method, params).then((reply) => {
      this.pending--;
      if (this.socket.destroyed) return;
      this.writer.writeLine(`{"jsonrpc":"2.0","id":${idJson(id)},${reply}}`);
      this.pump();
    });
  }

  private authenticate(id: IdLike, method: string, params: Record<string, unknown>): void {
    if (method !== AUTHENTICATE || !this.services.secretMatches(params.secret)) {
      this.queued.length = 0;
      this.writer.writeLine(
        errorResponse(id, { code: CHANNEL_ERROR.unauthorized, message: "not authenticated: the first request must be authenticate with the window's secret" }),
      );
      this.socket.end();
      this.socket.destroySoon?.();
      return;
    }
    this.authenticated = true;
    clearTimeout(this.deadline);
    this.writer.writeLine(JSON.stringify({ jsonrpc: "2.0", id, result: this.services.identity() }));
  }
}

function errorMember(code: number, message: string): string {
  return `"error":${JSON.stringify({ code, message })}`;
}

/** A request's id as JSON-RPC allows it (string, number, null); anything else is answered with null. */
function jsonRpcId(id: unknown): IdLike {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
