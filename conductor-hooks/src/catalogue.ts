// The one catalogue of agents a user chooses from, behind every way of
// choosing: `registry list` (what "Symposium: Choose Agent" and the built-in
// chat's header show) and the setup agent's first-run menu
// (configuration-agent.ts). It is, first match by id winning: the config's own
// `agents` (custom ones, and registry ones imported there), the editor's
// custom agents (the extension's symposium.agents, as $SYMPOSIUM_AGENTS or
// `--agents`), the built-ins (agent-choices.ts), then the ACP agent registry
// (registry.ts). Recording a choice is record-choice.ts's.

import { isObject } from "../../acp-wire/src/index.js";
import { agentChoices, DEMO_AGENT_NAME, findAgentChoice, KNOWN_AGENTS, unpinnedCommands } from "./agent-choices.js";
import { splitCommandLine, type SymposiumConfig } from "./config.js";
import { AgentFormatError, parseAgentConfig, pickerDescription, type AgentConfig, type Distribution } from "./registry-format.js";
import { registryAgents, RegistryError, registryUrl, type RegistryContext } from "./registry.js";

/**
 * The editor's custom agents, a JSON list of AgentConfigs: the extension sets
 * it from symposium.agents for everything the chat starts, so the quick pick,
 * the chat's header and the first-run menu list the same agents.
 */
export const CUSTOM_AGENTS_ENV = "SYMPOSIUM_AGENTS";

export interface CatalogEntry {
  agent: AgentConfig;
  source: "config" | "custom" | "builtin" | "registry";
}

/** The built-in agents (the menu's four and the demo agent) as AgentConfigs. */
export function builtinAgents(): AgentConfig[] {
  return agentChoices(["symposium-conductor", "demo-agent"]).map((choice) => {
    const distribution: Distribution = choice.name === DEMO_AGENT_NAME ? { symposium: { subcommand: "demo-agent" } } : localDistribution(choice.command);
    const description = choice.name === DEMO_AGENT_NAME ? "Offline: shows what it receives" : `Built in: ${choice.command}`;
    return { id: choice.shortName, name: choice.name, description, distribution, _source: "custom" };
  });
}

function localDistribution(commandLine: string): Distribution {
  const [command, ...args] = splitCommandLine(commandLine, "built-in agent");
  return { local: { command: command!, args } };
}

/**
 * Every agent that can be chosen, each once: the first source that has an id
 * wins, and a registry entry for a built-in agent (its `registryIds`: the
 * registry's "claude-code-acp" is the built-in "claude") is left out, so one
 * agent has one entry and one name. `withRegistry` false: without the
 * registry's (the menu, when the registry was refused).
 */
export async function catalog(context: RegistryContext, withRegistry = true): Promise<CatalogEntry[]> {
  const builtinIds = new Set(KNOWN_AGENTS.flatMap((agent) => agent.registryIds ?? []));
  return (await allEntries(context, withRegistry)).filter(({ agent, source }) => source !== "registry" || !builtinIds.has(agent.id));
}

/** Each id once, the first source that has it winning; a built-in's registry entries included (a config may name one by id). */
async function allEntries(context: RegistryContext, withRegistry = true): Promise<CatalogEntry[]> {
  const registry = withRegistry ? (await registryAgents(registryUrl(context.config, context.env), context.log, context.registryCache)).agents : [];
  const all: CatalogEntry[] = [
    ...(context.config?.agents ?? []).map((agent) => ({ agent, source: "config" as const })),
    ...context.extraAgents.map((agent) => ({ agent, source: "custom" as const })),
    ...builtinAgents().map((agent) => ({ agent, source: "builtin" as const })),
    ...registry.map((agent) => ({ agent: { ...agent, _source: "registry" as const }, source: "registry" as const })),
  ];
  const seen = new Set<string>();
  return all.filter(({ agent }) => !seen.has(agent.id) && seen.add(agent.id));
}

/**
 * The catalog id of the agent the config names, when it is in `entries`: an
 * agent object's id (a built-in's registry id counts as the built-in), or a
 * command line a built-in agent runs (older menus wrote those). Undefined for
 * a command of the user's own.
 */
export function configuredAgentId(config: SymposiumConfig | null, entries: readonly CatalogEntry[]): string | undefined {
  if (config === null) return undefined;
  const has = (id: string | undefined): string | undefined => (id !== undefined && entries.some(({ agent }) => agent.id === id) ? id : undefined);
  const builtinFor = (id: string): string | undefined => KNOWN_AGENTS.find((agent) => agent.registryIds?.includes(id))?.shortName;
  if (config.agentConfig !== undefined) {
    const id = typeof config.agentConfig.id === "string" ? config.agentConfig.id : undefined;
    return id === undefined ? undefined : (has(id) ?? has(builtinFor(id)));
  }
  let words: string[];
  try {
    words = splitCommandLine(config.agent, "agent");
  } catch {
    return undefined;
  }
  if (words.at(-1) === "demo-agent") return has("demo");
  return has(builtinRunning(words.join(" "))?.shortName);
}

/** The built-in agent a command line runs: its own (pinned) command, or one an older menu wrote (unpinned). */
function builtinRunning(line: string): (typeof KNOWN_AGENTS)[number] | undefined {
  return KNOWN_AGENTS.find((agent) => [agent.command, ...unpinnedCommands(agent)].includes(line));
}

/**
 * A built-in recorded by an older menu, whose command runs its package unpinned (whatever npx's cache
 * holds, however old): the built-in as it is now, at the version the project tested. A version the user
 * wrote (`…@0.102.0`) is theirs and runs as written.
 */
function pinnedIfBuiltin(agent: AgentConfig): AgentConfig {
  const local = agent.distribution.local;
  const known = KNOWN_AGENTS.find((each) => each.shortName === agent.id);
  if (local === undefined || known?.pinned === undefined) return agent;
  const line = [local.command, ...(local.args ?? [])].join(" ");
  if (!unpinnedCommands(known).includes(line)) return agent;
  const builtin = builtinAgents().find((each) => each.id === agent.id)!;
  return { ...agent, description: builtin.description, distribution: { local: { ...builtin.distribution.local!, ...(local.env ? { env: local.env } : {}) } } };
}

export async function findAgent(id: string, context: RegistryContext): Promise<AgentConfig> {
  const entries = await allEntries(context);
  const found = entries.find((entry) => entry.agent.id === id);
  if (found === undefined) throw new RegistryError(`no agent with the id '${id}'; \`symposium-conductor registry list\` shows them`);
  return found.agent;
}

/**
 * What a person typed (the first-run menu) or named (--agent-choice,
 * $SYMPOSIUM_AGENT): a number from the built-ins' list, a built-in's name
 * ("claude", "Claude Code", "demo"), else any agent's id or name. Null when
 * nothing matches.
 */
export function findChoice(typed: string, entries: readonly CatalogEntry[]): CatalogEntry | null {
  const builtins = entries.filter(({ source }) => source === "builtin");
  const builtin = findAgentChoice(typed, agentChoices([]));
  const byBuiltin = builtin && builtins.find(({ agent }) => agent.id === builtin.shortName);
  if (byBuiltin) return byBuiltin;
  const wanted = typed.trim();
  if (wanted === "") return null;
  const normalised = normalise(wanted);
  return (
    entries.find(({ agent }) => agent.id === wanted) ??
    entries.find(({ agent }) => normalise(agent.id) === normalised || normalise(agent.name ?? "") === normalised) ??
    null
  );
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** `agent` from the config, a string (command line) or an AgentConfig, checked; for an id alone, the catalog's entry. */
export async function configuredAgent(value: unknown, context: RegistryContext): Promise<AgentConfig> {
  if (isObject(value) && value.distribution === undefined && typeof value.id === "string") return findAgent(value.id, context);
  return pinnedIfBuiltin(parseAgentConfig(value, `${context.configPath}: agent`));
}

/** The `registry list` line for an agent; the description says when its download here is not checksummed; `current` on the one the config names now. */
export function listed(agent: AgentConfig, current = false): { id: string; name: string; version?: string; description?: string; current?: true } {
  const description = pickerDescription(agent);
  return {
    id: agent.id,
    name: agent.name ?? agent.id,
    ...(agent.version === undefined ? {} : { version: agent.version }),
    ...(description === undefined ? {} : { description }),
    ...(current ? { current: true as const } : {}),
  };
}

/**
 * The editor's custom agents: `--agents JSON` when given, else
 * $SYMPOSIUM_AGENTS; each checked (registry-format.ts), an error naming
 * where the bad one came from.
 */
export function customAgents(flag: string | undefined, env: NodeJS.ProcessEnv): AgentConfig[] {
  const [json, where] = flag !== undefined ? [flag, "--agents"] : [env[CUSTOM_AGENTS_ENV], `$${CUSTOM_AGENTS_ENV}`];
  if (json === undefined || json.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new AgentFormatError(`${where}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new AgentFormatError(`${where}: must be a JSON list of agent objects`);
  return value.map((entry, index) => ({ _source: "custom", ...parseAgentConfig(entry, `${where}[${index}]`) }));
}
