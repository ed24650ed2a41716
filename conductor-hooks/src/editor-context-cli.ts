// symposium-editor-context: the editor-context proxy's command line. Its two
// ways of running are the conductor's one chain with only the editor-context
// component in process: wrap mode (`-- <agent>`) is that chain in front of the
// agent, exit status the agent's; with no arguments it is a chain with no
// process at all, a proxy whose successor is the conductor that started it.

import { parseArgs } from "node:util";
import {
  DEFAULT_PROXY_DIALECT,
  UsageError,
  debugLogger,
  describeError,
  exitStatus,
  onStopSignal,
  printLine,
  runCli,
  stderrLogger,
  stopSignal,
  packageVersion,
} from "../../acp-wire/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { runConductor, type ConductorOptions } from "./conductor.js";

const NAME = "symposium-editor-context";

/** What a plain `initialize` (no conductor in front) is answered with. */
const NO_SUCCESSOR_HELP =
  `${NAME} is an ACP proxy with no agent behind it. Run it under a conductor ` +
  "(which initialises it with proxy/initialize or _proxy/initialize), or let it start the agent: " +
  `${NAME} -- <agent command> [args...]`;

const USAGE = `Usage:
  ${NAME}                          run as a proxy under an ACP conductor (stdio)
  ${NAME} -- <agent> [args...]     start <agent> and sit between this process's stdio and the agent's
  ${NAME} show [--watch]           print the block a prompt sent now would carry
  ${NAME} --help | --version

Each session/prompt gets a fresh <editor-context> block, read from the file
named by ${STATE_FILE_ENV}, and each session/new, load and resume the
editor's MCP server (symposium-editor) in its mcpServers. The agent's fs/read_text_file of a file with unsaved
changes in the editor is answered from the editor's text, its fs/write_text_file
to one refused. Every other message passes unchanged.
Logs go to stderr; set SYMPOSIUM_LOG=debug to see why a prompt got no context.`;

type Invocation = { kind: "help" } | { kind: "version" } | { kind: "proxy" } | { kind: "show"; watch: boolean } | { kind: "wrap"; command: string[] };

/**
 * What the arguments ask for. Everything after `--` is the agent's command,
 * passed on untouched; before it, only show [--watch], --help, --version.
 */
function parseInvocation(argv: string[]): Invocation {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false, // an unknown option is reported below, with the hint about --
    tokens: true,
    options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "V" }, watch: { type: "boolean" } },
  });
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const terminator = tokens.findIndex((token) => token.kind === "option-terminator");
  const before = terminator === -1 ? tokens : tokens.slice(0, terminator);
  const words = before.flatMap((token) => (token.kind === "positional" ? [token.value] : []));
  const options = before.flatMap((token) => (token.kind === "option" && token.name !== "watch" ? [token.rawName] : []));
  const unknown = options[0] ?? words.find((word, index) => word !== "show" || index > 0);
  if (unknown !== undefined) throw new UsageError(`unknown argument '${unknown}' (to wrap an agent, put -- before its command)`);
  const show = words.length > 0;
  if (terminator !== -1) {
    if (show || values.watch) throw new UsageError("-- comes first: everything after it is the agent's command");
    const command = positionals.slice(positionals.length - (tokens.length - terminator - 1));
    if (command.length === 0) throw new UsageError("-- must be followed by the agent's command");
    return { kind: "wrap", command };
  }
  if (show) return { kind: "show", watch: values.watch === true };
  if (values.watch) throw new UsageError("--watch goes with show: show --watch");
  return { kind: "proxy" };
}

async function main(argv: string[]): Promise<number> {
  const log = stderrLogger(NAME);
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`${error.message}\n${USAGE}`);
    return 2;
  }
  if (invocation.kind === "help") return printLine(USAGE);
  if (invocation.kind === "version") return printLine(packageVersion());
  if (invocation.kind === "show") return show(invocation.watch);
  const stop = new AbortController();
  let received: NodeJS.Signals | null = null;
  onStopSignal((signal) => {
    received = signal;
    stop.abort(signal);
  });
  const status = await runConductor({ ...chainFor(invocation), signal: stop.signal });
  // Stopped by a signal: exit as the shell says a program ended by it does, whatever the agent did.
  return received === null ? status : exitStatus(null, received);
}

/** The conductor's chain for wrap mode (the agent its one process) or proxy mode (no process). */
function chainFor(invocation: { kind: "proxy" } | { kind: "wrap"; command: string[] }): ConductorOptions {
  const common = {
    dialect: DEFAULT_PROXY_DIALECT,
    env: process.env,
    input: process.stdin,
    output: process.stdout,
    stderr: process.stderr,
    log: stderrLogger(NAME),
    debug: debugLogger(NAME),
    inProcess: "editor-context" as const,
  };
  if (invocation.kind === "proxy") return { ...common, mode: "proxy", components: [], noSuccessorHelp: NO_SUCCESSOR_HELP };
  return { ...common, mode: "agent", components: [{ name: "agent", command: invocation.command }], status: "agent" };
}

/** `show [--watch]`: the editor-context component is loaded here; a chain loads it after spawning the agent. */
async function show(watch: boolean): Promise<number> {
  const { EditorContextInjector, describeCurrentContext, watchCurrentContext } = await import("../../editor-context-proxy/src/index.js");
  const injector = new EditorContextInjector();
  if (!watch) return printLine(describeCurrentContext(injector));
  const close = await watchCurrentContext(injector, (text) => process.stdout.write(`${text}\n\n`));
  await stopSignal();
  await close();
  return 0;
}

// stdin may still hold the event loop open (wrap mode after the agent exits): runCli exits once stdout is flushed.
runCli(main, (error) => {
  stderrLogger(NAME)(`fatal: ${describeError(error)}`);
  return 1;
});
