// What a user sees when an agent (or any chain component) cannot start or
// dies: which one, how it ended, the last lines it wrote to stderr, and what
// to try. One text for the JSON-RPC error's `data` and for the log, with a
// one-line `message` for clients that show only that.

import type { Readable, Writable } from "node:stream";
import { StderrTail, describeExit, describeSpawnError, followStderr } from "../../acp-wire/src/index.js";
import { chooseAgentHint, knownAgentFor, type KnownAgent } from "./agent-choices.js";
import { joinCommandLine } from "./config.js";

// The tail lives in acp-wire (the chat keeps one too); this chain's modules take it from here.
export { StderrTail };

/** Copies a child's stderr to `to` (ours), each line prefixed with its name, keeping the tail; resolves when it ends. */
export function relayStderr(stream: Readable, prefix: string, tail: StderrTail, to: Writable = process.stderr): Promise<void> {
  return followStderr(stream, tail, (line) => to.write(`${prefix}${line}\n`));
}

export type AgentEnd =
  | { kind: "exit"; code: number | null; signal: NodeJS.Signals | null }
  | { kind: "spawn-error"; error: NodeJS.ErrnoException }
  /** It closed its output but was still running when we gave up waiting for it. */
  | { kind: "output-closed" };

export interface AgentFailure {
  /** The name the user knows it by: "Claude Code", "agent", "proxy 1 (…)". */
  name: string;
  /** What it is, in front of its name: "agent 'Claude Code'", "component 'agent'". Default "agent". */
  role?: "agent" | "component";
  command: readonly string[];
  end: AgentEnd;
  stderrTail: readonly string[];
  /** The config file the command came from, when there is one. */
  configPath?: string;
  /** How to start the built-in demo agent, suggested as a fallback. */
  demoCommand?: string;
  /** Set in the setup session: the menu, not the file, is where another agent is chosen. */
  menuHint?: string;
  /** The conductor's environment (a client with an agent picker says so in it); default this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface FailureReport {
  /** One line: which component, how it ended, its last stderr line. */
  message: string;
  /** Everything, for the error's `data` (a client may show it) and the log. */
  data: { component: string; command: string[]; status: string; stderrTail: string[]; details: string };
}

export function describeAgentFailure(failure: AgentFailure): FailureReport {
  const status = describeEnd(failure);
  const lastLine = tellingLine(failure.stderrTail);
  const who = `${failure.role ?? "agent"} '${failure.name}'`;
  const known = knownRemedies({
    command: failure.command,
    text: [status, ...failure.stderrTail],
    notFound: failure.end.kind === "spawn-error" && failure.end.error.code === "ENOENT",
  });
  // A known cause leads: "could not download…" said first, not under "exited with code 2".
  const reason = known.cause ? `${known.cause.reason} (it ${status})` : `${status}${lastLine ? `: ${lastLine.trim()}` : ""}`;
  const message = `${who} ${reason}`;
  const details = [
    `${who} ${status}.`,
    `Command: ${joinCommandLine(failure.command)}`,
    ...(failure.stderrTail.length > 0 ? [`Last lines of its stderr:`, ...failure.stderrTail.map((line) => `  ${line}`)] : ["It wrote nothing to stderr."]),
    "What to try:",
    ...whatToTry(failure, known.tries),
    // Last, so that a client showing only the end of our stderr (the built-in chat keeps 12 lines) shows the cause.
    ...(lastLine ? [`In one line: ${message}`] : []),
  ].join("\n");
  return {
    message,
    data: { component: failure.name, command: [...failure.command], status, stderrTail: [...failure.stderrTail], details },
  };
}

const STACK_FRAME = /^\s+at\s/;
/** What Node prints after an uncaught error's frames: the error's own fields (`{ code: 'EACCES', … }`), then its version. */
const AFTER_FRAMES = /^\s|^[{}]|^Node\.js v\d/;

/**
 * The stderr line that says best what went wrong: the last one, unless the
 * tail ends in a stack trace (an uncaught Node error: its message, its frames,
 * its fields, "Node.js v20…"), whose message then stands just before its frames.
 */
function tellingLine(tail: readonly string[]): string | undefined {
  const written = tail.filter((line) => line.trim() !== "");
  let lastFrame = written.length - 1;
  while (lastFrame >= 0 && !STACK_FRAME.test(written[lastFrame]!)) {
    if (!AFTER_FRAMES.test(written[lastFrame]!)) return written[written.length - 1];
    lastFrame--;
  }
  let firstFrame = lastFrame;
  while (firstFrame > 0 && STACK_FRAME.test(written[firstFrame - 1]!)) firstFrame--;
  return written[firstFrame - 1] ?? written[written.length - 1];
}

export interface AgentError extends Omit<AgentFailure, "end" | "stderrTail"> {
  method: string;
  /** No session has opened yet: the known agent's remedies apply (a failure to start). */
  beforeSession?: boolean;
  error: { code: number; message: string; data?: unknown };
  /** What it wrote to stderr while the request was in flight. */
  stderrLines: readonly string[];
}

/**
 * An agent that answers with an internal error often says why only on its
 * stderr (an adapter whose CLI refused to start, say): the error is given
 * those lines, with the first one in its message. Null when it wrote nothing.
 */
export function explainAgentError(failure: AgentError): { code: number; message: string; data: { details: string } & Record<string, unknown> } | null {
  const written = failure.stderrLines.filter((line) => line.trim() !== "");
  const { error } = failure;
  const agentDetails = isRecord(error.data) && typeof error.data.details === "string" ? error.data.details : "";
  // Before its first session a known agent's failure gets its known remedy, whatever the error (explainStartError).
  const known = failure.beforeSession
    ? knownRemedies({ command: [failure.name, ...failure.command], text: [error.message, agentDetails, ...written], data: error.data })
    : { cause: null, tries: [] };
  if (written.length === 0 && known.tries.length === 0) return null;
  const who = `${failure.role ?? "agent"} '${failure.name}'`;
  const details = [
    `${who} answered ${failure.method} with: ${error.message}${agentDetails ? ` (${agentDetails})` : ""}.`,
    `Command: ${joinCommandLine(failure.command)}`,
    ...(written.length > 0 ? ["Meanwhile it wrote on stderr:", ...failure.stderrLines.map((line) => `  ${line}`)] : []),
    "What to try:",
    ...whatToTry(failure, known.tries),
  ].join("\n");
  // The first remedy in the one line too: a client may show only the message, or the panel may cut the rest.
  const said = known.cause
    ? `${known.cause.reason}. To fix: ${known.cause.remedy[0]!}`
    : written.length > 0
      ? `${who} wrote on stderr: ${written[0]!.trim()}`
      : null;
  return {
    code: error.code,
    message: said === null ? error.message : `${error.message.replace(/\.$/, "")}: ${said}`,
    data: { component: failure.name, agentError: { message: error.message, data: error.data }, stderrTail: [...failure.stderrLines], details },
  };
}

/** A cause a failure's own words show, in plain words, and what the user does about it. */
export interface KnownCause {
  reason: string;
  remedy: string[];
}

interface CauseRule {
  matches(text: string, data: unknown): boolean;
  cause: KnownCause;
}

/** Claude Code's own switch for a sandbox that runs as root on purpose (claude-agent-acp reads it). */
export const CLAUDE_SANDBOX_ENV = "IS_SANDBOX";

/** Causes the real agents' failures were seen with (docs/conductor.md: known failures), checked in this order. */
const KNOWN_CAUSES: readonly CauseRule[] = [
  {
    // claude-agent-acp answers session/new as root with "Internal error: --dangerously-skip-permissions cannot be
    // used with root/sudo privileges" and data.startupFailureReason "bypass_root", although no bypass was asked.
    matches: (text, data) => (isRecord(data) && data.startupFailureReason === "bypass_root") || text.includes("cannot be used with root/sudo privileges"),
    cause: {
      reason: "Claude Code does not start as root, and the chat runs its agents as root (the root user, or sudo)",
      remedy: [
        "run VS Code (or the chat) as a normal user, not root",
        `or, in a container or sandbox where running as root is intended, set ${CLAUDE_SANDBOX_ENV}=1 for the agent (Claude Code's own switch): in the environment VS Code starts with, or in the agent's "env" in the config`,
      ],
    },
  },
  {
    // codex-acp 0.16.0: "bubblewrap is unavailable: no system bwrap was found on PATH and no bundled …"; on WSL1
    // "Codex's Linux sandbox uses bubblewrap, which is not supported on WSL1".
    matches: (text) => /bubblewrap is unavailable|no system bwrap|sandbox uses bubblewrap/i.test(text),
    cause: {
      reason: "Codex's sandbox on Linux needs bubblewrap (bwrap), which is not installed here",
      remedy: ["install bubblewrap (Debian, Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; on WSL, use WSL 2), then send again"],
    },
  },
  {
    // npx, npm and the agents' own installers when the network or a proxy is in the way.
    matches: (text) =>
      /\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|ENETUNREACH)\b|network request to \S+ failed|fetch failed|(?:failed|unable) to download|could not download|cannot download/i.test(
        text,
      ),
    cause: {
      reason: "could not download what it needs (no network, or a proxy in the way)",
      remedy: [
        "check that this machine reaches the npm registry (`npm ping` in a terminal) and the agent's own servers; behind a proxy, set npm's (`npm config set proxy …`)",
        "then Retry",
      ],
    },
  },
];

export interface KnownRemedies {
  cause: KnownCause | null;
  /** What to try, first: the cause's remedy, then the known agent's own (install it, sign in, its tested version). */
  tries: string[];
}

/**
 * What is known of a failure before the first session: a cause its words show
 * (KNOWN_CAUSES), and for one of the known agents (agent-choices.ts) its own
 * remedies. `command` names the agent (its name or command line).
 */
export function knownRemedies(failure: { command: readonly string[]; text: readonly string[]; data?: unknown; notFound?: boolean }): KnownRemedies {
  const text = failure.text.join("\n");
  const cause = KNOWN_CAUSES.find((rule) => rule.matches(text, failure.data))?.cause ?? null;
  const agent = knownAgentFor(failure.command);
  return { cause, tries: [...(cause?.remedy ?? []).map((line) => `- ${line}`), ...knownAgentTries(agent, failure.command, cause, failure.notFound === true)] };
}

function knownAgentTries(agent: KnownAgent | null, command: readonly string[], cause: KnownCause | null, notFound: boolean): string[] {
  if (agent === null) return [];
  if (notFound && agent.install) return [`- ${agent.install}`];
  const tries = cause === null && agent.login ? [`- if ${agent.name} is not signed in: ${agent.login}`] : [];
  const pin = agent.pinned;
  const words = command.join(" ");
  if (pin && words.includes(pin.package) && !words.includes(`${pin.package}@`))
    tries.push(
      `- this command runs ${pin.package} with no version, so npx may run an old copy from its cache: choose ${agent.name} again in the agent picker to run ${pin.version}, the version Symposium was tested with`,
    );
  return tries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeEnd(failure: AgentFailure): string {
  const { end } = failure;
  if (end.kind === "spawn-error") return `could not start: ${describeSpawnError(failure.command[0] ?? "", end.error)}`;
  if (end.kind === "output-closed") return "closed its output";
  return describeExit(end.code, end.signal);
}

/** The known remedies (`known`) first, then the ways to look closer, then another agent. */
function whatToTry(failure: Omit<AgentFailure, "end" | "stderrTail">, known: readonly string[] = []): string[] {
  // In a chain, the agent is the component named "agent"; the others are proxies.
  const isAgent = failure.role !== "component" || failure.name === "agent";
  const chooser = chooseAgentHint(failure.env);
  // In the chat or VS Code the agent was chosen in a picker: no config file the user wrote, no conductor flags.
  const field = isAgent ? `"agent"` : `its "command"`;
  const where = failure.configPath && chooser === null ? ` (${field} in ${failure.configPath})` : "";
  const tries = [
    ...known,
    `- run the command${where} by hand in a terminal: it should start and wait for input, not exit or complain`,
    ...(chooser === null ? ["- start the conductor with --trace FILE (and SYMPOSIUM_LOG=debug) to see every message and log line"] : []),
  ];
  if (!isAgent) return tries;
  if (failure.menuHint) {
    tries.push(
      `- or choose another agent in the menu (${failure.menuHint}), such as the built-in demo agent: demo (it runs ${failure.demoCommand ?? "symposium-conductor demo-agent"})`,
    );
    return tries;
  }
  if (chooser !== null) {
    // In the chat (or VS Code) the agent is chosen there, not by editing the file.
    tries.push(`- or ${chooser}, such as the built-in demo agent (offline: it shows what it receives)`);
    return tries;
  }
  const how = failure.configPath ? `set "agent" in ${failure.configPath} to` : "use";
  tries.push(`- or, to check everything else works offline, ${how} the built-in demo agent: ${failure.demoCommand ?? "symposium-conductor demo-agent"}`);
  return tries;
}

/** ACP's "log in first" error code (the SDK's RequestError.authRequired). */
export const AUTH_REQUIRED_CODE = -32000;

export interface AdvertisedAuthMethod {
  id: string;
  name: string;
  description?: string;
  /** The environment variables an `env_var` method reads. */
  vars: string[];
}

/**
 * What an agent said about itself in its initialize answer (its name, how to
 * log in), kept to explain the errors it answers later: real adapters answer
 * a prompt or session/new before login with a bare "Authentication required".
 */
export class AgentNotes {
  name: string | null = null;
  authMethods: AdvertisedAuthMethod[] | null = null;

  /** True until the initialize answer was seen: until then answers carrying `"authMethods"` are read. */
  get waiting(): boolean {
    return this.authMethods === null;
  }

  observe(result: unknown): void {
    if (!isRecord(result) || !Array.isArray(result.authMethods)) return;
    this.authMethods = result.authMethods.filter(isRecord).map(authMethodInfo);
    const info = isRecord(result.agentInfo) ? result.agentInfo : {};
    const name = typeof info.title === "string" && info.title ? info.title : info.name;
    if (typeof name === "string" && name) this.name = name;
  }
}

function authMethodInfo(method: Record<string, unknown>): AdvertisedAuthMethod {
  const vars = Array.isArray(method.vars) ? method.vars.flatMap((entry) => (isRecord(entry) && typeof entry.name === "string" ? [entry.name] : [])) : [];
  return {
    id: scalarText(method.id),
    name: scalarText(method.name ?? method.id),
    ...(typeof method.description === "string" ? { description: method.description } : {}),
    vars,
  };
}

export interface AuthRequired {
  /** The connection's name ("agent"), used when the agent gave none. */
  componentName: string;
  command: readonly string[];
  notes: AgentNotes;
  error: { code: number; message: string; data?: unknown };
  /** How the user logs this agent in, when it is one the menu knows (agent-choices.ts). */
  login?: string;
  /** Another way out, said after the fix (the setup agent's "or type /agent to choose another agent"). */
  alsoTry?: string;
}

/**
 * An agent's "Authentication required" as the user needs it: which agent, how
 * it can be logged in (its authMethods), and what to do, in the one-line
 * message a chat shows, with everything in `data`.
 */
export function explainAuthRequired(failure: AuthRequired): { code: number; message: string; data: { details: string } & Record<string, unknown> } {
  const { notes, error } = failure;
  const who = `agent '${notes.name ?? failure.componentName}'`;
  const methods = (notes.authMethods ?? []).map((method) => (method.vars.length > 0 ? `${method.name} (set ${method.vars.join(", ")})` : method.name));
  const todo =
    failure.login ?? (methods.length > 0 ? `log in with one of: ${methods.join("; ")}` : "run the agent's own command line in a terminal and log in");
  const also = failure.alsoTry ? ` Or ${failure.alsoTry}.` : "";
  const message = `${error.message.replace(/\.$/, "")}: ${who} is not logged in. To fix: ${todo}; then start a new chat.${also}${methods.length > 0 ? ` Its login methods: ${methods.join("; ")}.` : ""}`;
  const details = [
    `${who} answered with: ${error.message.replace(/\.$/, "")}.`,
    `Command: ${joinCommandLine(failure.command)}`,
    methods.length > 0 ? `Its login methods (authMethods): ${methods.join("; ")}` : "It lists no login methods (authMethods is empty).",
    "What to try:",
    `- ${todo}`,
    "- then start a new chat",
    ...(failure.alsoTry ? [`- or ${failure.alsoTry}`] : []),
  ].join("\n");
  return {
    code: error.code,
    message,
    data: {
      agent: notes.name ?? failure.componentName,
      agentError: { message: error.message, data: error.data },
      authMethods: notes.authMethods ?? [],
      details,
    },
  };
}

/** A string or number as text; anything else (absent, an object) as "". */
function scalarText(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}
