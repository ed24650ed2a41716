// The agent's own sessions (`session/list`, docs/webchat.md: the agent's
// sessions), one page at a time for History: whatever the agent answers, a page
// holds at most PAGE_LIMIT entries with bounded fields, so an agent listing
// 100,000 sessions in one answer costs the page no more than a short list.

import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import type { AgentSessionEntry } from "../page/protocol.js";

/** The most entries of one page shown (the rest of an oversized page is said to be left out). */
export const PAGE_LIMIT = 200;
const MAX_ID = 256;
const MAX_TITLE = 200;
const MAX_CURSOR = 4096;

export interface AgentSessionPage {
  sessions: AgentSessionEntry[];
  nextCursor?: string;
  /** How many entries of the agent's page were left out (over PAGE_LIMIT, or malformed). */
  leftOut: number;
}

/** The agent's answer made safe to show: bounded, checked fields only. */
export function agentSessionPage(response: ListSessionsResponse | null | undefined): AgentSessionPage {
  const listed: unknown[] = Array.isArray(response?.sessions) ? response.sessions : [];
  const sessions: AgentSessionEntry[] = [];
  for (const session of listed.slice(0, PAGE_LIMIT)) {
    const entry = sessionEntry(session);
    if (entry) sessions.push(entry);
  }
  const cursor = response?.nextCursor;
  return {
    sessions,
    ...(typeof cursor === "string" && cursor !== "" && cursor.length <= MAX_CURSOR ? { nextCursor: cursor } : {}),
    leftOut: listed.length - sessions.length,
  };
}

function sessionEntry(session: unknown): AgentSessionEntry | null {
  const { sessionId, title, updatedAt } = (session ?? {}) as { sessionId?: unknown; title?: unknown; updatedAt?: unknown };
  // The same check as an id the page asks to reopen: one with control characters is no id to show or reopen.
  if (!isAgentSessionId(sessionId)) return null;
  const when = typeof updatedAt === "string" ? Date.parse(updatedAt) : NaN;
  return {
    sessionId,
    ...(typeof title === "string" && title.trim() !== "" ? { title: title.trim().slice(0, MAX_TITLE) } : {}),
    ...(Number.isFinite(when) ? { updatedAt: when } : {}),
  };
}

/** An agent session id a page may ask to reopen (the `reopen-agent` query parameter). */
export function isAgentSessionId(value: unknown): value is string {
  // eslint-disable-next-line no-control-regex
  return typeof value === "string" && value !== "" && value.length <= MAX_ID && !/[\u0000-\u001f\u007f]/.test(value);
}
