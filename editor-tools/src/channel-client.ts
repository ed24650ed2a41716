// The MCP server's end of the live channel (protocol.ts): one connection to
// the window the state file names, opened on the first tool call that needs
// it, authenticated with the window's secret, and reused while the state file
// names the same socket and secret. A window that is gone, refuses the secret
// or closes in the middle of a request makes every waiting call fail at once
// with a sentence saying so; nothing waits longer than its timeout.

import * as net from "node:net";
import { LineWriter, isObject, parseLine, readLines } from "../../acp-wire/src/index.js";
import { AUTHENTICATE, CHANNEL_ERROR, LIMITS } from "./protocol.js";

/** Where the window listens and the secret it checks. */
export interface ChannelAddress {
  socket: string;
  secret: string;
}

/** No live window to ask: the tool says so (and state-file tools answer from the file). */
export class NoWindowError extends Error {
  override name = "NoWindowError";
}

/** The window answered with an error (a path outside the workspace, no such symbol…): its message is the tool's. */
export class WindowError extends Error {
  override name = "WindowError";
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** How long connecting may take before the window counts as gone. */
const CONNECT_MS = 3_000;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ChannelClient {
  private connection: Promise<Connection> | null = null;
  private address: ChannelAddress | null = null;

  constructor(
    /** The window's address as the state file gives it now, or why there is none. */
    private readonly locate: () => ChannelAddress | { reason: string },
    private readonly log: (message: string) => void = () => {},
  ) {}

  /** The window's answer to `method`; NoWindowError when no window can be reached, WindowError when it refused. */
  async request(method: string, params: unknown, timeoutMs: number = LIMITS.requestMs): Promise<unknown> {
    const connection = await this.connected();
    return connection.request(method, params, timeoutMs);
  }

  /** Closes the connection (the MCP server is ending). */
  close(): void {
    void this.connection?.then((connection) => connection.close("the editor tools are stopping")).catch(() => {});
    this.connection = null;
  }

  private async connected(): Promise<Connection> {
    const address = this.locate();
    if ("reason" in address) throw new NoWindowError(`No live VS Code window is connected: ${address.reason}.`);
    const same = this.address?.socket === address.socket && this.address.secret === address.secret;
    if (this.connection !== null && same) {
      const connection = await this.connection.catch(() => null);
      if (connection !== null && connection.closedReason === null) return connection;
    }
    this.close();
    this.address = address;
    const opening = Connection.open(address, this.log);
    this.connection = opening;
    opening.catch(() => {
      if (this.connection === opening) this.connection = null;
    });
    return opening;
  }
}

class Connection {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** Why the connection ended; null while it is open. */
  closedReason: string | null = null;
  private readonly writer: LineWriter;

  private constructor(
    private readonly socket: net.Socket,
    private readonly log: (message: string) => void,
  ) {
    this.writer = new LineWriter(socket);
    socket.on("close", () => this.close("the VS Code window closed the connection"));
    socket.on("error", (error) => this.close(`the connection to the VS Code window failed (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    void readLines(socket, LIMITS.maxMessageBytes, {
      onLine: (line) => this.answer(line),
      onOversizedLine: (bytes) => this.close(`the VS Code window sent a ${bytes}-byte answer, over the ${LIMITS.maxMessageBytes}-byte limit`),
    });
  }

  /** Connects and authenticates; NoWindowError when either fails. */
  static async open(address: ChannelAddress, log: (message: string) => void): Promise<Connection> {
    const socket = await connect(address.socket);
    const connection = new Connection(socket, log);
    try {
      await connection.request(AUTHENTICATE, { secret: address.secret }, LIMITS.authenticateMs);
    } catch (error) {
      connection.close("not authenticated");
      throw new NoWindowError(
        `The VS Code window at ${address.socket} did not accept this server (${(error as Error).message}); the state file may be out of date.`,
      );
    }
    log(`connected to the VS Code window at ${address.socket}`);
    return connection;
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closedReason !== null) return Promise.reject(new NoWindowError(`No live VS Code window: ${this.closedReason}.`));
    const id = this.nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const bytes = Buffer.byteLength(line);
    if (bytes > LIMITS.maxMessageBytes) {
      return Promise.reject(
        new WindowError(`The request is ${bytes} bytes, over the channel's ${LIMITS.maxMessageBytes}-byte limit.`, CHANNEL_ERROR.invalidParams),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new NoWindowError(`The VS Code window did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.writer.writeLine(line);
    });
  }

  close(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    this.log(reason);
    for (const [id, waiting] of this.waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new NoWindowError(`No answer from the VS Code window: ${reason}.`));
      this.waiting.delete(id);
    }
    this.socket.destroy();
  }

  private answer(line: Buffer): void {
    const parsed = parseLine(line);
    if (!parsed.ok) return this.close("the VS Code window sent a line that is not JSON-RPC");
    const message = parsed.message;
    const waiting = typeof message.id === "number" ? this.waiting.get(message.id) : undefined;
    if (waiting === undefined) return; // an answer to a request that timed out
    this.waiting.delete(message.id as number);
    clearTimeout(waiting.timer);
    if (isObject(message.error)) {
      const { code, message: text } = message.error;
      waiting.reject(
        new WindowError(typeof text === "string" ? text : "the window refused the request", typeof code === "number" ? code : CHANNEL_ERROR.failed),
      );
    } else waiting.resolve(message.result);
  }
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => fail(new Error(`no answer in ${CONNECT_MS / 1000} s`)), CONNECT_MS);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ENOENT" || code === "ECONNREFUSED" ? "the window is closed" : error.message;
      reject(new NoWindowError(`No live VS Code window is connected (${socketPath}: ${why}).`));
    };
    socket.once("error", fail);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", fail);
      resolve(socket);
    });
  });
}
