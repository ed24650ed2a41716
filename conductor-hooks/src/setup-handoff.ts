// What the setup agent (configuration-agent.ts) and a client that can open a
// new conversation agree on, in ACP's `_meta` fields. A client that says so in
// `initialize` gets the first-run choice as every other choice is made: the
// setup agent records it and ends the turn naming the agent and the question
// asked first; the client starts a new conversation with that agent and sends
// the question there, so the agent's own `initialize` answer (capabilities,
// modes, sign-in) reaches it. A client that does not say so (Toad, acpx) gets
// the chosen agent relayed in the same session (chosen-agent.ts).
//
// Small and free of the SDK: the built-in chat's server imports it.

import { isObject } from "../../acp-wire/src/jsonrpc.js";

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
