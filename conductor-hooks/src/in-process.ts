// `symposium-conductor run` inside its client's process (the built-in chat):
// the same run as the CLI's (run.ts) — chain, in-process editor-context hook,
// router, setup agent, registry, failure reports, stop sequence,
// back-pressure — over streams the client gives instead of stdio, with what
// the process would write to stderr on a third. The agent and any proxies are
// still processes. No Node start and no bundle load per conversation, and one
// process less (docs/conductor.md: in the client's process).

import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { LauncherTarget } from "./launcher.js";
import { describeRunError, runFromConfig } from "./run.js";

const NAME = "symposium-conductor";
const USAGE = "Usage: symposium-conductor run [--config FILE] [--agent-choice NAME] [--trace FILE] [--proxy-dialect _proxy|proxy]";

export interface InProcessRunOptions {
  /** What follows `run` on the command line. */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the components run, and where relative paths in `args` start. */
  cwd: string;
  /** How to start this conductor as a program (the built-in agents, the setup agent). */
  self: LauncherTarget;
  /** The conductor's stdin: its end is the client leaving. */
  input: Readable;
  /** The conductor's stdout; ended when the run ends. While it is full the chain is held back, as by a pipe. */
  output: Writable;
  /** What the process would write to its stderr (its lines, and its components' with their names); ended with the run. */
  stderr: Writable;
  /** Aborting is the stop sequence, as on SIGTERM. */
  signal: AbortSignal;
}

export interface InProcessRun {
  /** The exit status the process would end with (2: it could not run). */
  readonly exited: Promise<number>;
  /** The agent's process (the chain's last component), once started. */
  agentProcess(): ChildProcess | undefined;
}

export function runInProcess(options: InProcessRunOptions): InProcessRun {
  const { stderr } = options;
  const log = (message: string): void => void stderr.write(`[${NAME}] ${message}\n`);
  let agent: ChildProcess | undefined;
  const exited = runFromConfig({
    ...options,
    log,
    debug: options.env.SYMPOSIUM_LOG === "debug" ? log : () => {},
    // The registry is fetched once per conversation, as by a conductor process.
    registryCache: { fetched: null },
    onStarted: (children) => (agent = children.at(-1)),
  })
    .catch((error: unknown) => {
      log(describeRunError(error, USAGE));
      return 2;
    })
    .then((status) => {
      options.output.end();
      stderr.end();
      return status;
    });
  return { exited, agentProcess: () => agent };
}
