// The committed / provisional history of Symposium's Language Model Provider design. VS Code's language model API is
// stateless (every request carries the whole conversation); an ACP session is
// not. `committed` is what the agent's session holds and the consumer has
// confirmed; `provisional` is the exchange in flight: the user message(s) we
// last sent and the assistant parts we streamed back. A request that is
// committed + provisional + new user message(s) continues the session with the
// new messages only; anything else means the consumer rejected or rewrote the
// conversation: the provisional turn is discarded and a new session replays it.

import type { LmMessage, LmPart } from "./messages.js";

export type HistoryMatch =
  /** Send `newMessages` to the same session. */
  | { kind: "continue"; newMessages: LmMessage[] }
  /** Start a new session: `earlier` replayed as a transcript, then `newMessages`. */
  | { kind: "restart"; earlier: LmMessage[]; newMessages: LmMessage[] };

export class HistoryTracker {
  private committed: LmMessage[] = [];
  private provisional: { user: LmMessage[]; assistant: LmPart[] } | null = null;

  /** Compares a request's messages with what the session holds, and moves the state to the new exchange. */
  match(messages: readonly LmMessage[]): HistoryMatch {
    const expected = this.expected();
    const newMessages = trailingUserMessages(messages);
    const earlier = messages.slice(0, messages.length - newMessages.length);
    const continues =
      this.provisional !== null &&
      newMessages.length > 0 &&
      earlier.length === expected.length &&
      earlier.every((message, i) => sameMessage(message, expected[i]!));
    this.committed = [...earlier];
    this.provisional = { user: newMessages, assistant: [] };
    return continues ? { kind: "continue", newMessages } : { kind: "restart", earlier, newMessages };
  }

  /** A part we streamed to the consumer in the provisional turn. */
  recordAssistant(part: LmPart): void {
    this.provisional?.assistant.push(part);
  }

  /** Forgets everything: the next request starts a new session. */
  reset(): void {
    this.committed = [];
    this.provisional = null;
  }

  /** What a continuing request must start with: committed, then the provisional exchange. */
  private expected(): LmMessage[] {
    if (this.provisional === null) return this.committed;
    return [...this.committed, ...this.provisional.user, { role: "assistant", parts: this.provisional.assistant }];
  }
}

/** The user messages at the end of a conversation (a tool result counts as one: it is the consumer's answer). */
function trailingUserMessages(messages: readonly LmMessage[]): LmMessage[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role === "user") start--;
  return messages.slice(start);
}

/**
 * Same message as far as the conversation goes: role, text (whitespace at the
 * ends aside: consumers trim), tool calls by id and name, tool results by id.
 * Text parts are compared joined, since consumers may merge streamed chunks.
 */
export function sameMessage(a: LmMessage, b: LmMessage): boolean {
  return a.role === b.role && messageKey(a) === messageKey(b);
}

function messageKey(message: LmMessage): string {
  const text = message.parts
    .map((part) => (part.kind === "text" ? part.text : ""))
    .join("")
    .trim();
  const others = message.parts.flatMap((part) =>
    part.kind === "toolCall" ? [`call:${part.callId}:${part.name}`] : part.kind === "toolResult" ? [`result:${part.callId}`] : [],
  );
  return JSON.stringify([text, others]);
}
