// What the user may want to be told when they are not looking at the chat: the
// agent finished its turn, or it waits for them (a permission, a question, a
// sign-in). The page only says so to VS Code's panel (bridge.ts's toPanel); the extension
// decides whether to notify (extension/src/panel/chat-attention.ts: only while the chat
// is out of view or the window has no focus, and the setting allows it). Live
// events only: a replay is the past, already seen or not.

import { CHAT_MESSAGE, type AttentionReason, type FromChat } from "../../webview/src/panel-messages.js";
import type { TranscriptEvent } from "./protocol.js";

export type { AttentionReason };

export interface Attention {
  reason: AttentionReason;
  /**
   * Names this one occasion, so the same event shown in two surfaces (the view and an editor tab)
   * is told once. A turn's end has no id of its own: the extension then counts close ones as one.
   */
  key?: string;
}

/**
 * What a live event asks of the user's attention, if anything. `queued`: messages wait to go
 * after this turn, so the turn's end is not the agent being done. A cancelled turn is the
 * user's own doing. `conversation` scopes the key (the server numbers requests per session).
 */
export function attentionFor(event: TranscriptEvent, queued: number, conversation: string): Attention | null {
  const key = (id: string): string => `${conversation}/${id}`.replace(/[^A-Za-z0-9_:/.-]/g, "_").slice(-200);
  switch (event.kind) {
    case "turnEnd":
      return event.stopReason === "cancelled" || queued > 0 ? null : { reason: "turnEnded" };
    case "permission":
      return { reason: "permission", key: key(event.id) };
    case "elicitation":
      return { reason: "question", key: key(event.id) };
    case "signIn":
      return { reason: "signIn", key: key(event.id) };
    default:
      return null;
  }
}

/** The bridge request telling VS Code's panel, or null when the event asks nothing (no DOM here: tested in Node). */
export function attentionRequest(event: TranscriptEvent, queued: number, conversation: string): FromChat | null {
  const attention = attentionFor(event, queued, conversation);
  return attention ? { type: CHAT_MESSAGE.request, request: { kind: "attention", ...attention } } : null;
}
