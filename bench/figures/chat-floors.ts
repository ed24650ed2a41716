// Two more arms for P10, to say where a page's first token goes:
// - a websocket client in Node on the same chat server (the chain, no browser);
// - the browser's floor: a bare page that, on Enter, sends on a websocket and
//   clears its input, answered at once by a Node echo server that does nothing else.
// Chromium schedules rendering first after an input event, so even that bare
// echo waits for a frame: no page can show a first token sooner.
// And a tap between the page and the server, to split the agent → page leg:
// when the chunk's frame left the server, against its arrival in the page.

import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { WebSocket, WebSocketServer } from "ws";
import { frameText } from "../../acp-wire/src/index.js";

/** Prompt sent → first agent_message_chunk received, by a websocket client in Node (ms). */
export async function socketClient(serverUrl: string): Promise<{ firstToken(text: string): Promise<number>; stop(): Promise<void> }> {
  const url = new URL(serverUrl);
  const socket = new WebSocket(`ws://${url.host}/ws?token=${encodeURIComponent(url.searchParams.get("token")!)}`, { origin: url.origin });
  let onChunk: (() => void) | undefined;
  let onReady: (() => void) | undefined;
  socket.on("message", (data) => {
    interface Message {
      type: string;
      messages?: Message[];
      session?: { state: string };
      event?: { kind: string; update?: { sessionUpdate: string } };
    }
    const message = JSON.parse(frameText(data)) as Message;
    for (const each of message.type === "batch" ? message.messages! : [message]) {
      if (each.type === "session" && each.session?.state === "ready") onReady?.();
      if (each.event?.kind === "update" && each.event.update?.sessionUpdate === "agent_message_chunk") onChunk?.();
    }
  });
  await new Promise<void>((resolve) => (onReady = resolve));
  onReady = undefined;
  return {
    firstToken: async (text) => {
      const chunk = new Promise<void>((resolve) => (onChunk = resolve));
      const started = performance.now();
      socket.send(JSON.stringify({ type: "prompt", text, skipContext: false }));
      await chunk;
      onChunk = undefined;
      const ms = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the turn ends
      return ms;
    },
    stop: () => new Promise((resolve) => (socket.once("close", () => resolve()), socket.close())),
  };
}

const ECHO_PAGE = `<!doctype html><meta charset="utf-8"><title>echo</title><textarea id="input"></textarea><script>
const socket = new WebSocket("ws://" + location.host + "/");
let sentAt = 0;
window.echoes = [];
socket.onmessage = () => window.echoes.push(performance.now() - sentAt);
document.getElementById("input").addEventListener("keydown", (event) => {
  if (event.key !== "Enter") return;
  event.preventDefault();
  sentAt = performance.now();
  socket.send(event.target.value);
  event.target.value = "";
});
</script>`;

/** Enter keydown → a websocket echo received, in a bare page of `browser` (ms). */
export async function browserFloor(browser: Browser): Promise<{ echo(text: string): Promise<number>; stop(): Promise<void> }> {
  const server = http.createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end(ECHO_PAGE));
  new WebSocketServer({ server }).on("connection", (socket) => socket.on("message", (data) => socket.send(frameText(data))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => (window as unknown as { echoes?: number[] }).echoes !== undefined);
  return {
    echo: async (text) => {
      const before = await page.evaluate(() => (window as unknown as { echoes: number[] }).echoes.length);
      await page.fill("#input", text);
      await page.keyboard.press("Enter");
      await page.waitForFunction((count) => (window as unknown as { echoes: number[] }).echoes.length > count, before);
      return page.evaluate(() => (window as unknown as { echoes: number[] }).echoes.at(-1)!);
    },
    stop: async () => {
      await page.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** When a frame carrying an agent's chunk (its `bench/sentAt`, the agent's wall clock) left the server, in wall-clock ms. */
export interface TappedChunk {
  sentAt: number;
  leftServerAt: number;
}

/**
 * A TCP relay in front of the chat server: the page loads the chat through it, and each frame from the server
 * that carries a chunk's `bench/sentAt` is noted as it passes. Host and Origin are rewritten to the server's port
 * (its loopback guard checks them); the relay adds one loopback hop each way.
 */
export async function frameTap(serverUrl: string): Promise<{ url: string; chunks: TappedChunk[]; stop(): Promise<void> }> {
  const target = new URL(serverUrl);
  const chunks: TappedChunk[] = [];
  const sockets = new Set<net.Socket>();
  let own = "";
  const relay = net.createServer((page) => {
    const server = net.connect(Number(target.port), target.hostname);
    sockets.add(page).add(server);
    page.setNoDelay(true);
    server.setNoDelay(true);
    page.on("data", (data: Buffer) => server.write(Buffer.from(data.toString("latin1").replaceAll(own, target.host), "latin1")));
    server.on("data", (data: Buffer) => {
      const leftServerAt = performance.timeOrigin + performance.now();
      for (const match of data.toString("latin1").matchAll(/"bench\/sentAt":([0-9.]+)/g)) chunks.push({ sentAt: Number(match[1]), leftServerAt });
      page.write(data);
    });
    for (const [socket, other] of [
      [page, server],
      [server, page],
    ] as const) {
      socket.on("error", () => other.destroy());
      socket.on("close", () => (sockets.delete(socket), other.destroy()));
    }
  });
  await new Promise<void>((resolve) => relay.listen(0, target.hostname, resolve));
  own = `${target.hostname}:${(relay.address() as AddressInfo).port}`;
  const url = new URL(serverUrl);
  url.host = own;
  return {
    url: url.toString(),
    chunks,
    // The browser may keep its connections for later pages: they end here.
    stop: () => new Promise((resolve) => (relay.close(() => resolve()), sockets.forEach((socket) => socket.destroy()))),
  };
}
