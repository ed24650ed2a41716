// One page's websocket, as a conversation sees it: a page that attaches gets
// the replay first, in frames, each sent once the socket has handed the last
// one to the network; what happens meanwhile waits behind it, in order.
// `backlog` is what the conversation's back-pressure watches.

import { WebSocket } from "ws";

/** A frame of the replay is sent once less than this is still buffered for the page. */
export const SEND_LOW_WATER_BYTES = 256 * 1024;
const POLL_MS = 10;

export class PageLink {
  private waiting: string[] = [];
  private waitingChars = 0;
  private replaying = true;

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
