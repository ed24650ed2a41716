// The private channel between the extension (ToolChannelServer) and the MCP
// relay the agent starts (ToolChannelClient, in tool-relay.ts): ndjson over a
// Unix socket in the private 0700 state directory, or a named pipe with a
// random name on Windows; never a TCP port. The relay's first line must carry
// the channel's secret (compared in constant time), or it is disconnected.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { MAX_MESSAGE_BYTES } from "../../acp-wire/src/acp-constants.js";
import { readLines } from "../../acp-wire/src/ndjson-streams.js";
import type { LmTool } from "./messages.js";

/** The relay's environment: where the channel is and its secret. */
export const TOOLS_SOCKET_ENV = "SYMPOSIUM_LM_TOOLS_SOCKET";
export const TOOLS_SECRET_ENV = "SYMPOSIUM_LM_TOOLS_SECRET";

export interface ToolCallRequest {
  name: string;
  input: unknown;
}

export interface ToolCallResult {
  text: string;
  isError: boolean;
}

type ChannelRequest = { id: number; method: "list" } | { id: number; method: "call"; name: string; arguments: unknown };
type ChannelAnswer = { id: number; tools: LmTool[] } | { id: number; result: ToolCallResult } | { id: number; error: string };

export interface ToolHandler {
  /** The tools the current request offers. */
  tools(): LmTool[];
  /** An agent's call; resolves with what the consumer answered. */
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** Where a new channel listens: a socket in `privateDir` (POSIX), a named pipe (Windows). */
export function channelPath(privateDir: string, platform: NodeJS.Platform = process.platform): string {
  const name = `symposium-lm-${crypto.randomBytes(12).toString("hex")}`;
  return platform === "win32" ? `\\\\.\\pipe\\${name}` : path.join(privateDir, `${name}.sock`);
}

/** The extension's end: answers the relays of one session. */
export class ToolChannelServer {
  readonly secret = crypto.randomBytes(24).toString("hex");
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly address: string,
    private readonly handler: ToolHandler,
  ) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  static async listen(privateDir: string, handler: ToolHandler): Promise<ToolChannelServer> {
    const channel = new ToolChannelServer(channelPath(privateDir), handler);
    await new Promise<void>((resolve, reject) => {
      channel.server.once("error", reject);
      channel.server.listen(channel.address, () => resolve());
    });
    if (process.platform !== "win32") fs.chmodSync(channel.address, 0o600);
    return channel;
  }

  /** The relay's environment entries. */
  relayEnv(): Record<string, string> {
    return { [TOOLS_SOCKET_ENV]: this.address, [TOOLS_SECRET_ENV]: this.secret };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let authenticated = false;
    void readLines(socket, MAX_MESSAGE_BYTES, {
      onOversizedLine: () => socket.destroy(),
      onLine: (line) => {
        const message = parseObject(line.toString("utf8"));
        if (!authenticated) {
          authenticated = message !== null && typeof message.secret === "string" && sameSecret(message.secret, this.secret);
          if (!authenticated) socket.destroy();
          return;
        }
        const request = message === null ? null : asRequest(message);
        if (request === null) return void socket.destroy();
        void this.answer(request).then((answer) => socket.write(`${JSON.stringify(answer)}\n`));
      },
    });
  }

  private async answer(request: ChannelRequest): Promise<ChannelAnswer> {
    try {
      if (request.method === "list") return { id: request.id, tools: this.handler.tools() };
      return { id: request.id, result: await this.handler.call({ name: request.name, input: request.arguments }) };
    } catch (error) {
      return { id: request.id, error: (error as Error).message };
    }
  }
}

/** The relay's end: one connection, requests answered in any order. */
export class ToolChannelClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (answer: ChannelAnswer) => void; reject: (error: Error) => void }>();

  private constructor(private readonly socket: net.Socket) {
    void readLines(socket, MAX_MESSAGE_BYTES, {
      onOversizedLine: () => socket.destroy(),
      onLine: (line) => {
        const answer = parseObject(line.toString("utf8")) as ChannelAnswer | null;
        if (answer === null || typeof answer.id !== "number") return;
        this.pending.get(answer.id)?.resolve(answer);
        this.pending.delete(answer.id);
      },
    }).then(() => this.failAll(new Error("the editor closed the tool channel")));
  }

  static connect(address: string, secret: string): Promise<ToolChannelClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(address, () => {
        socket.write(`${JSON.stringify({ secret })}\n`);
        resolve(new ToolChannelClient(socket));
      });
      socket.once("error", reject);
    });
  }

  async listTools(): Promise<LmTool[]> {
    const answer = await this.request({ method: "list" });
    if ("tools" in answer) return answer.tools;
    throw new Error("error" in answer ? answer.error : "no tool list");
  }

  async callTool(name: string, input: unknown): Promise<ToolCallResult> {
    const answer = await this.request({ method: "call", name, arguments: input });
    if ("result" in answer) return answer.result;
    throw new Error("error" in answer ? answer.error : "no tool result");
  }

  close(): void {
    this.socket.end();
  }

  private request(body: { method: "list" } | { method: "call"; name: string; arguments: unknown }): Promise<ChannelAnswer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  private failAll(error: Error): void {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function asRequest(message: Record<string, unknown>): ChannelRequest | null {
  if (typeof message.id !== "number") return null;
  if (message.method === "list") return { id: message.id, method: "list" };
  if (message.method === "call" && typeof message.name === "string")
    return { id: message.id, method: "call", name: message.name, arguments: message.arguments };
  return null;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
