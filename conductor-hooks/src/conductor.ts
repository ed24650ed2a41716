// The conductor's one way to run a chain: the component processes are spawned
// first, side by side, before anything else of ours is loaded (the router, the
// in-process components, the checkpoint store: chain-run.ts), so the agent's
// start overlaps the rest of ours; then the chain runs over them.

import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { stopProcesses, type Logger, type ProxyDialect } from "../../acp-wire/src/index.js";
import { ProcessConnection, type ComponentSpec, type SpawnContext } from "./connections.js";
import type { ChainMode } from "./router.js";
import { Trace } from "./trace.js";

export interface ConductorOptions {
  mode: ChainMode;
  /** Proxies in order; in agent mode the last one is the agent. */
  components: ComponentSpec[];
  dialect: ProxyDialect;
  /** The components' environment. */
  env: NodeJS.ProcessEnv;
  /** The components' working directory; default this process's. */
  cwd?: string;
  tracePath?: string;
  input: Readable;
  output: Writable;
  /** Where the components' stderr lines go, each prefixed with its name. */
  stderr: Writable;
  log: Logger;
  debug: Logger;
  /** Aborting stops the chain; the reason, a signal name, sets the exit status (the CLI aborts on SIGTERM/SIGINT/SIGHUP). */
  signal?: AbortSignal;
  /** Called once the components are spawned, with their processes in chain order (the agent last). */
  onStarted?(children: ChildProcess[]): void;
  /**
   * The in-process components: the conductor's (turn checkpoints, editor context, the agent's errors
   * explained; the default), or only the editor context (`symposium-editor-context`, which is this same
   * chain with the agent as its one process, or none under another conductor).
   */
  inProcess?: "conductor" | "editor-context";
  /** What the run ends with: the chain's status (the default), or the agent's own, as a program that wraps it does. */
  status?: "chain" | "agent";
  /** In proxy mode, what a plain `initialize` from the client is refused with (router.ts). */
  noSuccessorHelp?: string;
  /**
   * The agent is this conductor's own setup agent (run.ts, with no config): its answers may carry the first-run
   * hand-over. Every other chain's answers reach the client without it (setup-handoff.ts).
   */
  setupAgent?: boolean;
}

/** Runs the chain until the client leaves, a component ends or `signal` aborts; resolves with the exit status. */
export async function runConductor(options: ConductorOptions): Promise<number> {
  const trace = options.tracePath ? new Trace(options.tracePath) : null;
  const processes = spawnComponents(options, trace);
  options.onStarted?.(processes.map((connection) => connection.child));
  let chain: typeof import("./chain-run.js");
  try {
    chain = await import("./chain-run.js");
  } catch (error) {
    // A broken install (a chunk missing): nothing it started is left running.
    await stopProcesses(processes.map((connection) => connection.child));
    throw error;
  }
  return chain.runChain(options, processes, trace);
}

/** The components' processes in chain order (in agent mode the last is the agent), started now. */
function spawnComponents(options: ConductorOptions, trace: Trace | null): ProcessConnection[] {
  const { env, cwd, stderr, components, mode } = options;
  const context: SpawnContext = { env, stderr, ...(cwd !== undefined ? { cwd } : {}) };
  return components.map((spec, index) => {
    const isAgent = mode === "agent" && index === components.length - 1;
    return new ProcessConnection(spec, isAgent ? "agent" : "proxy", trace, context);
  });
}
