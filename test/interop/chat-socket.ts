// The built-in chat's page websocket, from Node, for the interop tests: what
// a user sees (events) and the prompts they send.

import { WebSocket } from "ws";
import { frameText } from "../../acp-wire/src/index.js";
import type { ServerMessage, TranscriptEvent } from "../../webchat/page/protocol.js";
import { eventually } from "../support/processes.js";
import type { ChatServer } from "../support/webchat-server.js";

export class ChatSocket {
  readonly messages: ServerMessage[] = [];
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(server: ChatServer) {
    const url = new URL(`ws://${server.url.host}/ws`);
    url.searchParams.set("token", server.token);
    this.socket = new WebSocket(url, { headers: { origin: server.origin } });
    this.socket.on("message", (data) => {
      const message = JSON.parse(frameText(data)) as ServerMessage;
      this.messages.push(...(message.type === "batch" ? message.messages : [message]));
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once("open", () => resolve());
      this.socket.once("error", reject);
    });
  }

  events(): TranscriptEvent[] {
    return this.messages.flatMap((message) => (message.type === "event" ? [message.event] : message.type === "replay" ? message.events : []));
  }

  errors(): string[] {
    return this.events().flatMap((event) => (event.kind === "error" ? [event.message] : []));
  }

  /** Sign-in cards: the chat's answer to an agent's "authentication required". */
  signIns(): Array<{ message: string; methods: unknown[] }> {
    return this.events().flatMap((event) =>
      (event as { kind: string }).kind === "signIn" ? [event as unknown as { message: string; methods: unknown[] }] : [],
    );
  }

  send(text: string): void {
    this.socket.send(JSON.stringify({ type: "prompt", text, skipContext: false }));
  }

  agentText(): string {
    return this.events()
      .map((event) => (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? (event.update.content as { text: string }).text : ""))
      .join("");
  }

  async ready(timeoutMs = 20_000): Promise<void> {
    await this.opened;
    await eventually(
      () => this.messages.some((message) => message.type === "session" && message.session.state === "ready"),
      timeoutMs,
      "the session to be ready",
    );
  }

  /** Sends a prompt and waits for its turn to end or fail. */
  async ask(text: string, timeoutMs = 20_000): Promise<void> {
    const settled = () => this.events().filter((event) => event.kind === "turnEnd" || event.kind === "error").length;
    const before = settled();
    this.socket.send(JSON.stringify({ type: "prompt", text, skipContext: false }));
    await eventually(() => settled() > before, timeoutMs, `the answer to '${text}'`);
  }

  close(): void {
    this.socket.close();
  }
}
