// The agent's own view of its sessions (docs/webchat.md: sessions): a
// conversation that ends closes its agent session (`session/close`, when the
// agent offers it) so the agent can free it, and the agent's title for the
// session (`session_info_update`) names the conversation in the history.

import type { ClientConnection } from "@agentclientprotocol/sdk";
import type { Logger } from "../../acp-wire/src/index.js";
import type { TranscriptEvent } from "../page/protocol.js";
import { titleOf } from "./history.js";

/** How long an ending conversation waits for the agent to answer session/close before it stops the agent anyway. */
export const CLOSE_TIMEOUT_MS = 1_000;

/** Sends session/close and waits for the answer, at most CLOSE_TIMEOUT_MS; a refusal is only logged. */
export async function closeAgentSession(connection: ClientConnection, sessionId: string, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
  const closed = connection.agent.request("session/close", { sessionId }).then(
    () => undefined,
    (error: unknown) => log(`the agent did not close its session: ${(error as Error).message}`),
  );
  await Promise.race([closed, timeout]);
  clearTimeout(timer);
}

/** The agent's title for the session, when `event` is a session_info_update that sets one. */
export function agentTitle(event: TranscriptEvent): string | undefined {
  if (event.kind !== "update" || event.update.sessionUpdate !== "session_info_update") return undefined;
  const title = event.update.title;
  return typeof title === "string" && title.trim() !== "" ? titleOf(title) : undefined;
}
