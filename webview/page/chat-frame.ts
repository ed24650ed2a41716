// The chat's iframe as the panel page talks to it: messages go to the chat's
// own origin only, and a message counts as the chat's only when it comes from
// that frame's window and origin. Mentions that come before the chat page has
// loaded wait for it.

import { CHAT_MESSAGE, CHORD_COMMANDS, type ToChat } from "../src/panel-messages.js";

export class ChatFrame {
  private loaded = false;
  private readonly waiting: ToChat[] = [];
  private readonly origin: string;

  /** `onLoad`: the chat page (re)loaded, after the frame has been handed the chords and what waited. */
  constructor(
    readonly element: HTMLIFrameElement,
    onLoad: () => void,
  ) {
    // The page names the chat's address in data-src and the frame loads it only now, once its
    // `load` is listened to: a chat page that loaded before this script ran would never be seen to.
    const address = element.dataset.src ?? element.src;
    this.origin = new URL(address).origin;
    element.addEventListener("load", () => {
      this.loaded = true;
      this.post({ type: CHAT_MESSAGE.chords, chords: Object.keys(CHORD_COMMANDS) });
      this.waiting.splice(0).forEach((message) => this.post(message));
      onLoad();
      if (document.hasFocus()) this.focus();
    });
    if (element.dataset.src !== undefined) element.src = address;
  }

  get hasLoaded(): boolean {
    return this.loaded;
  }

  /** Whether `event` came from the chat page itself (its window and its origin). */
  sent(event: MessageEvent<unknown>): boolean {
    return event.source === this.element.contentWindow && event.origin === this.origin;
  }

  post(message: ToChat): void {
    this.element.contentWindow?.postMessage(message, this.origin);
  }

  /** Posts now, or once the chat page has loaded. */
  postWhenLoaded(message: ToChat): void {
    if (this.loaded) this.post(message);
    else this.waiting.push(message);
  }

  /** Hands the keyboard to the chat, when it is on screen. */
  focus(): void {
    if (this.element.hidden) return;
    this.element.focus();
    this.element.contentWindow?.focus();
    this.post({ type: CHAT_MESSAGE.focus });
  }
}
