// The agent's own permission requests (`session/request_permission`: run a
// command, edit a file) as a call of one tool the consumer sees,
// `symposium-agent-action`. The extension registers that tool; VS Code asks
// the user to confirm a tool before it runs it, and the tool's result is the
// one answer that allows the action. Only the call this provider made counts:
// a result for any other call, or a refusal, leaves the agent refused.

import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";

/** The tool's name, as package.json contributes it and the extension registers it. */
export const AGENT_ACTION_TOOL = "symposium-agent-action";

/** What the tool answers once the user confirmed it: the one result that allows the agent's action. */
export const AGENT_ACTION_APPROVED = "approved: the user allowed the agent's action once";

/** The call's input: what the agent wants to do, in bounded fields (an agent's title can be anything). */
export interface AgentActionInput {
  title: string;
  kind?: string;
  /** The files the action touches, as the agent names them. */
  paths: string[];
}

const MAX_TITLE = 500;
const MAX_PATHS = 20;

export function agentActionInput(request: RequestPermissionRequest): AgentActionInput {
  const call = request.toolCall;
  const title = typeof call.title === "string" && call.title.trim() !== "" ? call.title.trim() : "an action of the agent";
  const paths = (call.locations ?? []).map((location) => location.path).slice(0, MAX_PATHS);
  return { title: title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE)}…` : title, ...(call.kind ? { kind: call.kind } : {}), paths };
}

/**
 * Allowed: the agent's allow-once option (the user confirmed this one action, never more; an agent offering
 * only "always" is refused); refused: its reject-once option, else cancelled.
 */
export function permissionAnswer(request: RequestPermissionRequest, approved: boolean): RequestPermissionResponse {
  const option = request.options.find((each) => each.kind === (approved ? "allow_once" : "reject_once"));
  return option === undefined ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: option.optionId } };
}
