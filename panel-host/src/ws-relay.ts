// The gate's websockets: the client's websocket ends at the gate and a second
// one goes on to the frontend, each message passed across. The `ws` library
// parses and checks every frame the client sends (size, UTF-8, framing)
// before the frontend sees it, so a bad frame closes that client's socket
// (1009, 1007) and never reaches, let alone ends, the frontend: a page's
// mistakes are never counted as the frontend crashing.

import type * as http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { errorLine } from "../../loopback-auth/src/index.js";

/**
 * The largest message a client may send through the gate: what both frontends
 * take (the built-in chat's MAX_PAGE_MESSAGE_BYTES; aiohttp's default
 * max_msg_size, which Toad's textual-serve keeps). The gate enforces it
 * itself, so a frontend never receives a message it would choke on.
 */
export const MAX_CLIENT_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Past this many bytes queued toward one side, the other side is paused (the raw pipe's back-pressure, kept). */
const HIGH_WATER = 1024 * 1024;

/** Handshake headers `ws` writes itself on the second websocket. */
const OWN_HEADERS = ["connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol"];

export interface RelayHooks {
  log(message: string): void;
  /** The client's websocket is open (`socket` is its TCP socket). */
  opened(socket: Duplex): void;
  /** ... and has closed. */
  closed(socket: Duplex): void;
  /** Answers a refused upgrade with a plain HTTP status. */
  refuse(socket: Duplex, status: number, reason: string): void;
}

export class WebSocketRelay {
  private readonly chosenProtocol = new WeakMap<http.IncomingMessage, string>();
  private readonly server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    handleProtocols: (_offered, req) => this.chosenProtocol.get(req) ?? false,
  });

  constructor(private readonly hooks: RelayHooks) {}

  /** Opens the frontend's websocket first; the client gets its 101 only once that one is open. */
  relay(req: http.IncomingMessage, socket: Duplex, head: Buffer, upstreamUrl: string, headers: http.OutgoingHttpHeaders): void {
    const protocols = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((each) => each.trim())
      .filter(Boolean);
    const forwarded = { ...headers };
    for (const name of OWN_HEADERS) delete forwarded[name];
    let upstream: WebSocket;
    try {
      // The frontend is this host's own child: no size limit on what it sends, as with the raw pipe before.
      upstream = new WebSocket(upstreamUrl, protocols, { headers: forwarded as Record<string, string>, perMessageDeflate: false, maxPayload: 0 });
    } catch (error) {
      return this.hooks.refuse(socket, 400, `the websocket request is malformed: ${(error as Error).message}`); // e.g. a bad subprotocol list
    }
    // "connecting" until the frontend answers; then the client is joined, or refused.
    let state: "connecting" | "joined" | "done" = "connecting";
    const abandon = (): void => {
      state = "done";
      upstream.terminate(); // the client left during the handshake
    };
    socket.once("close", abandon);
    upstream.once("unexpected-response", (_request, answer) => {
      state = "done";
      socket.off("close", abandon);
      socket.end(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n${rawHeaders(answer.rawHeaders)}\r\n`);
      answer.resume();
      upstream.terminate();
    });
    upstream.on("error", (error) => {
      if (state === "connecting") {
        state = "done";
        socket.off("close", abandon);
        this.hooks.refuse(socket, 502, "the chat server did not answer");
      } else if (state === "joined") {
        this.hooks.log(`the frontend's websocket failed: ${error.message}`);
      }
    });
    upstream.once("open", () => {
      state = "done";
      socket.off("close", abandon);
      if (upstream.protocol) this.chosenProtocol.set(req, upstream.protocol);
      let joined = false;
      try {
        this.server.handleUpgrade(req, socket, head, (client) => {
          joined = true;
          state = "joined";
          this.join(client, upstream, socket);
        });
      } catch (error) {
        // Outside any request handler's try: a bug here must still not end the host.
        this.hooks.log(`internal error relaying a websocket: ${errorLine(error)}`);
        socket.destroy();
        upstream.terminate();
      }
      // handleUpgrade calls back at once, or not at all: a socket already gone, or a
      // malformed handshake it refused (400). The frontend's websocket then goes too.
      if (!joined) upstream.terminate();
    });
  }

  private join(client: WebSocket, upstream: WebSocket, socket: Duplex): void {
    this.hooks.opened(socket);
    pass(client, upstream);
    pass(upstream, client);
    client.on("error", (error) => {
      // ws has closed the client's socket already (1009 too big, 1007 not UTF-8, 1002 bad framing).
      this.hooks.log(`closed a client's websocket: ${error.message}`);
      closeWith(upstream, 1001, "the client's websocket failed");
    });
    client.once("close", (code, reason) => {
      this.hooks.closed(socket);
      closeWith(upstream, code, reason.toString());
    });
    upstream.once("close", (code, reason) => closeWith(client, code === 1006 ? 1011 : code, code === 1006 ? "the chat server went away" : reason.toString()));
  }
}

/** Passes every message from one websocket to the other, pausing the sender while the receiver's queue is long. */
function pass(from: WebSocket, to: WebSocket): void {
  from.on("message", (data, isBinary) => {
    if (to.readyState !== WebSocket.OPEN) return;
    to.send(data as Buffer, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < HIGH_WATER) from.resume();
    });
    if (to.bufferedAmount >= HIGH_WATER) from.pause();
  });
}

/** Closes `socket` with the other side's code when that code may be sent (1005 and 1006 only describe a close). */
function closeWith(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING) return;
  if (socket.readyState === WebSocket.CONNECTING) return socket.terminate();
  const sendable = (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
  if (sendable) socket.close(code, reason);
  else socket.close();
}

function rawHeaders(raw: string[]): string {
  let text = "";
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return text;
}
