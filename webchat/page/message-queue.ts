// Messages typed while the agent works (docs/webchat.md: queued messages):
// listed under the composer, each editable and removable, sent one at a time,
// in order, as each turn ends. Stop keeps them but holds them until the user
// sends them on; when the agent ends they stay, with a note, so nothing typed
// is lost. The queue lives in this page only: its state and when a message goes
// are the tab's state (tab-state.ts); this draws it and reports edits.

import "./acp-features.css";
import { h } from "./dom.js";
import type { QueueState } from "./tab-state.js";

/** What the user does to the queue. */
export interface QueueActions {
  edit(index: number, text: string): void;
  remove(index: number): void;
  /** "Send queued", after Stop or a failed turn. */
  resume(): void;
}

export class MessageQueue {
  readonly element = h("div", { id: "message-queue", hidden: "" });
  /** One text area per queued message, kept across draws (what the user types in them stays). */
  private readonly items: HTMLTextAreaElement[] = [];
  /** The text areas the rows were last built with, in order. */
  private drawn: HTMLTextAreaElement[] = [];

  constructor(private readonly actions: QueueActions) {}

  draw(queue: QueueState): void {
    while (this.items.length > queue.items.length) this.items.pop();
    while (this.items.length < queue.items.length) this.items.push(this.textArea());
    queue.items.forEach((text, index) => {
      const item = this.items[index]!;
      if (item.value !== text) item.value = text;
    });
    this.element.hidden = this.items.length === 0;
    // The same text areas as drawn last: only the note changes. Rebuilding the rows would take
    // them out of the page for a moment, and with them the focus of a user editing one while
    // the agent's answer streams (each of its updates draws the queue).
    const header = this.header(queue);
    if (this.drawn.length === this.items.length && this.drawn.every((item, index) => item === this.items[index]) && this.element.firstElementChild) {
      this.element.firstElementChild.replaceWith(header);
      return;
    }
    this.drawn = [...this.items];
    const rows = this.items.map((item, index) => {
      const remove = h("button", { class: "queued-remove", title: "Remove this queued message", "aria-label": `Remove queued message ${index + 1}` }, "×");
      remove.addEventListener("click", () => this.actions.remove(index));
      return h("div", { class: "queued" }, h("span", { class: "queued-number meta" }, `${index + 1}.`), item, remove);
    });
    this.element.replaceChildren(header, ...rows);
  }

  private textArea(): HTMLTextAreaElement {
    const item = h("textarea", { class: "queued-text", rows: "1", "aria-label": "Queued message" });
    item.addEventListener("input", () => this.actions.edit(this.items.indexOf(item), item.value));
    return item;
  }

  private header(queue: QueueState): HTMLElement {
    const note = queue.ended
      ? "The agent has ended: these messages were not sent. Copy them, or start a New chat."
      : queue.held
        ? queue.heldBecause
        : `Sent in order when the agent is done (${queue.items.length} queued).`;
    const header = h("div", { class: "queued-note meta", role: "status" }, note);
    if (queue.held && !queue.ended) {
      const resume = h("button", { class: "queued-resume" }, "Send queued");
      resume.addEventListener("click", () => this.actions.resume());
      header.append(" ", resume);
    }
    return header;
  }
}
