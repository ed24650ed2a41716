// A conversation: one agent session, its transcript, and the pages attached
// to it. A page that reloads with the conversation's id in its URL attaches
// again and gets the transcript replayed; a named conversation with no page
// attached lives on for a grace period, an unnamed one (Toad's behaviour:
// one app per page load) ends with its page.

import type { WebSocket } from "ws";
import type { AgentUpdate, PageMessage, ServerMessage, TranscriptEvent } from "../page/protocol.js";
import { AgentSession, type AgentSessionOptions } from "./agent-session.js";

export interface ConversationOptions extends Omit<AgentSessionOptions, "onEvent" | "onSession"> {
  id: string;
  /** Named in the page's URL: survives a detach for `graceMs`. */
  named: boolean;
  graceMs: number;
  title: string;
  /** Called once, when the conversation has ended and its agent is stopped. */
  onEnded(conversation: Conversation): void;
}

const STREAMED_TEXT = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

export class Conversation {
  readonly transcript: TranscriptEvent[] = [];
  private readonly sockets = new Set<WebSocket>();
  /** Messages for the attached pages, each serialised once, sent together at the end of this turn of the event loop. */
  private outbox: string[] = [];
  private flushQueued = false;
  private readonly session: AgentSession;
  private graceTimer: NodeJS.Timeout | undefined;
  private ending: Promise<void> | undefined;

  constructor(private readonly options: ConversationOptions) {
    this.session = new AgentSession({
      ...options,
      onEvent: (event) => this.record(event),
      onSession: (session) => this.broadcast({ type: "session", session }),
    });
  }

  get id(): string {
    return this.options.id;
  }

  get agentPid(): number | undefined {
    return this.session.pid;
  }

  attach(socket: WebSocket, contextMessage: ServerMessage): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.flush(); // what is queued is in the transcript the new page gets: send it to the others first
    this.sockets.add(socket);
    const { id, named, title, projectDir } = this.options;
    this.send(socket, { type: "hello", conversationId: id, named, title, projectDir });
    this.send(socket, { type: "replay", events: this.transcript });
    this.send(socket, { type: "session", session: this.session.info });
    this.send(socket, contextMessage);
    socket.on("message", (data) => this.onPageMessage(data.toString()));
    socket.on("close", () => this.detach(socket));
  }

  /**
   * Sends to every attached page, at the end of this turn of the event loop:
   * messages that arrive together (an agent's burst of updates read at once)
   * leave in one websocket frame, a `batch`, in order. A page attaching later
   * gets them in the replay.
   */
  broadcast(message: ServerMessage): void {
    if (this.sockets.size === 0) return;
    this.outbox.push(JSON.stringify(message));
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    const outbox = this.outbox;
    if (outbox.length === 0) return;
    this.outbox = [];
    // The batch is built from the messages' JSON text: nothing is serialised twice.
    const text = outbox.length === 1 ? outbox[0]! : `{"type":"batch","messages":[${outbox.join(",")}]}`;
    for (const socket of this.sockets) socket.send(text);
  }

  get attached(): boolean {
    return this.sockets.size > 0;
  }

  /** Stops the agent (idempotent); resolves when its processes are gone. */
  end(reason: string): Promise<void> {
    this.ending ??= (async () => {
      clearTimeout(this.graceTimer);
      this.options.log(`conversation ${this.id} ended: ${reason}`);
      await this.session.stop();
      this.flush();
      for (const socket of this.sockets) socket.close(1000, "conversation ended");
      this.options.onEnded(this);
    })();
    return this.ending;
  }

  private detach(socket: WebSocket): void {
    this.sockets.delete(socket);
    if (this.sockets.size > 0 || this.ending) return;
    if (!this.options.named) {
      void this.end("its page closed");
      return;
    }
    this.graceTimer = setTimeout(() => void this.end(`no page attached for ${Math.round(this.options.graceMs / 1000)} s`), this.options.graceMs);
  }

  private onPageMessage(text: string): void {
    let message: PageMessage;
    try {
      message = JSON.parse(text) as PageMessage;
    } catch {
      this.options.log("ignored a page message that is not JSON");
      return;
    }
    switch (message.type) {
      case "prompt":
        if (typeof message.text === "string" && message.text.trim() !== "") void this.session.prompt(message.text, message.skipContext === true);
        return;
      case "cancel":
        return this.session.cancel();
      case "permission":
        return this.session.answerPermission(String(message.id), String(message.optionId));
      case "setMode":
        void this.session.setMode(String(message.modeId));
        return;
      case "end":
        void this.end("the page started a new chat");
        return;
      default:
        this.options.log(`ignored a page message of unknown type ${JSON.stringify((message as { type?: unknown }).type)}`);
    }
  }

  /** Keeps the event for replay (streamed text merged into one event) and sends it. */
  private record(event: TranscriptEvent): void {
    this.broadcast({ type: "event", event });
    const last = this.transcript[this.transcript.length - 1];
    if (event.kind === "update" && last?.kind === "update" && mergeable(last, event)) {
      const content = last.update.content as { text: string };
      last.update = { ...last.update, content: { ...content, text: content.text + (event.update.content as { text: string }).text } };
      return;
    }
    this.transcript.push(event);
  }

  private send(socket: WebSocket, message: ServerMessage): void {
    socket.send(JSON.stringify(message));
  }
}

function mergeable(last: TranscriptEvent & { kind: "update" }, next: TranscriptEvent & { kind: "update" }): boolean {
  const kind = next.update.sessionUpdate;
  const isText = (update: AgentUpdate) => (update.content as { type?: unknown } | undefined)?.type === "text";
  return STREAMED_TEXT.has(kind) && last.update.sessionUpdate === kind && isText(last.update) && isText(next.update);
}
