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
  /** The npm package `command` runs through npx, at the version the project tests (ADAPTER_PINS). */
  pinned?: AdapterPin;
  /** How to install it, when its program is not found (an agent npx does not fetch). */
  install?: string;
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

/**
 * The adapters' npm packages at the versions the project tests (test/interop/adapters.ts and
 * scripts/install-agent-adapters.sh install the same: test/unit/conductor-hooks/agent-pins.test.ts
 * checks it). An unpinned `npx -y pkg` runs whatever npx's cache holds, however old (0.49.0 of
 * claude-agent-acp, fifty releases back, was seen). A user who wants another version names it in
 * the agent's `distribution` (docs/conductor.md: the agents' versions).
 */
export interface AdapterPin {
  package: string;
  version: string;
}
export const ADAPTER_PINS = {
  claude: { package: "@agentclientprotocol/claude-agent-acp", version: "0.101.0" },
  codex: { package: "@zed-industries/codex-acp", version: "0.16.0" },
  gemini: { package: "@google/gemini-cli", version: "0.61.0" },
} as const satisfies Record<string, AdapterPin>;

/** `npx -y <package>@<version> [args]`: the `--` keeps an argument such as --acp away from npx. */
function npxCommand(pin: AdapterPin, args: readonly string[] = []): string {
  return ["npx", "-y", ...(args.length > 0 ? ["--"] : []), `${pin.package}@${pin.version}`, ...args].join(" ");
}

/** The four agents Symposium's design names, in its order. */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  // The adapters' current npm names (checked with `npm view`, docs/interop.md): Zed's claude-code-acp is now
  // @agentclientprotocol/claude-agent-acp, and Gemini CLI's --experimental-acp is now --acp.
  {
    name: "Claude Code",
    shortName: "claude",
    command: npxCommand(ADAPTER_PINS.claude),
    pinned: ADAPTER_PINS.claude,
    login: "run `claude` in a terminal and log in with /login, or set ANTHROPIC_API_KEY",
    registryIds: ["claude-code-acp", "claude-agent-acp", "claude-acp"],
  },
  {
    name: "Gemini CLI",
    shortName: "gemini",
    command: npxCommand(ADAPTER_PINS.gemini, ["--acp"]),
    pinned: ADAPTER_PINS.gemini,
    login: "run `gemini` in a terminal and choose how to log in, or set GEMINI_API_KEY",
    registryIds: ["gemini", "gemini-cli"],
  },
  {
    name: "Codex",
    shortName: "codex",
    command: npxCommand(ADAPTER_PINS.codex),
    pinned: ADAPTER_PINS.codex,
    login: "run `codex login` in a terminal, or set CODEX_API_KEY",
    registryIds: ["codex-acp", "codex"],
  },
  {
    name: "Kiro CLI",
    shortName: "kiro",
    command: "kiro-cli-chat acp",
    install: "install Kiro CLI (its installer is on kiro.dev), so that kiro-cli-chat is on the PATH, then run `kiro-cli login` in a terminal",
    login: "run `kiro-cli login` in a terminal",
    registryIds: ["kiro-cli", "kiro"],
  },
];

/**
 * The command lines older menus wrote for a built-in (its package with no version, or
 * @latest): recognised as that built-in, and run at its pinned version (catalogue.ts).
 */
export function unpinnedCommands(agent: KnownAgent): string[] {
  if (agent.pinned === undefined) return [];
  const { package: name } = agent.pinned;
  const pinnedWord = `${name}@${agent.pinned.version}`;
  return [name, `${name}@latest`].flatMap((word) => {
    const line = agent.command.replace(pinnedWord, word);
    return [line, line.replace(" -- ", " ")];
  });
}

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
