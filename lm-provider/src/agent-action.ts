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
/** One path's most characters: longer than any real path, far shorter than what an agent may send. */
const MAX_PATH = 1024;
/** All paths' characters together: past it, the rest are left out. */
const MAX_PATHS_TOTAL = 4096;
/** ACP's tool kinds: any other word from the agent is left out. */
const TOOL_KINDS: ReadonlySet<string> = new Set(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]);
/**
 * The most the whole input takes as JSON (the tool call VS Code shows for confirmation), whatever the agent sent:
 * every character counted as a six-character escape at worst.
 */
export const MAX_AGENT_ACTION_INPUT_CHARS = 6 * (MAX_TITLE + 1 + MAX_PATHS_TOTAL + MAX_PATHS) + 256;

/** What the agent asks to do, each field bounded (whatever a hostile agent puts in its request) and without control characters. */
export function agentActionInput(request: RequestPermissionRequest): AgentActionInput {
  const call: Partial<RequestPermissionRequest["toolCall"]> = request.toolCall ?? {};
  // Only what can be shown is looked at: a 20 MB title costs no more than a short one.
  const title = typeof call.title === "string" ? oneLine(call.title.slice(0, 2 * MAX_TITLE)) : "";
  const kind = typeof call.kind === "string" && TOOL_KINDS.has(call.kind) ? call.kind : undefined;
  return { title: title === "" ? "an action of the agent" : cut(title, MAX_TITLE), ...(kind ? { kind } : {}), paths: boundedPaths(call.locations) };
}

/** At most MAX_PATHS paths of the agent's locations, each cut to MAX_PATH, all together within MAX_PATHS_TOTAL. */
function boundedPaths(locations: unknown): string[] {
  const paths: string[] = [];
  let total = 0;
  for (const location of Array.isArray(locations) ? locations.slice(0, MAX_PATHS) : []) {
    const named: unknown = (location as { path?: unknown } | null)?.path;
    if (typeof named !== "string") continue;
    const path = cut(oneLine(named.slice(0, MAX_PATH + 1)), MAX_PATH);
    if (path === "") continue;
    if (total + path.length > MAX_PATHS_TOTAL) break;
    total += path.length;
    paths.push(path);
  }
  return paths;
}

/** The text on one line: control characters (line breaks among them) as spaces, trimmed. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ").trim();
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Allowed: the agent's allow-once option (the user confirmed this one action, never more; an agent offering
 * only "always" is refused); refused: its reject-once option, else cancelled.
 */
export function permissionAnswer(request: RequestPermissionRequest, approved: boolean): RequestPermissionResponse {
  const option = request.options.find((each) => each.kind === (approved ? "allow_once" : "reject_once"));
  return option === undefined ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: option.optionId } };
}
