// symposium-conductor: runs an ACP proxy chain in front of an agent, with the
// editor-context proxy first whenever SYMPOSIUM_EDITOR_STATE_FILE is set.

import * as path from "node:path";
import {
  DEFAULT_PROXY_DIALECT,
  UsageError,
  debugLogger,
  onStopSignal,
  parseCommandLine,
  printLine,
  runCli,
  packageVersion,
  stderrLogger,
} from "../../acp-wire/src/index.js";
import { quote } from "shell-quote";
import { AGENT_CHOICE_ENV } from "./agent-choices.js";
import { RUN_CONFIG_ENV, defaultConfigPath, loadConfig, splitCommandLine, type SymposiumConfig } from "./config.js";
import type { ComponentSpec } from "./connections.js";
import type { RegistryContext } from "./registry.js";
import { currentTarget, selfCommandVia } from "./launcher.js";
import { runConductor } from "./conductor.js";
import type { ChainMode } from "./router.js";
import { describeRunError, parseChainOptions, runFromConfig, shortCommand, type ChainOptions } from "./run.js";

const NAME = "symposium-conductor";
const log = stderrLogger(NAME);

const USAGE = `Usage:
  ${NAME} agent [options] <component>... <agent>   a chain of proxies in front of <agent>
  ${NAME} proxy [options] <component>...           a chain that is itself a proxy, under another conductor
  ${NAME} run [options] [--config FILE]           the chain in ~/.symposium/config.jsonc (or $SYMPOSIUM_CONFIG);
        [--agent-choice NAME]                     with no file, a setup agent that writes one, or the file for
                                                  NAME (or $${AGENT_CHOICE_ENV}): claude, gemini, codex, kiro, demo
        [--agent-id ID]                           the config's proxies in front of the catalogue's agent ID
                                                  instead of the config's agent (the language model provider)
        [--agents JSON]                           more custom agents for the catalogue (default $SYMPOSIUM_AGENTS)
  ${NAME} demo-agent                              the built-in offline agent that shows what it receives
  ${NAME} registry list [--config FILE] [--agents JSON]
                                                  the agents to choose from, as a JSON array on stdout
  ${NAME} registry resolve <id> [...]             the command that starts <id> (installing it first), as JSON
  ${NAME} registry use <id> [...]                 makes <id> the config's agent; --agents: more custom agents
  ${NAME} extensions list [--json] | add <spec> [--name NAME] | enable <name> | disable <name>
        | move <name> up|down|<position> | remove <name> [--config FILE]
                                                  the config's extensions (proxies), the first closest to the editor;
                                                  <spec>: sparkle, ferris, cargo, npx:<package>, pipx:<package>,
                                                  cargo:<crate>, acp:<registry id>, an http(s) URL of an extension's
                                                  JSON, or an executable's path (docs/extensions.md)
  ${NAME} checkpoints list | diff <turn> | restore <turn> [--project DIR] [--json]
                                                  the turns recorded for a project (docs/checkpoints.md): list them,
                                                  show one's changes, put its files back (changed-since files kept)
  ${NAME} --help | --version

Each component is one argument: a command line, split into words and run without a shell.
When SYMPOSIUM_EDITOR_STATE_FILE is set, the editor-context proxy runs first, in process.

Options:
  --proxy-dialect _proxy|proxy   how to speak to proxy components (default ${DEFAULT_PROXY_DIALECT}: sacp and
                                 Symposium's Rust conductor; proxy: the Proxy Chains RFD / TypeScript SDK)
  --trace FILE                   append one JSON line per message per hop to FILE
Logs go to stderr (SYMPOSIUM_LOG=debug for more).`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "--help":
    case "-h":
      return printLine(USAGE);
    case "--version":
    case "-V":
      return printLine(packageVersion());
    case "demo-agent": {
      hintOnTerminal("demo-agent");
      // The built-in agents load the ACP SDK; the conductor itself does not need it.
      const { runDemoAgent } = await import("./demo-agent.js");
      await runDemoAgent(process.env[RUN_CONFIG_ENV] || null, packageVersion());
      return 0;
    }
    case "configuration-agent": {
      const { runConfigurationAgent } = await import("./configuration-agent.js");
      const options = parseChainOptions(rest);
      const configPath = options.configPath ?? defaultConfigPath();
      const { customAgents } = await import("./catalogue.js");
      await runConfigurationAgent({
        configPath,
        demoAgentCommand: selfCommand(configPath, "demo-agent"),
        // The same catalogue as `registry list`; the menu answers initialize at once and only its first list waits for it.
        catalogue: registryContext(configPath, loadConfig(configPath), customAgents(options.extraAgents, process.env)),
        version: packageVersion(),
      });
      return 0;
    }
    case "registry":
      return registryCommand(rest);
    case "extensions": {
      const { extensionsCommand } = await import("./extensions-cli.js");
      return extensionsCommand(rest, { env: process.env, cwd: process.cwd(), log, selfCommand: (configPath, args) => selfCommand(configPath, ...args) });
    }
    case "checkpoints": {
      const { checkpointsCommand } = await import("./checkpoints-cli.js");
      return checkpointsCommand(rest, log);
    }
    case "agent":
    case "proxy":
      return runChain(command, parseChainOptions(rest), async (options) => componentsFromArguments(command, options.positional));
    case "run":
      hintOnTerminal("run");
      return runFromConfig({
        args: rest,
        env: process.env,
        input: process.stdin,
        output: process.stdout,
        stderr: process.stderr,
        log,
        debug: debugLogger(NAME),
        self: currentTarget(),
        signal: stopOnSignals(),
      });
    default:
      throw new UsageError(command === undefined ? "a command is required" : `unknown command '${command}'`);
  }
}

async function runChain(mode: ChainMode, options: ChainOptions, components: (options: ChainOptions) => Promise<ComponentSpec[]>): Promise<number> {
  return runConductor({
    mode,
    components: await components(options),
    dialect: options.dialect,
    env: process.env,
    ...(options.tracePath ? { tracePath: options.tracePath } : {}),
    input: process.stdin,
    output: process.stdout,
    stderr: process.stderr,
    log,
    debug: debugLogger(NAME),
    signal: stopOnSignals(),
  });
}

/** Aborted, with the signal's name as the reason, on a stop signal (SIGTERM, SIGINT, SIGHUP; SIGBREAK on Windows). */
function stopOnSignals(): AbortSignal {
  const stop = new AbortController();
  onStopSignal((signal) => stop.abort(signal));
  return stop.signal;
}

function componentsFromArguments(mode: "agent" | "proxy", commandLines: string[]): ComponentSpec[] {
  if (commandLines.length === 0) throw new UsageError(mode === "agent" ? "agent needs at least the agent's command" : "proxy needs at least one component");
  return commandLines.map((commandLine, index) => {
    const isAgent = mode === "agent" && index === commandLines.length - 1;
    const command = splitCommandLine(commandLine, isAgent ? "agent" : `component ${index + 1}`);
    return { name: isAgent ? "agent" : `proxy ${index + 1} (${shortCommand(command)})`, command };
  });
}

function registryContext(configPath: string, config: SymposiumConfig | null, extraAgents: RegistryContext["extraAgents"]): RegistryContext {
  return { configPath, config, extraAgents, selfCommand: (args) => selfCommand(configPath, ...args), log, env: process.env };
}

const REGISTRY_USAGE = "registry list | registry resolve <id> | registry use <id>, with [--config FILE] [--agents JSON]";

/** `registry list|resolve|use`: the JSON answer is this command's output, so it goes to stdout; logs go to stderr. */
async function registryCommand(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseRegistryArgs>;
  try {
    parsed = parseRegistryArgs(args);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${REGISTRY_USAGE})`);
  }
  const [action, id, ...extra] = parsed.positionals;
  if (extra.length > 0 || (action === "list") !== (id === undefined)) throw new UsageError(REGISTRY_USAGE);
  const configPath = parsed.values.config ?? defaultConfigPath();
  const [registry, catalogue] = await Promise.all([import("./registry.js"), import("./catalogue.js")]);
  const context = registryContext(configPath, loadConfig(configPath), catalogue.customAgents(parsed.values.agents, process.env));
  switch (action) {
    case "list": {
      const entries = await catalogue.catalog(context);
      const current = catalogue.configuredAgentId(context.config, entries);
      return printLine(JSON.stringify(entries.map(({ agent }) => catalogue.listed(agent, agent.id === current))));
    }
    case "resolve": {
      const spawn = await registry.resolveAgent(await catalogue.findAgent(id!, context), context);
      // Symposium's McpServer shape (its agent registry design): env as a list of { name, value }.
      return printLine(JSON.stringify({ ...spawn, env: Object.entries(spawn.env).map(([name, value]) => ({ name, value })) }));
    }
    case "use": {
      const { chooseAgent } = await import("./record-choice.js");
      const agent = await chooseAgent(id!, context);
      log(`${agent.name ?? agent.id} is now the agent in ${configPath}; it starts with the next conversation`);
      return 0;
    }
    default:
      throw new UsageError(REGISTRY_USAGE);
  }
}

function parseRegistryArgs(args: string[]) {
  return parseCommandLine({ args, allowPositionals: true, options: { config: { type: "string" }, agents: { type: "string" } } });
}

/** `run` and `demo-agent` speak ACP on stdio: a person who starts one in a terminal is told so, once. */
function hintOnTerminal(command: string): void {
  if (!process.stdin.isTTY) return;
  const self = quote(["node", path.relative(process.cwd(), process.argv[1]!) || process.argv[1]!, command]);
  log(`this is an ACP agent: it waits for a client's JSON-RPC on stdin. Try it with: npx acpx --agent ${quote([self])} exec "hello"`);
}

/** How to start this same program with other arguments (for the built-in agents): through the launcher beside the config (launcher.ts). */
function selfCommand(configPath: string, ...args: string[]): string[] {
  return selfCommandVia(configPath, args, log);
}

runCli(main, (error) => {
  log(describeRunError(error, USAGE));
  return 2;
});
