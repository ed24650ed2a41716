#!/usr/bin/env node
// symposium-editor-context: the editor-context ACP proxy's command line.

import { runChainedProxy } from "./chained-proxy.js";
import { EditorContextInjector } from "./injector.js";
import { debugLogger, describeError, exitStatus, printLine, runCli, stderrLogger, packageVersion } from "../../acp-wire/src/index.js";
import { describeCurrentContext, watchCurrentContext } from "./show.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { runWrapped } from "./wrap-mode.js";

const NAME = "symposium-editor-context";

const USAGE = `Usage:
  ${NAME}                          run as a proxy under an ACP conductor (stdio)
  ${NAME} -- <agent> [args...]     start <agent> and sit between this process's stdio and the agent's
  ${NAME} show [--watch]           print the block a prompt sent now would carry
  ${NAME} --help | --version

Each session/prompt gets a fresh <editor-context> block, read from the file
named by ${STATE_FILE_ENV}. The agent's fs/read_text_file of a file with unsaved
changes in the editor is answered from the editor's text, its fs/write_text_file
to one refused. Every other message passes unchanged.
Logs go to stderr; set SYMPOSIUM_LOG=debug to see why a prompt got no context.`;

export async function main(argv: string[]): Promise<number> {
  const log = stderrLogger(NAME);
  const debug = debugLogger(NAME);
  const injector = new EditorContextInjector({
    onSkip: (reason) => debug(`prompt forwarded without context: ${reason}`),
    onUnsavedNote: (note) => debug(note),
  });
  const [first, ...rest] = argv;

  if (first === "--help" || first === "-h") return printLine(USAGE);
  if (first === "--version" || first === "-V") return printLine(packageVersion());
  if (first === "show") return show(injector, rest);
  if (first === "--") return wrap(injector, rest, log);
  if (first === undefined) {
    await runChainedProxy({ injector, input: process.stdin, output: process.stdout, log });
    return 0;
  }
  log(`unknown argument '${first}' (to wrap an agent, put -- before its command)\n${USAGE}`);
  return 2;
}

async function wrap(injector: EditorContextInjector, command: string[], log: (message: string) => void): Promise<number> {
  const [program, ...args] = command;
  if (program === undefined) {
    log(`-- must be followed by the agent's command\n${USAGE}`);
    return 2;
  }
  const stop = new AbortController();
  let received: NodeJS.Signals | null = null;
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.once(signal, () => {
      received ??= signal;
      stop.abort();
    });
  }
  const status = await runWrapped({ command: program, args, injector, input: process.stdin, output: process.stdout, log, signal: stop.signal });
  // Stopped by a signal: exit as the shell says a program ended by it does, whatever the agent did.
  return received === null ? status : exitStatus(null, received);
}

async function show(injector: EditorContextInjector, args: string[]): Promise<number> {
  if (args.length === 0) return printLine(describeCurrentContext(injector));
  if (args.length === 1 && args[0] === "--watch") {
    const close = await watchCurrentContext(injector, (text) => process.stdout.write(`${text}\n\n`));
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await close();
    return 0;
  }
  stderrLogger(NAME)(`show takes only --watch\n${USAGE}`);
  return 2;
}

// stdin may still hold the event loop open (wrap mode after the agent exits): runCli exits once stdout is flushed.
runCli(main, (error) => {
  stderrLogger(NAME)(`fatal: ${describeError(error)}`);
  return 1;
});
