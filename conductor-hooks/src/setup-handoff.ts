// What the setup agent (configuration-agent.ts) and a client that can open a
// new conversation agree on, in ACP's `_meta` fields. A client that says so in
// `initialize` gets the first-run choice as every other choice is made: the
// setup agent records it and ends the turn naming the agent and the question
// asked first; the client starts a new conversation with that agent and sends
// the question there, so the agent's own `initialize` answer (capabilities,
// modes, sign-in) reaches it. A client that does not say so (Toad, acpx) gets
// the chosen agent relayed in the same session (chosen-agent.ts).
//
// Only the conductor's own setup agent hands over: every chain whose agent is
// not it has the hand-over removed from every answer at its front
// (handOverGuard), and the setup agent removes it from what it relays of the
// chosen agent. The client takes a hand-over only from our own conductor, and
// sends as the first question only what its user typed (asTyped).
//
// Nor does an agent write any other key the conductor writes for the client
// (its notices, its MCP servers report): the guard in front of the agent
// removes every key in the conductor's namespaces from its answers before
// the conductor's components add their own (agentMetaGuard).
//
// Small and free of the SDK: the built-in chat's server imports it.

import { isObject, type WireMessage } from "../../acp-wire/src/jsonrpc.js";
import type { InProcessComponent } from "./router.js";

/** The setup agent's title in its `initialize` answer: the built-in chat knows the first-run menu by it. */
export const SETUP_AGENT_TITLE = "Symposium setup";

/** In `initialize`'s `clientCapabilities._meta`: true when the client opens a new conversation for a first-run choice. */
export const NEW_CONVERSATION_ON_CHOICE = "symposium.dev/newConversationOnChoice";

/** In the `_meta` of the answer to the `session/prompt` that chose. */
export const AGENT_CHOSEN = "symposium.dev/agentChosen";

/** The most of the first question carried over; a longer one is cut, and the user sees it before it is sent. */
const MAX_QUESTION_CHARS = 100_000;
/** An id longer than the agent lists take is no choice of theirs; a name is cut as the lists cut it. */
const MAX_ID_CHARS = 128;
const MAX_NAME_CHARS = 120;

export interface AgentChosen {
  /** The catalogue id recorded in the config file. */
  id: string;
  name: string;
  /** What the user asked while the menu was shown, for the chosen agent to answer. */
  firstQuestion?: string;
}

/** Whether the client named in these `initialize` params opens a new conversation for a first-run choice. */
export function opensNewConversation(initializeParams: unknown): boolean {
  if (!isObject(initializeParams) || !isObject(initializeParams.clientCapabilities)) return false;
  const meta = initializeParams.clientCapabilities._meta;
  return isObject(meta) && meta[NEW_CONVERSATION_ON_CHOICE] === true;
}

/** The choice an answer to `session/prompt` carries, when it carries a well-formed one. */
export function agentChosenIn(response: unknown): AgentChosen | undefined {
  if (!isObject(response) || !isObject(response._meta)) return undefined;
  const chosen = response._meta[AGENT_CHOSEN];
  if (!isObject(chosen) || typeof chosen.id !== "string" || typeof chosen.name !== "string") return undefined;
  if (chosen.id === "" || chosen.id.length > MAX_ID_CHARS) return undefined;
  const name = chosen.name.trim() === "" ? chosen.id : chosen.name.slice(0, MAX_NAME_CHARS);
  const question = typeof chosen.firstQuestion === "string" && chosen.firstQuestion.trim() !== "" ? chosen.firstQuestion : undefined;
  return { id: chosen.id, name, ...(question ? { firstQuestion: question.slice(0, MAX_QUESTION_CHARS) } : {}) };
}

/** `result` without the hand-over in its `_meta` (a copy), or null when it carries none. */
export function withoutHandOver(result: unknown): Record<string, unknown> | null {
  return withoutMetaKeys(result, (key) => key === AGENT_CHOSEN);
}

/**
 * The in-process component at the front of a chain whose agent is not the conductor's own setup agent: an answer
 * carrying the hand-over (any agent or proxy can write one, and call itself "Symposium setup") reaches the
 * client without it, and the log says so.
 */
export function handOverGuard(log: (message: string) => void): InProcessComponent {
  return {
    name: "hand-over guard",
    reviseAnswer: (answer: WireMessage) => {
      const result = withoutHandOver(answer.result);
      if (result === null) return null;
      log(`an answer carried the first-run hand-over (${AGENT_CHOSEN}), which only this conductor's own setup agent sends: removed`);
      return { ...answer, result };
    },
  };
}

/**
 * The namespaces of the `_meta` keys the conductor writes into answers for the client, which the chat shows in
 * Symposium's own voice: the notices (tools-not-started.ts), the MCP servers report (mcp-servers.ts), the hand-over.
 */
const CONDUCTOR_META_PREFIXES = ["symposium.dev/", "symposium/"];

const isConductorKey = (key: string): boolean => CONDUCTOR_META_PREFIXES.some((prefix) => key.startsWith(prefix));

/**
 * The in-process component directly in front of the agent: every answer of the agent reaches the components that
 * write the conductor's own keys (and so the client) without any key in their namespaces, so no agent has its
 * text shown as the conductor's. The hand-over is left to handOverGuard, at the front of every chain but the
 * setup agent's, which alone may send it.
 */
export function agentMetaGuard(log: (message: string) => void): InProcessComponent {
  const forged = (key: string): boolean => isConductorKey(key) && key !== AGENT_CHOSEN;
  return {
    name: "agent meta guard",
    reviseAnswer: (answer: WireMessage) => {
      const result = withoutMetaKeys(answer.result, forged);
      if (result === null) return null;
      const keys = metaKeys(answer.result).filter(forged).join(", ");
      log(`an answer of the agent carried ${keys} in its _meta, which only this conductor writes: removed`);
      return { ...answer, result };
    },
  };
}

function metaKeys(result: unknown): string[] {
  return isObject(result) && isObject(result._meta) ? Object.keys(result._meta) : [];
}

/** `result` without the `_meta` keys `drop` picks (a copy; `_meta` left out when nothing else is in it), or null when it has none. */
function withoutMetaKeys(result: unknown, drop: (key: string) => boolean): Record<string, unknown> | null {
  if (!isObject(result) || !isObject(result._meta)) return null;
  const entries = Object.entries(result._meta);
  if (!entries.some(([key]) => drop(key))) return null;
  const meta = Object.fromEntries(entries.filter(([key]) => !drop(key)));
  const { _meta: _all, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/**
 * The choice as the client acts on it: its first question only when it is exactly (but for the spaces around it)
 * one the user typed in the menu's turns, and then the user's own text; else without one. So nothing is sent in
 * the user's name that the user did not type.
 */
export function asTyped(chosen: AgentChosen, typed: readonly string[]): AgentChosen {
  const { firstQuestion, ...choice } = chosen;
  const own = firstQuestion === undefined ? undefined : typed.find((text) => text.trim() === firstQuestion.trim());
  return own === undefined ? choice : { ...choice, firstQuestion: own };
}
