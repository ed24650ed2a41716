// One page's websocket, as a conversation sees it: a page that attaches gets
// the replay first, in frames, each sent once the socket has handed the last
// one to the network; what happens meanwhile waits behind it, in order.
// `backlog` is what the conversation's back-pressure watches.
// Views that replace each other (a running terminal's output) are not
// queued: a page with a backlog keeps only the latest of each, sent once it
// has taken what it had (before, terminals printing to a page that stopped
// reading grew the server by 18 MB a second).

import { WebSocket } from "ws";

/** A frame of the replay is sent once less than this is still buffered for the page. */
export const SEND_LOW_WATER_BYTES = 256 * 1024;
const POLL_MS = 10;

export class PageLink {
  private waiting: string[] = [];
  private waitingChars = 0;
  private replaying = true;
  private replayed: () => void = () => {};
  private readonly replayDone = new Promise<void>((resolve) => (this.replayed = resolve));
  /** The latest view of each key not yet sent, made when sent: the page gets only the newest. */
  private readonly latest = new Map<string, () => string>();
  private sendingLatest = false;

  constructor(readonly socket: WebSocket) {}

  /** Characters sent or queued for the page that it has not taken yet. */
  get backlog(): number {
    return this.socket.bufferedAmount + this.waitingChars;
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends now, ahead of anything queued (the greeting before the replay). */
  sendNow(frame: string): void {
    if (this.open) this.socket.send(frame);
  }

  /** Sends in order: after the replay, when one is under way. */
  send(frame: string): void {
    if (!this.replaying) return this.sendNow(frame);
    this.waiting.push(frame);
    this.waitingChars += frame.length;
  }

  /**
   * Sends a view that replaces the earlier one of `key`: now, when the page
   * keeps up; else only the latest view of each key, once the page has taken
   * what it had. `frame` makes the view's text when it is sent.
   */
  sendLatest(key: string, frame: () => string): void {
    if (!this.replaying && this.latest.size === 0 && this.socket.bufferedAmount < SEND_LOW_WATER_BYTES) return this.sendNow(frame());
    this.latest.delete(key); // re-inserted: the views go out in the order they last changed
    this.latest.set(key, frame);
    void this.sendLatestViews();
  }

  /** Forgets the unsent view of `key` (the final one follows in order). */
  dropLatest(key: string): void {
    this.latest.delete(key);
  }

  private async sendLatestViews(): Promise<void> {
    if (this.sendingLatest) return;
    this.sendingLatest = true;
    try {
      await this.replayDone;
      while (this.latest.size > 0 && this.open) {
        await this.drained();
        const oldest = this.latest.entries().next();
        if (oldest.done || !this.open) break;
        const [key, frame] = oldest.value;
        this.latest.delete(key);
        this.sendNow(frame());
      }
    } finally {
      this.sendingLatest = false;
      if (!this.open) this.latest.clear();
    }
  }

  /** Sends the replay's frames one by one as the page takes them, then what waited meanwhile. */
  async replay(frames: Iterable<string>): Promise<void> {
    for (const frame of frames) {
      await this.drained();
      if (!this.open) break;
      this.socket.send(frame);
    }
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingChars = 0;
    this.replaying = false;
    for (const frame of waiting) this.sendNow(frame);
    this.replayed();
  }

  /** Resolves once the socket's buffer is below the low-water mark, or it closed. */
  drained(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!this.open || this.socket.bufferedAmount < SEND_LOW_WATER_BYTES) resolve();
        else setTimeout(check, POLL_MS);
      };
      check();
    });
  }
}
