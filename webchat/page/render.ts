// Renders transcript events (webchat/page/protocol.ts) into the conversation
// view: streamed Markdown, collapsed thoughts, tool calls with their content
// and diffs, plans, permission requests with the agent's own options.

import { diffLines } from "diff";
import type { PermissionOption, TranscriptEvent } from "./protocol.js";
import { h, markdownFragment, MAX_MARKDOWN_CHARS, revealBidi, setMarkdown } from "./dom.js";
import { findSettledPart, startOfText, type Settled } from "./markdown-blocks.js";
import { showSignInDone, showSignInProgress, signInCard, type SignInActions } from "./signin.js";
import { TerminalOutputs } from "./terminal-view.js";
import { locationLinks, openDiffButton } from "./bridge.js";
import { shownPath } from "./project-path.js";
import { parseMentions } from "./mention-syntax.js";
import { markUndone, offerRewinds, turnChangesNote } from "./turn-changes.js";

/** At most one render of streaming text per frame. */
const FRAME_MS = 16;
/** The room left above a card shown from its title (the transcript's own padding). */
const CARD_MARGIN = 10;

/**
 * Settled blocks go into part containers of at most this many blocks; a full
 * part is closed and, off screen, skipped by layout and paint (style.css).
 */
const PART_BLOCKS = 24;

interface TextBlock {
  kind: string;
  element: HTMLElement;
  body: HTMLElement;
  text: string;
  /** The part of `text` rendered for good (markdown-blocks.ts), and how far it was scanned. */
  settled: Settled;
  /** The part container that takes the next settled blocks (undefined: open a new one). */
  openPart: HTMLElement | undefined;
  /** The last child of `body`: the part still streaming, re-rendered each time. */
  live: HTMLElement;
}

export class TranscriptView {
  private lastText: TextBlock | undefined;
  private readonly toolCalls = new Map<string, HTMLElement>();
  private readonly permissions = new Map<string, HTMLElement>();
  private readonly signIns = new Map<string, HTMLElement>();
  private readonly terminals: TerminalOutputs;
  /** The user's message shown the moment it was sent, until the server's copy of it arrives. */
  private pending: HTMLElement | undefined;
  private plan: HTMLElement | undefined;
  private renderQueued = new Set<TextBlock>();
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRenderAt = -Infinity;
  /** The agent forks sessions: the user's messages get Edit and resend (conversation-tab.ts). */
  editable = false;
  /** Whether the view follows new content: the user has not scrolled up from the end. */
  private following = true;
  /** Where `follow` last put the view: a scroll event above it is the user's, one at or below it ours. */
  private followedTo = 0;
  /** A card just added (a sign-in, a permission): `follow` shows it from its title. */
  private newCard: HTMLElement | undefined;
  /** The transcript's height when a card was shown from its title: the view stays there until more comes. */
  private heldAtHeight: number | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly answer: (id: string, optionId: string) => void,
    private readonly signIn: SignInActions = { authenticate: () => {}, resend: () => {}, retry: () => {}, cancel: () => {} },
  ) {
    this.terminals = new TerminalOutputs(root);
    // Read on scrolls only: reading the layout on every streamed chunk would force a layout per chunk.
    root.addEventListener("scroll", () => this.scrolled(), { passive: true });
  }

  /**
   * The browser reports a scroll a frame after it happened, when the answer
   * may have grown again (on a busy machine by several renders): a view that
   * is not at the end then is not the user leaving it. Only a view moved up
   * from where `follow` put it stops following; back at the end follows again.
   */
  private scrolled(): void {
    const root = this.root;
    if (root.scrollHeight - root.scrollTop - root.clientHeight < 40) this.following = true;
    else if (root.scrollTop < this.followedTo - 1) this.following = false;
  }

  clear(): void {
    this.root.replaceChildren();
    this.lastText = undefined;
    this.toolCalls.clear();
    this.permissions.clear();
    this.signIns.clear();
    this.terminals.clear();
    this.pending = undefined;
    this.plan = undefined;
    this.renderQueued.clear();
    clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    this.following = true;
    this.followedTo = 0;
    this.newCard = undefined;
    this.heldAtHeight = undefined;
  }

  /** Shows one event; one that cannot be shown becomes a note, and the events after it still show. */
  add(event: TranscriptEvent): void {
    try {
      this.render(event);
    } catch (error) {
      console.error("symposium: an event could not be shown:", error);
      this.lastText = undefined;
      this.append(h("div", { class: "meta render-error" }, `(this ${event.kind} could not be shown: ${(error as Error)?.message ?? String(error)})`));
    }
    this.follow();
  }

  /** Shows the user's message at once (optimistic); the server's "user" event then confirms it in place. */
  addPending(text: string, contextSkipped: boolean, images = 0): void {
    this.pending?.remove();
    this.lastText = undefined;
    this.plan = undefined;
    this.pending = userMessage(text, contextSkipped, images, this.editable);
    this.pending.classList.add("pending");
    this.append(this.pending);
    this.following = true; // the user just sent: show it, wherever they had scrolled
    this.follow();
  }

  /** The pending message will not be confirmed (the server refused the prompt). */
  dropPending(): void {
    this.pending?.remove();
    this.pending = undefined;
  }

  private follow(): void {
    const card = this.newCard;
    this.newCard = undefined;
    if (!this.following) return;
    const root = this.root;
    if (card === undefined && this.heldAtHeight === root.scrollHeight) return; // an event that showed nothing new
    this.heldAtHeight = undefined;
    const end = root.scrollHeight - root.clientHeight;
    // A card taller than the view (a small bottom panel) opens at its title, not at its last button.
    const cardTop = card ? card.getBoundingClientRect().top - root.getBoundingClientRect().top + root.scrollTop - CARD_MARGIN : end;
    root.scrollTop = Math.min(end, cardTop);
    if (cardTop < end) this.heldAtHeight = root.scrollHeight;
    this.followedTo = root.scrollTop;
  }

  private render(event: TranscriptEvent): void {
    switch (event.kind) {
      case "user": {
        this.lastText = undefined;
        this.plan = undefined;
        const pending = this.pending;
        this.pending = undefined;
        if (pending?.isConnected && pending.dataset.text === event.text) {
          pending.classList.remove("pending");
          pending.querySelector(".meta")?.remove();
          pending.append(...(event.contextSkipped ? [h("div", { class: "meta" }, "sent without editor context")] : []));
          this.root.append(pending); // after anything that arrived meanwhile, as the server ordered it
          return;
        }
        pending?.remove();
        this.append(userMessage(event.text, event.contextSkipped, event.images, this.editable));
        return;
      }
      case "signIn": {
        this.lastText = undefined;
        const card = signInCard(event, this.signIn);
        this.signIns.set(event.id, card);
        this.append(card);
        this.newCard = card;
        // Never take the keys from the editor; never scroll to the button either: follow() shows the card from its title.
        if (document.hasFocus()) card.querySelector<HTMLButtonElement>("button")?.focus({ preventScroll: true });
        return;
      }
      case "signInDone": {
        const card = this.signIns.get(event.id);
        if (card) showSignInDone(card, event);
        return;
      }
      case "signInProgress": {
        const card = this.signIns.get(event.id);
        if (card) showSignInProgress(card, event);
        return;
      }
      case "terminal":
        return this.terminals.update(event);
      case "update":
        return this.renderUpdate(event.update);
      case "permission":
        return this.renderPermission(event.id, event.title, event.options);
      case "permissionDone": {
        const card = this.permissions.get(event.id);
        if (!card) return;
        card.classList.add("answered");
        for (const button of card.querySelectorAll("button")) button.disabled = true;
        const chosen = event.optionId ? card.querySelector<HTMLElement>(`button[data-option-id="${CSS.escape(event.optionId)}"]`) : null;
        chosen?.classList.add("chosen");
        card.append(
          h("div", { class: "meta outcome" }, event.outcome === "cancelled" ? "Cancelled" : `Answered: ${chosen?.textContent ?? event.optionId ?? ""}`),
        );
        return;
      }
      case "turnChanges":
        this.append(turnChangesNote(event));
        return offerRewinds(this.root);
      case "turnUndone":
        markUndone(this.root, event);
        return offerRewinds(this.root);
      case "turnEnd":
        this.flushText(); // the answer is complete when the page says the agent is ready
        this.lastText = undefined;
        if (event.stopReason !== "end_turn")
          this.append(
            h(
              "div",
              { class: "meta turn-end", "data-stop-reason": event.stopReason },
              event.stopReason === "cancelled" ? "Turn cancelled." : `Turn ended: ${event.stopReason}.`,
            ),
          );
        return;
      case "error":
        this.lastText = undefined;
        this.append(
          h("div", { class: "error", role: "alert" }, h("div", {}, event.message), ...(event.detail?.length ? [h("pre", {}, event.detail.join("\n"))] : [])),
        );
        return;
      case "notice":
        if (event.promptRefused === true) this.dropPending(); // a prompt the server refused never becomes a message (the page queues its text again)
        this.append(h("div", { class: "meta notice" }, event.message));
        return;
    }
  }

  private renderUpdate(update: Record<string, unknown> & { sessionUpdate: string }): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
      case "user_message_chunk":
        return this.streamText(update.sessionUpdate, contentText(update.content));
      case "tool_call":
      case "tool_call_update":
        this.lastText = undefined;
        return this.renderToolCall(update);
      case "plan":
        return this.renderPlan(update.entries as Array<{ content: string; status: string; priority?: string }>);
      default:
        return; // modes and commands go to the toolbar; unknown updates are ignored.
    }
  }

  private streamText(kind: string, text: string): void {
    if (this.lastText?.kind !== kind) {
      const body = h("div", { class: "body markdown" });
      const element =
        kind === "agent_thought_chunk"
          ? h("details", { class: "thought" }, h("summary", {}, "Thinking"), body)
          : h("div", { class: `message ${kind === "user_message_chunk" ? "user" : "agent"}` }, body);
      const live = h("div", { class: "live" });
      body.append(live);
      this.lastText = { kind, element, body, text: "", settled: startOfText(), openPart: undefined, live };
      this.append(element);
    }
    this.lastText.text += text;
    this.queueMarkdown(this.lastText);
  }

  /**
   * Renders streaming text at once when the last render is a frame old (the
   * first chunk of an answer shows without delay), else at the end of that
   * frame, so a flood of chunks costs one render per frame.
   */
  private queueMarkdown(block: TextBlock): void {
    this.renderQueued.add(block);
    if (this.renderTimer !== undefined) return;
    const wait = this.lastRenderAt + FRAME_MS - performance.now();
    if (wait <= 0) return this.renderQueuedText();
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.renderQueuedText();
    }, wait);
  }

  private flushText(): void {
    clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    if (this.renderQueued.size > 0) this.renderQueuedText();
  }

  /** Renders what is queued; the "rendered" event says how long it took (detail.renderMs). */
  private renderQueuedText(): void {
    const started = performance.now();
    try {
      for (const block of this.renderQueued) renderStreamed(block);
    } finally {
      this.renderQueued.clear(); // a failed render is not retried on every later chunk
    }
    this.lastRenderAt = performance.now();
    this.follow();
    this.root.dispatchEvent(new CustomEvent("rendered", { detail: { renderMs: this.lastRenderAt - started } }));
  }

  private renderToolCall(update: Record<string, unknown>): void {
    const id = String(update.toolCallId);
    let card = this.toolCalls.get(id);
    if (!card) {
      card = h(
        "div",
        { class: "tool-call", "data-tool-call-id": id },
        h("div", { class: "tool-head" }, h("span", { class: "tool-kind" }), h("span", { class: "tool-title" }), h("span", { class: "tool-status" })),
        h("div", { class: "tool-content" }),
      );
      this.toolCalls.set(id, card);
      this.append(card);
    }
    const set = (selector: string, value: unknown) => {
      if (typeof value === "string") card.querySelector(selector)!.replaceChildren(...revealBidi(value));
    };
    set(".tool-kind", update.kind);
    set(".tool-title", update.title);
    if (typeof update.status === "string") {
      set(".tool-status", update.status.replace("_", " "));
      card.dataset.status = update.status;
    }
    if (Array.isArray(update.content)) card.querySelector(".tool-content")!.replaceChildren(...update.content.map((item) => toolContent(item, this.terminals)));
    if (Array.isArray(update.locations)) {
      card.querySelectorAll(".tool-location").forEach((link) => link.remove());
      card.querySelector(".tool-head")!.append(...locationLinks(update.locations)); // they open in VS Code (bridge.ts)
    }
  }

  private renderPlan(entries: Array<{ content: string; status: string; priority?: string }>): void {
    const list = h(
      "ol",
      { class: "plan" },
      ...entries.map((entry) =>
        h(
          "li",
          { class: `plan-entry ${entry.status}`, "data-status": entry.status },
          h("span", { class: "plan-status" }, statusMark(entry.status)),
          entry.content,
        ),
      ),
    );
    const element = h("div", { class: "plan-card" }, h("div", { class: "meta" }, "Plan"), list);
    if (this.plan?.isConnected) this.plan.replaceWith(element);
    else this.append(element);
    this.plan = element;
  }

  private renderPermission(id: string, title: string, options: PermissionOption[]): void {
    const buttons = options.map((option) => {
      const button = h(
        "button",
        { class: `permission-option ${option.kind}`, "data-option-id": option.optionId, "data-kind": option.kind },
        ...revealBidi(option.name),
      );
      button.addEventListener("click", () => this.answer(id, option.optionId));
      return button;
    });
    const card = h(
      "div",
      { class: "permission", "data-permission-id": id },
      h("div", { class: "permission-title" }, ...revealBidi(title)),
      h("div", { class: "permission-options" }, ...buttons),
    );
    this.permissions.set(id, card);
    this.lastText = undefined;
    this.append(card);
    this.newCard = card;
    if (document.hasFocus()) buttons[0]?.focus({ preventScroll: true }); // never take the keys from the editor; follow() shows the card
  }

  private append(element: HTMLElement): void {
    this.root.append(element);
  }
}

/**
 * Renders the newly settled part of a streaming message once, into the open
 * part container, then the part after it into the live container. A render
 * touches only the open part and the live tail: closed parts keep their
 * layout, and off screen they are skipped (content-visibility in style.css).
 */
function renderStreamed(block: TextBlock): void {
  // Text that settled at once (a long message in one chunk) renders in parts within the size cap.
  for (;;) {
    const settled = findSettledPart(block.text, block.settled, MAX_MARKDOWN_CHARS);
    const text = block.text.slice(block.settled.end, settled.end);
    block.settled = settled;
    if (text === "") break;
    appendSettled(block, markdownFragment(text));
  }
  block.live.replaceChildren(markdownFragment(block.text.slice(block.settled.end)));
}

function appendSettled(block: TextBlock, fragment: DocumentFragment): void {
  let part = block.openPart;
  if (part === undefined || part.childElementCount >= PART_BLOCKS) {
    part?.classList.add("closed");
    part = h("div", { class: "part" });
    block.live.before(part);
    block.openPart = part;
  }
  part.append(fragment);
}

function contentText(content: unknown): string {
  const block = content as { type?: string; text?: string; uri?: string; name?: string } | undefined;
  if (block?.type === "text") return block.text ?? "";
  // A name may hold Markdown's own characters (`[draft] notes.md`): escaped, so the link stays one link.
  if (block?.type === "resource_link") return `[${(block.name ?? block.uri ?? "").replace(/[\\[\]*_`<>]/g, "\\$&")}](<${block.uri}>)`;
  return block?.type ? `*[${block.type} content]*` : "";
}

function userMessage(text: string, contextSkipped: boolean, images = 0, editable = false): HTMLElement {
  const element = h(
    "div",
    { class: "message user" },
    h("div", { class: "body" }, ...withMentions(text)),
    // The images went to the agent only: the transcript and the history keep how many.
    ...(images > 0 ? [h("div", { class: "images" }, images === 1 ? "with 1 image" : `with ${images} images`)] : []),
    ...(contextSkipped ? [h("div", { class: "meta" }, "sent without editor context")] : []),
    // Only where the agent forks sessions; shown while the conversation can fork (data-can-fork, tabs.css).
    ...(editable
      ? [
          h(
            "button",
            { class: "edit-resend", hidden: "", title: "Edit this message and send it in a fork of this conversation (a new tab)" },
            "Edit and resend",
          ),
        ]
      : []),
  );
  element.dataset.text = text;
  return element;
}

/** The user's text with each `@` mention (mention-syntax.ts) in its own span; the tooltip names the file and lines. */
function withMentions(text: string): Array<Node | string> {
  const parts: Array<Node | string> = [];
  let from = 0;
  for (const mention of parseMentions(text)) {
    const lines = mention.start === undefined ? "" : mention.end === mention.start ? `, line ${mention.start}` : `, lines ${mention.start}-${mention.end}`;
    parts.push(text.slice(from, mention.index));
    parts.push(h("span", { class: "mention", title: `${mention.path}${lines}` }, text.slice(mention.index, mention.index + mention.length)));
    from = mention.index + mention.length;
  }
  parts.push(text.slice(from));
  return parts;
}

function toolContent(item: unknown, terminals: TerminalOutputs): HTMLElement {
  const entry = item as { type: string; content?: unknown; path?: string; oldText?: string | null; newText?: string; terminalId?: string };
  if (entry.type === "diff") return renderDiff(entry.path ?? "", entry.oldText ?? "", entry.newText ?? "");
  if (entry.type === "content") {
    const body = h("div", { class: "markdown" });
    setMarkdown(body, contentText(entry.content));
    return body;
  }
  if (entry.type === "terminal" && typeof entry.terminalId === "string") return terminals.element(entry.terminalId);
  return h("div", { class: "meta" }, `(${entry.type})`);
}

function renderDiff(file: string, oldText: string, newText: string): HTMLElement {
  const lines: HTMLElement[] = [];
  for (const part of diffLines(oldText, newText)) {
    const sign = part.added ? "+" : part.removed ? "-" : " ";
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    for (const line of part.value.replace(/\n$/, "").split("\n")) lines.push(h("div", { class: `diff-line ${kind}` }, `${sign} `, ...revealBidi(line)));
  }
  // Project-relative, as the locations; the full path in the tooltip.
  const head = h("div", { class: "diff-file", title: file }, ...revealBidi(shownPath(file)), ...openDiffButton(file, oldText, newText));
  return h("div", { class: "diff" }, head, h("pre", {}, ...lines));
}

function statusMark(status: string): string {
  return status === "completed" ? "✓" : status === "in_progress" ? "▸" : "○";
}
