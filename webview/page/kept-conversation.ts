// The chat page's latest copy of its conversation (text only), kept in this
// webview's state, which VS Code keeps across window reloads: after a reload
// the panel shows it at once, while the extension checks the host and the
// chat page loads behind it, until the chat page has shown the conversation
// itself (its first copy comes then; a page that sends none, such as Toad's,
// is taken to be on screen a while after it loaded).

import { keptEntries, type KeptEntry } from "../src/panel-messages.js";

/** A chat page that never sends a copy is shown this long after it loaded. */
const WAIT_FOR_COPY_MS = 3000;

/** The panel's copy of the chat's conversation, shown while the chat reconnects after a reload. */
export class ConversationCopy {
  private entries: KeptEntry[];
  /** Whether the status puts the chat on screen (ready, or a restart that keeps it). */
  private chatWanted = false;
  /** Whether the chat page in the frame has shown its conversation. */
  private chatShown = false;
  private readonly view: HTMLElement;

  /** Shown in place of the chat, before `before` (the chat's frame). */
  constructor(
    private readonly store: VsCodeWebviewApi,
    before: Node | null,
  ) {
    const saved = store.getState();
    this.entries = keptEntries(typeof saved === "object" && saved !== null ? (saved as { kept?: unknown }).kept : undefined);
    this.view = document.createElement("section");
    this.view.id = "kept";
    this.view.setAttribute("aria-label", "The conversation, as it was (the chat is reconnecting)");
    this.view.hidden = true;
    document.body.insertBefore(this.view, before);
  }

  /** What a ready chat whose page is still loading says: a kept copy under it means it reconnects. */
  get loadingLine(): string {
    return this.entries.length > 0 ? "Reconnecting to the chat…" : "Starting the chat…";
  }

  /** The status wants the chat on screen, or not; a chat that starts afresh is a new conversation: the copy is not its own. */
  wantChat(wanted: boolean, afresh: boolean): void {
    if (afresh) this.save([]);
    this.chatWanted = wanted;
    this.update();
  }

  /** The chat page loaded: its copy comes once it has replayed the conversation. */
  chatLoaded(): void {
    this.store.setState({ kept: [] }); // until the page sends its own copy, a reload finds none that may be stale
    setTimeout(() => this.onScreen(), WAIT_FOR_COPY_MS);
  }

  /** The chat page's copy: kept for the next reload; it also says the page is on screen. */
  replace(entries: KeptEntry[]): void {
    this.save(entries);
    this.onScreen();
  }

  private onScreen(): void {
    this.chatShown = true;
    this.update();
  }

  private save(entries: KeptEntry[]): void {
    this.entries = entries;
    this.store.setState({ kept: entries });
  }

  /** Shows the copy while the chat is wanted but not on screen yet. */
  private update(): void {
    const show = this.entries.length > 0 && this.chatWanted && !this.chatShown;
    if (show && this.view.childElementCount === 0) this.draw();
    this.view.hidden = !show;
    document.body.classList.toggle("keeping", show);
  }

  private draw(): void {
    this.view.replaceChildren(
      ...this.entries.map((entry) => {
        const block = document.createElement("div");
        block.className = `kept-entry ${entry.role}`;
        block.textContent = entry.text;
        return block;
      }),
    );
    // The chat page follows the end of the conversation; so does its copy.
    requestAnimationFrame(() => (this.view.scrollTop = this.view.scrollHeight));
  }
}
