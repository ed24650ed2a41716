// Several conversations side by side (docs/webchat.md: tabs): a strip of
// tabs over the chat, each tab one conversation (conversation-tab.ts) with
// its own agent session, within the server's limit of live conversations.
// Switching shows another tab's element; the others keep everything as it
// is. Closing a tab ends its conversation, after asking while its agent is
// answering. Keys: Alt+Shift+N opens a tab, Alt+Shift+W closes the one on
// screen, Alt+Shift+PageDown / PageUp go to the next / previous (VS Code has
// none of these, and the panel's chords never reach them); in the strip,
// the arrows, Home and End move between tabs, Delete closes one.

import { h } from "./dom.js";
import type { ConversationTab, TabInit } from "./conversation-tab.js";

export interface TabHost {
  /** Opens a conversation for a new tab (not yet shown). */
  open(init: TabInit): ConversationTab;
  /** What a new, empty conversation opens with (named in VS Code's panel, where a reload comes back to it). */
  blank(): TabInit;
  /** The tab on screen changed (the URL, the panel, the title follow it). */
  activated(tab: ConversationTab): void;
  /** A tab was opened, closed or replaced: the list to keep across a reload. */
  listChanged(): void;
}

export class TabStrip {
  readonly element = h("nav", { class: "tab-strip", "aria-label": "Conversations" });
  /** Where the tabs' conversations are shown (one at a time). */
  readonly panes = h("div", { class: "tab-panes" });
  private readonly list = h("div", { role: "tablist", class: "tab-list", "aria-label": "Conversations" });
  private readonly newButton = h(
    "button",
    { id: "new-tab", class: "tab-new", title: "New tab: another conversation (Alt+Shift+N)", "aria-label": "New tab" },
    "+",
  );
  private readonly notice = h("div", { id: "tab-notice", class: "tab-notice", role: "alert", hidden: "" });
  readonly tabs: ConversationTab[] = [];
  private current: ConversationTab | undefined;
  /** The server's limit of live conversations, once a tab's hello has said it. */
  private limit: number | undefined;
  private ids = new WeakMap<ConversationTab, string>();
  private nextId = 0;

  constructor(private readonly host: TabHost) {
    this.element.append(this.list, this.newButton, this.notice);
    this.newButton.addEventListener("click", () => this.openNew());
    this.list.addEventListener("keydown", (event) => this.onStripKey(event));
    document.addEventListener("keydown", (event) => this.onPageKey(event), true);
  }

  get active(): ConversationTab | undefined {
    return this.current;
  }

  /** The server said its limit (each tab's hello does). */
  setLimit(max: number): void {
    this.limit = max;
  }

  /** Adds a tab for `init` and shows it. */
  add(init: TabInit, show = true): ConversationTab {
    const tab = this.host.open(init);
    this.tabs.push(tab);
    this.attach(tab);
    if (show || !this.current) this.show(tab);
    this.host.listChanged();
    return tab;
  }

  /** The new-tab button and Alt+Shift+N: a new conversation, unless the server's limit is reached (said why). */
  openNew(): void {
    this.openTab(this.host.blank());
  }

  /** Opens `init` in a new tab and shows it; false (and why, in the strip) at the server's limit. */
  openTab(init: TabInit): boolean {
    if (this.limit !== undefined && this.tabs.length >= this.limit) {
      this.say(
        `Not opened: the chat runs at most ${this.limit} conversation${this.limit === 1 ? "" : "s"} at once ` +
          `(the setting symposium.chat.maxConversations). Close a tab first.`,
      );
      return false;
    }
    this.say(null);
    this.add(init).focusComposer();
    return true;
  }

  /** Whether `tab` is the one on screen. */
  isActive(tab: ConversationTab): boolean {
    return this.current === tab;
  }

  /** A tab left its conversation for `next` (New chat, History, another agent): the new one takes its place. */
  replace(old: ConversationTab, next: TabInit): void {
    const index = this.tabs.indexOf(old);
    if (index < 0) return;
    const tab = this.host.open(next);
    this.tabs[index] = tab;
    const hadFocus = old.element.contains(document.activeElement) || document.activeElement === document.body;
    old.element.remove();
    this.attach(tab);
    if (this.current === old) this.show(tab);
    if (hadFocus && this.current === tab && document.hasFocus()) tab.focusComposer(); // the keys stay in the chat, in the new conversation
    this.host.listChanged();
  }

  /** Shows `tab`; every other tab keeps its state, hidden. */
  show(tab: ConversationTab): void {
    this.current = tab;
    for (const each of this.tabs) each.element.hidden = each !== tab;
    this.render();
    tab.shown();
    this.host.activated(tab);
  }

  /** Closes `tab` (its conversation ends); asks first while its agent answers. The last tab is replaced by a new conversation. */
  close(tab: ConversationTab, confirmed = false): void {
    if (tab.busy() && !confirmed) return this.confirmClose(tab);
    this.say(null);
    const index = this.tabs.indexOf(tab);
    if (index < 0) return;
    tab.close();
    if (this.tabs.length === 1) return this.replace(tab, this.host.blank());
    this.tabs.splice(index, 1);
    tab.element.remove();
    if (this.current === tab) this.show(this.tabs[Math.min(index, this.tabs.length - 1)]!);
    else this.render();
    this.host.listChanged();
    this.current?.focusComposer();
  }

  /** The strip's labels and markers again (a tab's first message, state, a question waiting). */
  render(): void {
    this.list.replaceChildren(...this.tabs.map((tab) => this.tabButton(tab)));
  }

  private attach(tab: ConversationTab): void {
    this.ids.set(tab, `conversation-tab-${++this.nextId}`);
    tab.element.id = `${this.ids.get(tab)!}-pane`;
    tab.element.hidden = true;
    this.panes.append(tab.element);
    this.render();
  }

  private tabButton(tab: ConversationTab): HTMLElement {
    const selected = tab === this.current;
    const id = this.ids.get(tab)!;
    const marker = tab.waiting() ? "waiting" : tab.busy() ? "busy" : "idle";
    const label = h("span", { class: "tab-label" }, tab.label());
    const button = h(
      "button",
      {
        id,
        role: "tab",
        class: `tab ${marker}`,
        "aria-selected": String(selected),
        "aria-controls": `${id}-pane`,
        tabindex: selected ? "0" : "-1",
        title: `${tab.label()}\n${tab.status()}${marker === "waiting" ? "\nWaits for your answer" : ""}`,
      },
      h("span", { class: "tab-marker", "aria-hidden": "true" }),
      label,
    );
    button.addEventListener("click", () => this.show(tab));
    const close = h(
      "button",
      { class: "tab-close", title: "Close this tab: its conversation ends (Alt+Shift+W)", "aria-label": `Close ${tab.label()}`, tabindex: "-1" },
      "×",
    );
    close.addEventListener("click", (event) => {
      event.stopPropagation();
      this.close(tab);
    });
    return h("span", { class: `tab-item${selected ? " selected" : ""}` }, button, close);
  }

  /** Asks before closing a tab whose agent is answering: Close ends the turn and the conversation; Keep does nothing. */
  private confirmClose(tab: ConversationTab): void {
    const closeButton = h("button", { class: "primary tab-confirm-close" }, "Close tab");
    const keepButton = h("button", { class: "tab-confirm-keep" }, "Keep it");
    closeButton.addEventListener("click", () => this.close(tab, true));
    keepButton.addEventListener("click", () => {
      this.say(null);
      tab.focusComposer();
    });
    this.notice.replaceChildren(
      h("span", {}, `The agent is answering in “${tab.label()}”. Close the tab? Its turn is cancelled and its conversation ends.`),
      closeButton,
      keepButton,
    );
    this.notice.addEventListener(
      "keydown",
      (event) => {
        if (event.key !== "Escape") return;
        event.preventDefault(); // not the turn's Escape: this only dismisses the question
        keepButton.click();
      },
      { once: true },
    );
    this.notice.hidden = false;
    closeButton.focus();
  }

  private say(message: string | null): void {
    this.notice.replaceChildren(message ?? "");
    this.notice.hidden = message === null;
  }

  private onPageKey(event: KeyboardEvent): void {
    if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const action = {
      KeyN: () => this.openNew(),
      KeyW: () => this.current && this.close(this.current),
      PageDown: () => this.step(1),
      PageUp: () => this.step(-1),
    }[event.code];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }

  /** The tab list's own keys (the ARIA tabs pattern): arrows, Home, End move and show; Delete closes. */
  private onStripKey(event: KeyboardEvent): void {
    const moves: Record<string, () => void> = {
      ArrowRight: () => this.step(1, true),
      ArrowLeft: () => this.step(-1, true),
      Home: () => this.tabs[0] && this.showFocused(this.tabs[0]),
      End: () => this.tabs.at(-1) && this.showFocused(this.tabs.at(-1)!),
      Delete: () => this.current && this.close(this.current),
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    move();
  }

  /** The next (1) or previous (-1) tab, round the ends. */
  private step(by: number, focusStrip = false): void {
    if (!this.current || this.tabs.length < 2) return;
    const index = (this.tabs.indexOf(this.current) + by + this.tabs.length) % this.tabs.length;
    if (focusStrip) this.showFocused(this.tabs[index]!);
    else {
      this.show(this.tabs[index]!);
      this.tabs[index]!.focusComposer();
    }
  }

  private showFocused(tab: ConversationTab): void {
    this.show(tab);
    document.getElementById(this.ids.get(tab)!)?.focus();
  }
}
