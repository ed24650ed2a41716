// The conversation as the core sees it: VS Code's language-model messages
// reduced to what the history matcher compares and what the agent is sent.

export type LmPart =
  { kind: "text"; text: string } | { kind: "toolCall"; callId: string; name: string; input: unknown } | { kind: "toolResult"; callId: string; text: string };

export interface LmMessage {
  role: "user" | "assistant";
  parts: LmPart[];
}

/** A tool the consumer offers with one request (VS Code's LanguageModelChatTool). */
export interface LmTool {
  name: string;
  description: string;
  inputSchema?: unknown;
}

/** A message's text parts joined (tool calls and results left out). */
export function messageText(message: LmMessage): string {
  return message.parts
    .filter((part): part is Extract<LmPart, { kind: "text" }> => part.kind === "text")
    .map((part) => part.text)
    .join("");
}

/**
 * The honest estimate provideTokenCount gives: about four characters per token
 * (what tokenizers of English and code average), rounded up. No tokenizer here:
 * the agent's model, and so its tokenizer, is unknown to us.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
