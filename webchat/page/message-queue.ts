// Messages typed while the agent works (docs/webchat.md: queued messages):
// listed under the composer, each editable and removable, sent one at a time,
// in order, as each turn ends. Stop keeps them but holds them until the user
// sends them on; when the agent ends they stay, with a note, so nothing typed
// is lost. The queue lives in this page only.

import "./acp-features.css";
import { h } from "./dom.js";
import type { ConversationState, TranscriptEvent } from "./protocol.js";

/** More than this waiting is refused (the composer keeps the text). */
const MAX_QUEUED = 50;

export class MessageQueue {
  readonly element = h("div", { id: "message-queue", hidden: "" });
  private readonly items: HTMLTextAreaElement[] = [];
  /** After Stop: the queue waits for "Send queued" instead of going on by itself. */
  private held = false;
  private ended = false;
  /** The last turn ended (turnEnd): the next message may go once the agent is ready; a failed turn holds the queue. */
  private turnEnded = false;
  /** Why the queue is held, said above it. */
  private heldBecause = "";

  constructor(private readonly sendNow: (text: string) => boolean) {}

  /** Queues `text` (the agent is answering); false when the queue is full. */
  add(text: string): boolean {
    if (this.items.length >= MAX_QUEUED) return false;
    const item = h("textarea", { class: "queued-text", rows: "1", "aria-label": "Queued message" });
    item.value = text;
    this.items.push(item);
    this.render();
    return true;
  }

  /** A message that goes as soon as the agent is ready, as if a turn had just ended (the first question, after the first-run menu's choice). */
  sendOnceReady(text: string): void {
    if (!this.add(text)) return;
    this.turnEnded = true;
  }

  /** The user pressed Stop (or the turn failed): what is queued waits for them. */
  hold(why = "Stopped: the queued messages wait."): void {
    if (this.items.length > 0) {
      this.held = true;
      this.heldBecause = why;
    }
    this.render();
  }

  /** A live transcript event: a turn that ended lets the next message go; one that failed holds them. */
  onEvent(event: TranscriptEvent): void {
    if (event.kind === "turnEnd") this.turnEnded = true;
    else if (event.kind === "error") this.hold("The last turn failed: the queued messages wait.");
  }

  /** The conversation's state changed: a turn that ended sends the next message, unless held or ended. */
  onState(state: ConversationState): void {
    this.ended = state === "ended";
    if (state === "ready" && !this.held && this.turnEnded) this.sendNext();
    this.render();
  }

  get size(): number {
    return this.items.length;
  }

  private sendNext(): void {
    const next = this.items[0];
    if (!next) return;
    if (next.value.trim() === "") {
      this.items.shift();
      return this.sendNext();
    }
    if (this.sendNow(next.value)) {
      this.items.shift();
      this.turnEnded = false;
    }
  }

  private render(): void {
    if (this.items.length === 0) this.held = false;
    this.element.hidden = this.items.length === 0;
    const rows = this.items.map((item, index) => {
      const remove = h("button", { class: "queued-remove", title: "Remove this queued message", "aria-label": `Remove queued message ${index + 1}` }, "×");
      remove.addEventListener("click", () => {
        this.items.splice(this.items.indexOf(item), 1);
        this.render();
      });
      return h("div", { class: "queued" }, h("span", { class: "queued-number meta" }, `${index + 1}.`), item, remove);
    });
    const note = this.ended
      ? "The agent has ended: these messages were not sent. Copy them, or start a New chat."
      : this.held
        ? this.heldBecause
        : `Sent in order when the agent is done (${this.items.length} queued).`;
    const header = h("div", { class: "queued-note meta", role: "status" }, note);
    if (this.held && !this.ended) {
      const resume = h("button", { class: "queued-resume" }, "Send queued");
      resume.addEventListener("click", () => {
        this.held = false;
        this.turnEnded = true; // the user says go: the agent is ready, or the next end of turn sends it
        this.sendNext();
        this.render();
      });
      header.append(" ", resume);
    }
    this.element.replaceChildren(header, ...rows);
  }
}
