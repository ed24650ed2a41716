// A new session replays the conversation so far: ACP has no way to give a
// session earlier turns, so they go, as a transcript, in front of the new
// message in its first prompt.

import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { LmMessage, LmPart } from "./messages.js";

export function transcriptPrompt(earlier: readonly LmMessage[], newMessages: readonly LmMessage[]): ContentBlock[] {
  const latest = messagesText(newMessages);
  if (earlier.length === 0) return [{ type: "text", text: latest }];
  const turns = earlier.map((message) => `[${message.role}]\n${message.parts.map(partText).join("")}`).join("\n\n");
  return [
    {
      type: "text",
      text: `<conversation-so-far>\nThe conversation before this message, for context (do not answer it again):\n\n${turns}\n</conversation-so-far>\n\n${latest}`,
    },
  ];
}

/** Messages' parts as plain text, one paragraph per message. */
export function messagesText(messages: readonly LmMessage[]): string {
  return messages.map((message) => message.parts.map(partText).join("")).join("\n\n");
}

function partText(part: LmPart): string {
  if (part.kind === "text") return part.text;
  if (part.kind === "toolResult") return `\n[tool result for call ${part.callId}]\n${part.text}\n`;
  return `\n[called the tool ${part.name} (call ${part.callId}) with ${JSON.stringify(part.input)}]\n`;
}
