// This workspace's kept conversations (docs/webchat.md: history): a view
// in the conversation's place under its header (the transcript and the
// composer wait hidden: a bottom panel has room for one of them) listing them
// (title, time), each with Open (the page reloads on a new conversation that
// reopens it) and Delete.

import { h } from "./dom.js";
import type { HistoryEntry } from "./protocol.js";

export interface HistoryActions {
  list(): void;
  open(id: string): void;
  remove(id: string): void;
}

export class HistoryPanel {
  readonly button = h(
    "button",
    { id: "history-button", title: "This workspace's conversations", "aria-expanded": "false", "aria-controls": "history" },
    "History",
  );
  readonly element = h("section", { id: "history", "aria-label": "Conversations", hidden: "" });

  constructor(
    private readonly actions: HistoryActions,
    private current: () => string | undefined,
    /** Shown under ours and kept across our list's refreshes (agent-session-list.ts). */
    private readonly extra?: HTMLElement,
  ) {
    this.button.addEventListener("click", () => this.toggle());
  }

  toggle(open = this.element.hidden): void {
    this.element.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    this.element.parentElement?.classList.toggle("showing-history", open);
    if (open) {
      this.element.replaceChildren(h("div", { class: "meta" }, "Loading…"));
      this.actions.list();
    }
  }

  show(entries: HistoryEntry[]): void {
    if (this.element.hidden) return;
    const rows = entries.map((entry) => this.row(entry));
    const close = h("button", { class: "history-close", title: "Close the list" }, "Close");
    close.addEventListener("click", () => this.toggle(false));
    this.element.replaceChildren(
      h("div", { class: "history-head" }, h("strong", {}, "Conversations in this workspace"), close),
      rows.length > 0
        ? h("ul", { class: "history-list" }, ...rows)
        : h("div", { class: "meta" }, "No conversation kept yet: each one is kept after its first answer."),
      ...(this.extra ? [this.extra] : []),
    );
  }

  private row(entry: HistoryEntry): HTMLElement {
    const isCurrent = entry.id === this.current();
    const open = h("button", { class: "history-open", title: "Reopen this conversation" }, "Open");
    const remove = h("button", { class: "history-delete", title: "Delete this conversation from the history" }, "Delete");
    open.addEventListener("click", () => this.actions.open(entry.id));
    remove.addEventListener("click", () => this.actions.remove(entry.id));
    const when = new Date(entry.updatedAt);
    return h(
      "li",
      { class: `history-entry${isCurrent ? " current" : ""}`, "data-history-id": entry.id },
      h("span", { class: "history-title", title: entry.title }, entry.title),
      h("time", { class: "meta", datetime: when.toISOString() }, when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })),
      ...(isCurrent ? [h("span", { class: "meta" }, "(this one)")] : [open]),
      remove,
    );
  }
}
