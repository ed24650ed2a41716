// The built-in agents (the four Symposium's design names, then the built-in demo agent), how a
// typed answer or a name picks one of them, and where a user is told to
// choose another. The catalogue (catalogue.ts) lists them with the rest. No
// ACP SDK here: `run` uses this before any agent starts.

import { joinCommandLine } from "./config.js";

export interface KnownAgent {
  name: string;
  /** What to type (or pass to --agent-choice / SYMPOSIUM_AGENT) to pick it. */
  shortName: string;
  command: string;
  /** How a user logs this agent in, for the error it answers before they have (agent-failure.ts). */
  login?: string;
  /**
   * The ACP registry's ids for this same agent (older or newer adapters of it): the catalog lists the agent
   * once, as this entry (registry.ts), so the picker never shows "Claude Code" twice or "Codex" beside "Codex CLI".
   */
  registryIds?: readonly string[];
}

/** The environment variable that names the agent when there is no config file and no menu can be answered. */
export const AGENT_CHOICE_ENV = "SYMPOSIUM_AGENT";

/** Set to "1" by the built-in chat for the agents it runs when it shows the agent picker in its header. */
export const AGENT_PICKER_ENV = "SYMPOSIUM_AGENT_PICKER";

/**
 * Where the user chooses another agent when the chat they talk in offers a
 * picker (AGENT_PICKER_ENV): said instead of "edit the config file". Null:
 * only the file (a terminal, Toad, acpx).
 */
export function chooseAgentHint(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env[AGENT_PICKER_ENV] !== "1") return null;
  return "choose another agent with the agent picker in the chat's header (in VS Code also the command Symposium: Choose Agent)";
}

/** The four agents Symposium's design names, in its order. */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  // The adapters' current npm names (checked with `npm view`, docs/interop.md): Zed's claude-code-acp is now
  // @agentclientprotocol/claude-agent-acp, and Gemini CLI's --experimental-acp is now --acp.
  {
    name: "Claude Code",
    shortName: "claude",
    command: "npx -y @agentclientprotocol/claude-agent-acp",
    login: "run `claude` in a terminal and log in with /login, or set ANTHROPIC_API_KEY",
    registryIds: ["claude-code-acp", "claude-agent-acp", "claude-acp"],
  },
  {
    name: "Gemini CLI",
    shortName: "gemini",
    command: "npx -y -- @google/gemini-cli@latest --acp",
    login: "run `gemini` in a terminal and choose how to log in, or set GEMINI_API_KEY",
    registryIds: ["gemini", "gemini-cli"],
  },
  {
    name: "Codex",
    shortName: "codex",
    command: "npx -y @zed-industries/codex-acp",
    login: "run `codex login` in a terminal, or set CODEX_API_KEY",
    registryIds: ["codex-acp", "codex"],
  },
  { name: "Kiro CLI", shortName: "kiro", command: "kiro-cli-chat acp", login: "run `kiro-cli login` in a terminal", registryIds: ["kiro-cli", "kiro"] },
];

/** The demo agent's one name: in the menu, the picker, and its own initialize answer (demo-agent.ts). */
export const DEMO_AGENT_NAME = "Built-in demo agent";

/** The known agents and the demo agent, started by `demoAgentCommand`. */
export function agentChoices(demoAgentCommand: readonly string[]): KnownAgent[] {
  return [...KNOWN_AGENTS, { name: DEMO_AGENT_NAME, shortName: "demo", command: joinCommandLine(demoAgentCommand) }];
}

/** A number from the list, or a name ("claude", "Claude Code", "gemini-cli", "demo"); null when nothing matches. */
export function findAgentChoice(input: string, choices: readonly KnownAgent[]): KnownAgent | null {
  const number = /^\s*(\d+)[.)]?\s*$/.exec(input);
  if (number) return choices[Number(number[1]) - 1] ?? null;
  const wanted = normalise(input);
  if (wanted === "") return null;
  return choices.find((choice) => [choice.shortName, choice.name, `${choice.shortName}agent`].some((name) => normalise(name) === wanted)) ?? null;
}

/** The known agent a command line or an agent's own name points at ("…/codex-acp", "gemini-cli"), if any. */
export function knownAgentFor(words: readonly string[]): KnownAgent | null {
  const text = words.join(" ").toLowerCase();
  return KNOWN_AGENTS.find((agent) => text.includes(agent.shortName)) ?? null;
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

export function describeChoiceNames(choices: readonly KnownAgent[]): string {
  return choices.map((choice) => choice.shortName).join(", ");
}
