// `run`: the chain in the config file (or, with none, the setup agent), for
// the CLI and for a client that runs the conductor in its own process (the
// built-in chat: in-process.ts). Nothing here reads this process's own
// arguments or stdio, nor its environment (but for two settings of registry
// installs: $SYMPOSIUM_DOWNLOAD_STALL_MS and $SYMPOSIUM_CRATES_API, which a
// client's environment passes on): all of it is in RunOptions, so several
// runs can share one process.

import * as path from "node:path";
import type { Readable, Writable } from "node:stream";
import { DEFAULT_PROXY_DIALECT, UsageError, describeError, parseCommandLine, parseDialect, type Logger, type ProxyDialect } from "../../acp-wire/src/index.js";
import { AGENT_CHOICE_ENV, agentChoices, describeChoiceNames } from "./agent-choices.js";
import { ConfigError, RUN_CONFIG_ENV, chainFromConfig, defaultConfigPath, joinCommandLine, loadConfig, type SymposiumConfig } from "./config.js";
import type { ComponentSpec } from "./connections.js";
import { runConductor, type ConductorOptions } from "./conductor.js";
import { refreshLauncher, selfCommandVia, type LauncherTarget } from "./launcher.js";
import type { RegistryCache, RegistryContext } from "./registry.js";

export interface ChainOptions {
  dialect: ProxyDialect;
  tracePath?: string;
  configPath?: string;
  agentChoice?: string;
  /** `run --agent-id`: this catalogue agent instead of the config's. */
  agentId?: string;
  /** `--agents`: the editor's custom agents for the catalogue, as JSON (else $SYMPOSIUM_AGENTS). */
  extraAgents?: string;
  positional: string[];
}

export interface RunOptions {
  /** What follows `run` on its command line. */
  args: string[];
  /** The conductor's environment; the components inherit it. */
  env: NodeJS.ProcessEnv;
  /** The components' working directory (default: this process's); relative paths in `args` are resolved against it. */
  cwd?: string;
  input: Readable;
  output: Writable;
  log: Logger;
  debug: Logger;
  /** Where the components' stderr lines go (prefixed with their names). */
  stderr: Writable;
  /** How to start this conductor as a program, for the built-in agents (launcher.ts). */
  self: LauncherTarget;
  /** Aborting stops the chain (the reason, a signal name, sets the status). */
  signal?: AbortSignal;
  /** Where the registry fetched for this run is kept (registry.ts); default: once per process. */
  registryCache?: RegistryCache;
  /** Called once the components are spawned (conductor.ts). */
  onStarted?: ConductorOptions["onStarted"];
}

/** Runs the configured chain until the client leaves or it is stopped; resolves with the exit status. */
export async function runFromConfig(options: RunOptions): Promise<number> {
  const chain = parseChainOptions(options.args);
  const resolved = (file: string): string => path.resolve(options.cwd ?? process.cwd(), file);
  const configPath = resolved(chain.configPath ?? defaultConfigPath(options.env));
  // Everything the chain starts learns which file chose it (the demo agent's hint).
  const env = { ...options.env, [RUN_CONFIG_ENV]: configPath };
  const components = await componentsFromConfig(chain, { ...options, env }, configPath);
  // Stopped while the agent was being found or installed: nothing is started.
  if (options.signal?.aborted) return 128 + 15;
  return runConductor({
    mode: "agent",
    components,
    setupAgent: components.length === 1 && SETUP_AGENTS.has(components[0]!),
    dialect: chain.dialect,
    env,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(chain.tracePath ? { tracePath: resolved(chain.tracePath) } : {}),
    input: options.input,
    output: options.output,
    stderr: options.stderr,
    log: options.log,
    debug: options.debug,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onStarted ? { onStarted: options.onStarted } : {}),
  });
}

/** The specs of the setup agent this module started: only such a chain may hand over (setup-handoff.ts). */
const SETUP_AGENTS = new WeakSet<ComponentSpec>();

async function componentsFromConfig(chain: ChainOptions, options: RunOptions, configPath: string): Promise<ComponentSpec[]> {
  if (chain.positional.length > 0) throw new UsageError(`run takes no components (got '${chain.positional[0]}')`);
  const { log } = options;
  const selfCommand = (...args: string[]): string[] => selfCommandVia(configPath, args, log, options.self);
  // A config may name the built-in agents through the launcher: keep it pointing at this conductor.
  refreshLauncher(configPath, log, options.self);
  if (chain.agentId !== undefined) return componentsForAgentId(chain.agentId, chain, options, configPath, selfCommand);
  const config = loadConfig(configPath) ?? (await configFromChoice(chain, options, configPath, selfCommand));
  if (config === null) {
    log(`no configuration at ${configPath}: starting the setup agent`);
    const setup: ComponentSpec = { name: "setup", command: selfCommand("configuration-agent", "--config", configPath) };
    SETUP_AGENTS.add(setup);
    return [setup];
  }
  if (config.agentConfig === undefined) return chainFromConfig(config, configPath);
  // Loaded only for an AgentConfig: a command line in the file needs none of the registry (nor tar, nor yauzl).
  const [{ syncFromRegistry, resolveAgent }, { configuredAgent }] = await Promise.all([import("./registry.js"), import("./catalogue.js")]);
  const context = await registryContext(configPath, config, options, selfCommand, chain);
  // The registry check runs beside this session, never before it (a registry that does not answer would hold it up
  // to the fetch timeout): what it updates in the file, the next run starts.
  void syncFromRegistry(config, context, configPath).catch((error: unknown) =>
    log(`the configured agents could not be brought up to date: ${describeError(error)}`),
  );
  const spawn = await resolveAgent(await configuredAgent(config.agentConfig, context), context);
  log(`agent: ${spawn.name} (${joinCommandLine([spawn.command, ...spawn.args])})`);
  return chainFromConfig(config, configPath, { name: "agent", command: [spawn.command, ...spawn.args], env: spawn.env });
}

/** `run --agent-id ID`: the config's proxies (none without a file) in front of the agent the catalogue resolves ID to. */
async function componentsForAgentId(
  id: string,
  chain: ChainOptions,
  options: RunOptions,
  configPath: string,
  selfCommand: (...args: string[]) => string[],
): Promise<ComponentSpec[]> {
  const config = loadConfig(configPath);
  const [registry, { findAgent }] = await Promise.all([import("./registry.js"), import("./catalogue.js")]);
  const context = await registryContext(configPath, config, options, selfCommand, chain);
  const spawn = await registry.resolveAgent(await findAgent(id, context), context);
  options.log(`agent: ${spawn.name} (${shortCommand([spawn.command, ...spawn.args])})`);
  const agent: ComponentSpec = { name: "agent", command: [spawn.command, ...spawn.args], env: spawn.env };
  return config === null ? [agent] : chainFromConfig(config, configPath, agent);
}

/** What the catalogue is read with in this run: the editor's custom agents (--agents, else $SYMPOSIUM_AGENTS) among them. */
async function registryContext(
  configPath: string,
  config: SymposiumConfig | null,
  options: RunOptions,
  selfCommand: (...args: string[]) => string[],
  chain: ChainOptions,
): Promise<RegistryContext> {
  const { customAgents } = await import("./catalogue.js");
  return {
    configPath,
    config,
    extraAgents: customAgents(chain.extraAgents, options.env),
    selfCommand: (args) => selfCommand(...args),
    log: options.log,
    env: options.env,
    ...(options.registryCache ? { registryCache: options.registryCache } : {}),
  };
}

/**
 * With no config file, --agent-choice or $SYMPOSIUM_AGENT names the agent (a
 * built-in's name or number, or any catalogue id): its choice is recorded as
 * the menu records one. A built-in's name needs no registry.
 */
async function configFromChoice(
  chain: ChainOptions,
  options: RunOptions,
  configPath: string,
  selfCommand: (...args: string[]) => string[],
): Promise<ReturnType<typeof loadConfig>> {
  const named = chain.agentChoice ?? options.env[AGENT_CHOICE_ENV];
  if (!named) return null;
  const from = chain.agentChoice ? "--agent-choice" : `$${AGENT_CHOICE_ENV}`;
  const [{ builtinAgents, catalog, findChoice }, { recordFirstChoice }] = await Promise.all([import("./catalogue.js"), import("./record-choice.js")]);
  const builtins = builtinAgents().map((agent) => ({ agent, source: "builtin" as const }));
  const context = await registryContext(configPath, null, options, selfCommand, chain);
  const entry = findChoice(named, builtins) ?? findChoice(named, await catalog(context));
  if (entry === null) {
    const names = describeChoiceNames(agentChoices([]));
    throw new UsageError(`${from}: no agent named '${named}'; the names are ${names}, or an id from \`symposium-conductor registry list\``);
  }
  if (recordFirstChoice(entry.agent, context)) options.log(`no configuration at ${configPath}: wrote one for ${entry.agent.name ?? entry.agent.id} (${from})`);
  return loadConfig(configPath);
}

export function parseChainOptions(args: string[]): ChainOptions {
  const { values, positionals } = parseCommandLine({
    args,
    allowPositionals: true,
    options: {
      "proxy-dialect": { type: "string" },
      trace: { type: "string" },
      config: { type: "string" },
      "agent-choice": { type: "string" },
      "agent-id": { type: "string" },
      agents: { type: "string" },
    },
  });
  const dialect = values["proxy-dialect"] === undefined ? DEFAULT_PROXY_DIALECT : parseDialect(values["proxy-dialect"]);
  if (dialect === null) throw new UsageError("--proxy-dialect is _proxy or proxy");
  return {
    dialect,
    positional: positionals,
    ...(values.trace !== undefined ? { tracePath: values.trace } : {}),
    ...(values.config !== undefined ? { configPath: values.config } : {}),
    ...(values["agent-choice"] !== undefined ? { agentChoice: values["agent-choice"] } : {}),
    ...(values["agent-id"] !== undefined ? { agentId: values["agent-id"] } : {}),
    ...(values.agents !== undefined ? { extraAgents: values.agents } : {}),
  };
}

/**
 * "node /long/path/cli.js --flag" → "node cli.js --flag", a proxy's name in logs and traces: only absolute
 * paths are shortened, so a package name (`@scope/name`) is never cut to a different one. Where a command is
 * shown to be run or copied, it is the whole command line (joinCommandLine).
 */
export function shortCommand(command: string[]): string {
  return joinCommandLine(command.map((word) => (path.isAbsolute(word) ? path.basename(word) : word)));
}

/** Errors whose message says all a user needs (registry.ts, registry-format.ts, registry-install.ts; loaded lazily, so known by name). */
const KNOWN_ERRORS = new Set(["RegistryError", "AgentFormatError", "InstallError"]);

/** What the conductor logs for an error that ends it (before its exit status 2); `usage` follows a UsageError. */
export function describeRunError(error: unknown, usage: string): string {
  if (error instanceof UsageError) return `${error.message}\n${usage}`;
  if (error instanceof ConfigError || KNOWN_ERRORS.has((error as Error)?.name)) return (error as Error).message;
  return `fatal: ${describeError(error)}`;
}
