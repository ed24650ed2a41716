// A page's websocket to the real symposium-webchat, from Node: sends prompts
// in the page's own protocol (webchat/page/protocol.ts) and collects what the
// agent answers.

import { WebSocket } from "ws";
import type { ServerMessage, TranscriptEvent } from "../../webchat/page/protocol.js";
import { eventually } from "./processes.js";
import type { ChatServer } from "./webchat-server.js";
import { frameText } from "../../acp-wire/src/index.js";

export class ChatPage {
  private readonly messages: ServerMessage[] = [];
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;

  constructor(server: ChatServer, conversation: string) {
    const url = new URL(`ws://${server.url.host}/ws`);
    url.searchParams.set("token", server.token);
    url.searchParams.set("conversation", conversation);
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

  async ready(): Promise<void> {
    await this.opened;
    await eventually(() => this.messages.some((message) => message.type === "session" && message.session.state === "ready"), 10_000, "the session to be ready");
  }

  /** Sends a prompt and waits for the end of its turn; returns the agent's text for it. */
  async ask(text: string, timeoutMs = 10_000): Promise<string> {
    const before = this.agentText().length;
    const turns = this.turnEnds();
    this.socket.send(JSON.stringify({ type: "prompt", text, skipContext: false }));
    await eventually(() => this.turnEnds() > turns, timeoutMs, `the answer to '${text.slice(0, 200)}'`);
    return this.agentText().slice(before);
  }

  close(): Promise<void> {
    this.socket.close();
    return new Promise((resolve) => (this.socket.readyState === WebSocket.CLOSED ? resolve() : this.socket.once("close", () => resolve())));
  }

  private events(): TranscriptEvent[] {
    return this.messages.flatMap((message) => (message.type === "event" ? [message.event] : message.type === "replay" ? message.events : []));
  }

  private turnEnds(): number {
    return this.events().filter((event) => event.kind === "turnEnd").length;
  }

  private agentText(): string {
    return this.events()
      .map((event) => (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? (event.update.content as { text: string }).text : ""))
      .join("");
  }
}
