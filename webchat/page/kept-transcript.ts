// The conversation as plain text for VS Code's panel: the panel
// keeps the latest copy in its own webview state and, after a window reload,
// shows it at once while this page loads and replays the conversation behind
// it. The first copy after the replay also tells the panel this page is on
// screen, so it can take its copy away. Sent only to the panel's own origin
// (bridge.ts: toPanel), only inside the panel; text only, bounded.

import { toPanel } from "./bridge.js";
import { CHAT_MESSAGE, MAX_KEPT_ENTRIES, MAX_KEPT_ENTRY_CHARS, type KeptEntry } from "../../webview/src/panel-messages.js";

/** While the transcript changes (an answer streams), one copy at most this often. */
const EVERY_MS = 1_000;

export class KeptTranscript {
  private replayed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `onScreen`: whether this transcript's tab is the one shown (only its copy is kept). */
  constructor(
    private readonly root: HTMLElement,
    private readonly onScreen: () => boolean = () => true,
  ) {
    if (window.parent === window) return; // a plain browser tab: no panel to keep it
    new MutationObserver(() => this.schedule()).observe(root, { childList: true, subtree: true, characterData: true });
  }

  /** The server's replay is in the DOM: once it is painted, the panel may show this page instead of its copy. */
  shown(): void {
    this.replayed = true;
    afterPaint(() => this.send());
  }

  /** The panel has spoken (bridge.ts): a copy made before could not be sent yet. */
  panelSpoke(): void {
    if (this.replayed) this.send();
  }

  private schedule(): void {
    if (this.replayed && this.timer === undefined) this.timer = setTimeout(() => this.send(), EVERY_MS);
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.onScreen()) return;
    toPanel({ type: CHAT_MESSAGE.transcript, entries: transcriptCopy(this.root) });
  }
}

/** The transcript's last blocks as text (innerText: the text as shown, Markdown already rendered). */
export function transcriptCopy(root: HTMLElement): KeptEntry[] {
  return [...root.children].slice(-MAX_KEPT_ENTRIES).flatMap((element) => {
    // A user's message as typed (not its buttons); the rest as shown.
    const shown = element.classList.contains("user") ? ((element as HTMLElement).dataset.text ?? "") : (element as HTMLElement).innerText;
    const text = shown.trim().slice(0, MAX_KEPT_ENTRY_CHARS);
    if (!text) return [];
    const role = element.classList.contains("user") ? "user" : element.classList.contains("agent") ? "agent" : "other";
    return [{ role, text }];
  });
}

/** After the next paint (or soon, where a hidden frame gets no animation frames). */
function afterPaint(callback: () => void): void {
  let done = false;
  const once = () => {
    if (!done) callback();
    done = true;
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 100);
}
