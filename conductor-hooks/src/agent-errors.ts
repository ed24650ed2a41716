// The agent's errors explained: a component of the chain, just in front of
// the agent, that sees each answer the agent gives. It keeps what the agent's
// initialize answer says of it (its name, how to log in) and replaces two
// errors that say too little: a bare "Internal error" gets what the agent
// wrote on stderr meanwhile, any error before the first session gets a known
// agent's known remedy (running as root, bubblewrap, a download, signing in),
// and "Authentication required" gets which agent and how to log in
// (agent-failure.ts words them). Every other answer passes as it came.

import { ERROR, isObject, type Logger, type StderrTail, type WireMessage } from "../../acp-wire/src/index.js";
import { AUTH_REQUIRED_CODE, AgentNotes, explainAgentError, explainAuthRequired } from "./agent-failure.js";
import { chooseAgentHint, knownAgentFor } from "./agent-choices.js";
import type { InProcessComponent } from "./router.js";

export const AGENT_ERRORS_COMPONENT = "agent-errors";

/** The agent as the explanations name it: its connection's name, its command line, and its stderr as it is read. */
export interface ExplainedAgent {
  name: string;
  command: readonly string[];
  stderrTail: StderrTail;
}

interface AgentErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export function agentErrorsComponent(agent: ExplainedAgent, env: NodeJS.ProcessEnv, log: Logger): InProcessComponent {
  const notes = new AgentNotes();
  /** Where the agent's stderr stood at its last answer: an error is explained by what it wrote since. */
  let stderrMark = 0;
  /** A session opened: from then on an error is the agent's to word (a failure to start is ours to explain). */
  let sessionOpened = false;
  const explain = (answer: WireMessage): WireMessage | null => {
    if ("result" in answer) {
      if (notes.waiting) notes.observe(answer.result);
      if (isObject(answer.result) && typeof answer.result.sessionId === "string") sessionOpened = true;
      return null;
    }
    const error = answer.error;
    if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string") return null;
    const said = { code: error.code, message: error.message, data: error.data };
    const explained = explainError(agent, notes, said, { stderrMark, beforeSession: !sessionOpened }, env, log);
    return explained === null ? null : { jsonrpc: "2.0", id: answer.id, error: explained };
  };
  return {
    name: AGENT_ERRORS_COMPONENT,
    reviseAnswer: (answer) => {
      const revised = explain(answer);
      stderrMark = agent.stderrTail.total;
      return revised;
    },
  };
}

/** The error with what the user needs to act on it, or null to pass it as it is. */
function explainError(
  agent: ExplainedAgent,
  notes: AgentNotes,
  error: AgentErrorObject,
  when: { stderrMark: number; beforeSession: boolean },
  env: NodeJS.ProcessEnv,
  log: Logger,
): ReturnType<typeof explainAgentError> {
  // An error that already says what to do (data.details: the setup agent relaying its chosen agent's) passes as it is.
  const explainedAlready = isObject(error.data) && typeof error.data.details === "string" && error.data.details.includes("What to try:");
  const bare = error.code === ERROR.internal.code && error.message === ERROR.internal.message;
  if (error.code !== AUTH_REQUIRED_CODE && !explainedAlready && (bare || when.beforeSession)) {
    // A bare "Internal error" often has its reason only on the agent's stderr (an adapter whose CLI could not start);
    // before the first session, a known agent's failure gets its known remedy (agent-failure.ts: knownRemedies).
    const explained = explainAgentError({
      name: notes.name ?? agent.name,
      command: agent.command,
      method: "a request",
      error,
      stderrLines: agent.stderrTail.since(when.stderrMark),
      beforeSession: when.beforeSession,
      env,
    });
    if (explained !== null) log(explained.data.details);
    return explained;
  }
  if (error.code !== AUTH_REQUIRED_CODE || explainedAlready || (isObject(error.data) && typeof error.data.details === "string")) return null;
  // Its own name first: the command may start with a wrapper (runuser, env) whose words mention others.
  const login = (knownAgentFor([notes.name ?? ""]) ?? knownAgentFor(agent.command))?.login;
  const chooser = chooseAgentHint(env);
  const explained = explainAuthRequired({
    componentName: agent.name,
    command: agent.command,
    notes,
    error,
    ...(login ? { login } : {}),
    ...(chooser ? { alsoTry: chooser } : {}),
  });
  log(explained.data.details);
  return explained;
}
