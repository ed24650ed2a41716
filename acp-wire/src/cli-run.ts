// The shape every CLI of this repository shares: run `main`, exit with its
// status once stdout is flushed, and turn an unexpected error into a line on
// stderr (stdout is the protocol) and an exit status. It also keeps
// ELECTRON_RUN_AS_NODE from everything the CLI starts (run-as-node.ts).

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
