// A chat tab's websocket to the chat server (conversation-tab.ts): opens it for
// the tab's conversation, parses each frame, sends the page's messages while it
// is open, and says when it opens and closes. Reconnecting loads the page again
// (the server keeps a named conversation through its grace period; the new page
// reattaches and gets the replay).

import { QUERY, type PageMessage, type ServerMessage } from "./protocol.js";

/** Where the conversation is: the page's token and what the tab opens. */
export interface ConnectionTarget {
  token: string;
  conversation?: string;
  reopen?: string;
  reopenAgent?: string;
}

export interface ConnectionEvents {
  open(): void;
  message(message: ServerMessage): void;
  /** The socket closed (the server went, or the tab closed it). */
  closed(): void;
}

export class TabConnection {
  private readonly socket: WebSocket;

  constructor(target: ConnectionTarget, events: ConnectionEvents) {
    const url = new URL(`ws?${wsQuery(target)}`, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    this.socket = new WebSocket(url);
    this.socket.addEventListener("open", () => events.open());
    this.socket.addEventListener("message", (event) => {
      const message = parseFrame(String(event.data));
      if (message) events.message(message);
    });
    this.socket.addEventListener("close", () => events.closed());
  }

  /** Sends while the socket is open; otherwise drops it (the state says Send is off, and why). */
  send(message: PageMessage): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  close(): void {
    this.socket.close();
  }

  /** The banner's Reconnect: the page again, which reattaches to its conversations. */
  static reconnect(): void {
    location.reload();
  }
}

function wsQuery(target: ConnectionTarget): string {
  const query = new URLSearchParams({ [QUERY.token]: target.token });
  if (target.conversation) query.set(QUERY.conversation, target.conversation);
  if (target.reopen) query.set(QUERY.reopen, target.reopen);
  if (target.reopenAgent) query.set(QUERY.reopenAgent, target.reopenAgent);
  return query.toString();
}

function parseFrame(data: string): ServerMessage | null {
  try {
    return JSON.parse(data) as ServerMessage;
  } catch (error) {
    console.error("symposium: a frame from the chat server is not JSON:", error);
    return null;
  }
}
