// The shape every CLI of this repository shares: run `main`, exit with its
// status once stdout is flushed, and turn an unexpected error into a line on
// stderr (stdout is the protocol) and an exit status. It also keeps
// ELECTRON_RUN_AS_NODE from everything the CLI starts (run-as-node.ts). Also
// what each CLI needs around it: its arguments (node:util's parseArgs, errors
// as UsageError) and the signals that ask it to stop.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { exitAfterFlush } from "./processes.js";
import { forgetRunAsNode } from "./run-as-node.js";

/** Prints a CLI's answer (help, version, `show`) on stdout; returns exit status 0. */
export function printLine(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

/** Runs `main(argv)`; an error goes to `reportError`, which logs it and returns the exit status. */
export function runCli(main: (argv: string[]) => Promise<number>, reportError: (error: unknown) => number): void {
  forgetRunAsNode();
  main(process.argv.slice(2)).then(
    (status) => exitAfterFlush(status),
    (error: unknown) => process.exit(reportError(error)),
  );
}

/** An error's stack, or its text when it has none. */
export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Arguments a CLI cannot run with: its message says what is wrong; the CLI prints it with its usage, exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** node:util's parseArgs, strict, with its errors (unknown option, missing value...) as UsageError. */
export function parseCommandLine<T extends Omit<ParseArgsConfig, "strict">>(config: T): ReturnType<typeof parseArgs<T & { strict: true }>> {
  try {
    return parseArgs({ ...config, strict: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw error;
    // Node's text for an unknown option goes on about positionals after `--`: its first sentence says it all.
    const message = (error as Error).message;
    throw new UsageError(code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? message.split(". ")[0]! : message);
  }
}

/**
 * The signals that ask a CLI to stop: SIGTERM, SIGINT (Ctrl+C), SIGHUP (the
 * terminal closed; on Windows, the console window), and on Windows SIGBREAK
 * (Ctrl+Break; Windows never raises SIGTERM).
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP", ...(process.platform === "win32" ? (["SIGBREAK"] as const) : [])];

/**
 * Calls `stop` with the first stop signal received. Each signal is caught
 * once: the same signal again ends the process at once (Node's default), the
 * way out when stopping hangs. Returns a function that stops listening.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  let stopped = false;
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = (): void => {
      if (stopped) return;
      stopped = true;
      stop(signal);
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  return () => handlers.forEach(([signal, handler]) => process.off(signal, handler));
}

/** Resolves with the first stop signal (onStopSignal). */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => onStopSignal(resolve));
}
