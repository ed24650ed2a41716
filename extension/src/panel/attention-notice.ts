// What the chat's notifications say, and which reports are one occasion (the
// same conversation shows in the view and in an editor tab: each page reports
// what it sees). Without `vscode`, so it is tested directly; chat-attention.ts
// shows them.

import type { AttentionReason } from "../../../webview/src/panel-messages.js";
import { noticeText } from "../notice-text.js";

/** Reports of a turn's end this close together are one (they carry no id: two surfaces, one turn). */
export const SAME_TURN_MS = 2000;
/** Occasions remembered, newest last: enough for every surface of one window. */
const KEPT_KEYS = 64;
/** An agent's name in the notification: as long as the agent lists take. */
const MAX_NAME = 120;

/**
 * The notification's text. The agent's name is the agent's own word, and VS Code reads
 * `[text](link)` in a notification as a link: the name goes through noticeText (notice-text.ts),
 * so no agent can put a link (a `command:` one) there.
 */
export function attentionMessage(reason: AttentionReason, agentName: string | undefined): string {
  const name = noticeText(agentName ?? "", MAX_NAME) || "The agent";
  switch (reason) {
    case "turnEnded":
      return `${name} has finished its turn.`;
    case "permission":
      return `${name} asks for your permission.`;
    case "question":
      return `${name} has a question for you.`;
    case "signIn":
      return `${name} asks you to sign in.`;
  }
}

/** Tells whether a report is a new occasion: one not reported already by another surface. */
export class AttentionOccasions {
  private readonly keys: string[] = [];
  private readonly lastTurnEnd = new Map<AttentionReason, number>();

  isNew(reason: AttentionReason, key: string | undefined, now: number): boolean {
    if (key !== undefined) {
      if (this.keys.includes(key)) return false;
      this.keys.push(key);
      if (this.keys.length > KEPT_KEYS) this.keys.shift();
      return true;
    }
    const last = this.lastTurnEnd.get(reason);
    this.lastTurnEnd.set(reason, now);
    return last === undefined || now - last >= SAME_TURN_MS;
  }
}
