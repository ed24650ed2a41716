// Hostile clients for the local servers' tests: raw HTTP requests
// whose target Node's URL parser refuses, and websockets that send what a
// page should never send (oversized messages, invalid UTF-8).

import * as net from "node:net";
import { WebSocket } from "ws";
import { ChatPage } from "./chat-page.js";

/** Request targets Node's `new URL()` refuses; a browser can send the first (`<img src="http://127.0.0.1:PORT//a:99999/x.png">`). */
export const UNPARSABLE_TARGETS = ["//a:99999/", "//[/", "http://[/", "//a:99999/x.png?token=x", "*"];

/**
 * Sends one raw request over TCP (the target exactly as given) and resolves
 * with the status of the answer; 0 when the server closed without one.
 * With `upgrade`, the request asks for a websocket.
 */
export function rawStatus(port: number, target: string, options: { upgrade?: boolean; headers?: Record<string, string> } = {}): Promise<number> {
  const handshake = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" };
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...(options.upgrade ? handshake : { connection: "close" }), ...options.headers };
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      const lines = [`GET ${target} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    let response = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to GET ${target} within 5 s`)));
    socket.on("data", (chunk) => {
      response += chunk.toString();
      // An upgrade that succeeds keeps the socket open: the status line is enough.
      if (/^HTTP\/1\.1 \d+/.test(response) && options.upgrade) socket.destroy();
    });
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0)));
    socket.on("error", (error) => ((error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error)));
  });
}

/** How a websocket ended. */
export interface Closed {
  code: number;
  reason: string;
}

/** Resolves with the close code and reason once `socket` has closed. */
export function closed(socket: WebSocket): Promise<Closed> {
  return new Promise((resolve) => {
    socket.on("error", () => undefined); // the server ending the socket mid-send is expected here
    if (socket.readyState === WebSocket.CLOSED) return resolve({ code: 1006, reason: "" });
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

/** A text frame whose payload is not UTF-8 (an unpaired continuation byte). */
export function sendInvalidUtf8(socket: WebSocket): void {
  socket.send(Buffer.from([0x7b, 0x22, 0x80, 0xff, 0x22, 0x7d]), { binary: false });
}

/** A prompt of `bytes` bytes, as the page would send it. */
export function oversizedPrompt(bytes: number): string {
  return JSON.stringify({ type: "prompt", text: "x".repeat(bytes), skipContext: false });
}

/** A page's websocket to the built-in chat (direct or through the gate), from Node. */
export class ChatSocket extends ChatPage {
  readonly ended: Promise<Closed>;

  /** `base` is `http://127.0.0.1:PORT` of the server (or gate) the page was loaded from. */
  constructor(base: string, token: string, conversation?: string) {
    super({ origin: base, token }, conversation);
    this.ended = closed(this.socket);
  }

  /** Resolves once the conversation's agent is ready for a prompt. */
  whenReady(timeoutMs = 15_000): Promise<void> {
    return this.ready(timeoutMs);
  }

  /** Sends a prompt and resolves with the agent's text for its turn. */
  override ask(prompt: string, timeoutMs = 15_000): Promise<string> {
    return super.ask(prompt, timeoutMs);
  }
}
