// Serving one of the built-in agents (demo, configuration) on stdio with the
// ACP SDK's agent app, and the bits of prompt handling they share.

import { Readable, Writable } from "node:stream";
import { ndJsonStream, type AgentApp, type ContentBlock } from "@agentclientprotocol/sdk";
import { OPEN_TAG } from "../../editor-context-proxy/src/index.js";

export const PROTOCOL_VERSION = 1;

/** Serves `app` on this process's stdio until the client closes it. */
export async function serveOnStdio(app: AgentApp): Promise<void> {
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
  );
  await connection.closed;
}

/** What the user typed: the prompt's text blocks, without editor-context blocks. */
export function userText(prompt: ContentBlock[]): string {
  return prompt
    .filter((block): block is ContentBlock & { type: "text"; text: string } => block.type === "text")
    .map((block) => block.text)
    .filter((text) => !text.startsWith(OPEN_TAG))
    .join("\n")
    .trim();
}

export interface Notifier {
  notify(method: "session/update", params: unknown): Promise<void>;
}

/** Sends `text` as agent_message_chunk updates of at most `chunkSize` characters. */
export async function streamText(client: Notifier, sessionId: string, text: string, chunkSize = 80): Promise<void> {
  for (let start = 0; start < text.length; start += chunkSize) {
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: text.slice(start, start + chunkSize) } },
    });
  }
}
