// The agent's own sessions (`session/list`) in History, under ours
// (docs/webchat.md: the agent's sessions): one page at a time, "More" asking
// for the next, each with Open (a new conversation that loads or resumes it).
// A page holds at most a couple of hundred entries (the server's bound), so a
// list of 100,000 costs what the user pages through, never more.

import { h } from "./dom.js";
import type { AgentSessionEntry, ServerMessage } from "./protocol.js";

export interface AgentSessionActions {
  list(cursor?: string): void;
  open(sessionId: string): void;
}

type Page = Extract<ServerMessage, { type: "agentSessions" }>;

export class AgentSessionList {
  readonly element = h("div", { class: "agent-sessions", hidden: "" });
  private readonly list = h("ul", { class: "history-list agent-session-list" });
  private readonly footer = h("div", { class: "agent-sessions-footer" });
  private cursor: string | undefined;

  constructor(
    private readonly actions: AgentSessionActions,
    private readonly current: () => string | undefined,
  ) {}

  /** History opened: the first page, when the agent lists its sessions. */
  start(offered: boolean): void {
    this.element.hidden = !offered;
    if (!offered) return;
    this.list.replaceChildren();
    this.cursor = undefined;
    this.element.replaceChildren(h("strong", {}, "The agent's own sessions"), this.list, this.footer);
    this.footer.replaceChildren(h("div", { class: "meta" }, "Loading…"));
    this.actions.list();
  }

  /** A page arrived: its entries go after the ones shown. */
  show(page: Page): void {
    if (this.element.hidden) return;
    this.list.append(...page.sessions.map((session) => this.row(session)));
    this.cursor = page.cursor;
    const notes = [
      ...(page.error ? [h("div", { class: "meta error-text" }, `The agent did not list its sessions: ${page.error}`)] : []),
      ...(page.leftOut > 0 ? [h("div", { class: "meta" }, `${page.leftOut} more in the agent's answer were not shown.`)] : []),
      ...(this.list.childElementCount === 0 && !page.error ? [h("div", { class: "meta" }, "The agent lists no sessions for this project.")] : []),
    ];
    const more = this.cursor === undefined ? [] : [this.moreButton()];
    this.footer.replaceChildren(...notes, ...more);
  }

  private moreButton(): HTMLElement {
    const more = h("button", { class: "agent-sessions-more", title: "The agent's next page of sessions" }, "More");
    more.addEventListener("click", () => {
      more.disabled = true;
      this.actions.list(this.cursor);
    });
    return more;
  }

  private row(session: AgentSessionEntry): HTMLElement {
    const isCurrent = session.sessionId === this.current();
    const open = h("button", { class: "history-open", title: "Continue this session of the agent's in a new conversation" }, "Open");
    open.addEventListener("click", () => this.actions.open(session.sessionId));
    const when = session.updatedAt === undefined ? undefined : new Date(session.updatedAt);
    const title = session.title ?? session.sessionId;
    return h(
      "li",
      { class: `history-entry${isCurrent ? " current" : ""}`, "data-agent-session-id": session.sessionId },
      h("span", { class: "history-title", title: `${title} (${session.sessionId})` }, title),
      ...(when
        ? [h("time", { class: "meta", datetime: when.toISOString() }, when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }))]
        : []),
      ...(isCurrent ? [h("span", { class: "meta" }, "(this one)")] : [open]),
    );
  }
}
