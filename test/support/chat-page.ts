// A page's websocket to the real symposium-webchat (or a gate in front of it),
// from Node: sends prompts in the page's own protocol (webchat/page/protocol.ts)
// and collects what the server sends. The one such client of the tests: the
// interop and hostile tests wrap it with their own timeouts.

import { WebSocket } from "ws";
import type { ServerMessage, TranscriptEvent } from "../../webchat/page/protocol.js";
import { eventually } from "./processes.js";
import { frameText } from "../../acp-wire/src/index.js";

/** Where a page was loaded from: `http://127.0.0.1:PORT` (a chat server's or a gate's) and its secret. */
export interface ChatEndpoint {
  origin: string;
  token: string;
}

export class ChatPage {
  readonly messages: ServerMessage[] = [];
  /** Websocket frames received (a batch is one frame holding several messages). */
  frames = 0;
  readonly socket: WebSocket;
  /** Rejects if the server refuses the socket; unawaited, that refusal is no test's failure. */
  readonly opened: Promise<void>;

  /** `query`: more of the page's URL parameters (`reopen`). */
  constructor(server: ChatEndpoint, conversation?: string, headers: Record<string, string> = { origin: server.origin }, query: Record<string, string> = {}) {
    const url = new URL("/ws", server.origin.replace(/^http/, "ws"));
    url.searchParams.set("token", server.token);
    if (conversation) url.searchParams.set("conversation", conversation);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    this.socket = new WebSocket(url, { headers });
    this.socket.on("message", (data) => {
      this.frames++;
      const message = JSON.parse(frameText(data)) as ServerMessage;
      this.messages.push(...(message.type === "batch" ? message.messages : [message]));
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once("open", () => resolve());
      this.socket.once("error", reject);
    });
    this.opened.catch(() => undefined);
  }

  /** Resolves once the conversation's agent is ready for a prompt. */
  async ready(timeoutMs = 10_000): Promise<void> {
    await this.opened;
    await eventually(
      () => this.messages.some((message) => message.type === "session" && message.session.state === "ready"),
      timeoutMs,
      "the session to be ready",
    );
  }

  send(text: string): void {
    this.socket.send(JSON.stringify({ type: "prompt", text, skipContext: false }));
  }

  /**
   * Sends a prompt and waits for the end of its turn (or, with `orError`, for an error
   * instead); returns the agent's text for it.
   */
  async ask(text: string, timeoutMs = 10_000, orError = false): Promise<string> {
    const settled = () => this.events().filter((event) => event.kind === "turnEnd" || (orError && event.kind === "error")).length;
    const [before, turns] = [this.agentText().length, settled()];
    this.send(text);
    await eventually(() => settled() > turns, timeoutMs, `the answer to '${text.slice(0, 200)}'`);
    return this.agentText().slice(before);
  }

  close(): Promise<void> {
    this.socket.close();
    return new Promise((resolve) => (this.socket.readyState === WebSocket.CLOSED ? resolve() : this.socket.once("close", () => resolve())));
  }

  events(): TranscriptEvent[] {
    return this.messages.flatMap((message) => (message.type === "event" ? [message.event] : message.type === "replay" ? message.events : []));
  }

  errors(): string[] {
    return this.events().flatMap((event) => (event.kind === "error" ? [event.message] : []));
  }

  /** Why the conversation ended, once it has (a failure to start says so here: webchat/src/agent-session.ts). */
  endedMessage(): string | undefined {
    const last = this.messages.filter((message) => message.type === "session").at(-1);
    return last?.type === "session" ? last.session.ended?.message : undefined;
  }

  /** Sign-in cards: the chat's answer to an agent's "authentication required". */
  signIns(): Array<{ message: string; methods: unknown[] }> {
    return this.events().flatMap((event) =>
      (event as { kind: string }).kind === "signIn" ? [event as unknown as { message: string; methods: unknown[] }] : [],
    );
  }

  agentText(): string {
    return this.events()
      .map((event) => (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? (event.update.content as { text: string }).text : ""))
      .join("");
  }
}
