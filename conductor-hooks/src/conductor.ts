// Assembles and runs one chain: starts the components, wires them to the
// router, and ends them all (no orphans) when the client leaves, when the
// caller aborts (the CLI does on SIGTERM/SIGINT/SIGHUP), or when any
// component dies or closes its output.

import type { ChildProcess } from "node:child_process";
import { constants as osConstants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { MAX_MESSAGE_BYTES, exitStatus, rpcError, spawnErrorStatus, stopProcesses, type Logger, type ProxyDialect } from "../../acp-wire/src/index.js";
import { describeAgentFailure, type AgentEnd } from "./agent-failure.js";
import { agentErrorsComponent } from "./agent-errors.js";
import { RUN_CONFIG_ENV } from "./config.js";
import { ProcessConnection, StdioConnection, type ComponentSpec, type SpawnContext } from "./connections.js";
import { checkpointsHook } from "./checkpoints-hook.js";
import { editorContextHook } from "./editor-context-hook.js";
import { Router, type ChainMode, type ChainNode, type InProcessComponent } from "./router.js";
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
}

export function runConductor(options: ConductorOptions): Promise<number> {
  return new Promise((resolve) => new ChainRun(options, resolve).start());
}

class ChainRun {
  private readonly trace: Trace | null;
  private readonly upstream: StdioConnection;
  private readonly processes: ProcessConnection[] = [];
  private router: Router | null = null;
  private nodes: ChainNode[] = [];
  private stopping = false;

  constructor(
    private readonly options: ConductorOptions,
    private readonly done: (status: number) => void,
  ) {
    this.trace = options.tracePath ? new Trace(options.tracePath) : null;
    this.upstream = new StdioConnection(options.input, options.output, this.trace, () => this.stop("the client's output closed", 0));
  }

  /** Builds the connections, starts the components, then builds the router over them and reads the client. */
  start(): void {
    const { options } = this;
    options.components.forEach((spec, index) => {
      const isAgent = options.mode === "agent" && index === options.components.length - 1;
      this.processes.push(new ProcessConnection(spec, isAgent ? "agent" : "proxy", this.trace, this.spawnContext()));
    });
    const nodes = this.chainNodes();
    // The components start first, side by side, before anything else of ours runs: their lines reach the router
    // only from the next turn of the event loop, once it exists.
    nodes.forEach((node, position) => {
      if (node.kind === "process") this.startComponent(node.connection as ProcessConnection, position);
    });
    options.onStarted?.(this.processes.map((connection) => connection.child));
    this.nodes = nodes;
    const router = new Router({
      nodes,
      upstream: this.upstream,
      mode: options.mode,
      dialect: options.dialect,
      trace: this.trace,
      log: options.log,
      ...(options.noSuccessorHelp ? { noSuccessorHelp: options.noSuccessorHelp } : {}),
    });
    this.router = router;
    options.debug(`chain: client → ${nodes.map(describeNode).join(" → ")}${options.mode === "proxy" ? " → successor" : ""}`);
    void this.upstream
      .start({
        onLine: (line, framed) => router.fromUpstream(line, framed),
        onOversizedLine: (bytes) => router.oversized(this.upstream, bytes, MAX_MESSAGE_BYTES),
      })
      .then(() => this.stop("the client closed its input", 0));
    const signal = options.signal;
    if (signal?.aborted) this.stop("stopped", 128 + 15, true);
    signal?.addEventListener("abort", () => this.stop(`received ${String(signal.reason)}`, stopStatus(signal.reason), true), { once: true });
  }

  /**
   * The chain in order: the in-process components that see what the client sends first (checkpoints
   * before the editor context: they see the prompt as the client sent it, docs/checkpoints.md), then the
   * processes, with the agent's errors explained just in front of the agent.
   */
  private chainNodes(): ChainNode[] {
    const { env, log, debug, mode } = this.options;
    const conductor = (this.options.inProcess ?? "conductor") === "conductor";
    const first = [conductor ? checkpointsHook(env, log, debug) : null, editorContextHook(env, debug)];
    const inProcess = (component: InProcessComponent | null): ChainNode[] => (component === null ? [] : [{ kind: "in-process", component }]);
    const agent = mode === "agent" ? this.processes.at(-1) : undefined;
    return [
      ...first.flatMap(inProcess),
      ...this.processes.flatMap((connection): ChainNode[] => [
        ...(connection === agent && conductor ? inProcess(agentErrorsComponent(describedAgent(connection), env, log)) : []),
        { kind: "process", connection },
      ]),
    ];
  }

  private spawnContext(): SpawnContext {
    const { env, cwd, stderr } = this.options;
    return { env, stderr, ...(cwd !== undefined ? { cwd } : {}) };
  }

  private startComponent(connection: ProcessConnection, position: number): void {
    const spec = connection.spec;
    connection.start({
      onLine: (line, framed) => this.router!.fromComponent(position, line, framed),
      onOversizedLine: (bytes) => this.router!.oversized(connection, bytes, MAX_MESSAGE_BYTES),
      onUnterminatedLine: (bytes) => this.options.log(`component '${spec.name}' ended its output in the middle of a line; ${bytes} bytes dropped`),
      onEnded: (code, signal) => void this.componentEnded(spec, connection, { kind: "exit", code, signal }),
      onSpawnError: (error) => void this.componentEnded(spec, connection, { kind: "spawn-error", error }),
    });
  }

  /** The error says which component, how it ended, its last stderr lines and what to try; the log says the same. */
  private async componentEnded(spec: ComponentSpec, connection: ProcessConnection, end: AgentEnd): Promise<void> {
    if (end.kind === "spawn-error" && connection.role === "agent") this.agentSpawnError = end.error;
    if (this.stopping) return;
    await connection.stderrRead();
    if (this.stopping) return;
    const configPath = this.options.env[RUN_CONFIG_ENV] || undefined;
    const report = describeAgentFailure({
      name: spec.name,
      role: "component",
      command: spec.command,
      end,
      stderrTail: connection.stderrTail.lines(),
      env: this.options.env,
      ...(configPath ? { configPath } : {}),
    });
    this.options.log(report.data.details);
    this.router?.failAllPending({ ...rpcError("internal"), message: report.message, data: report.data });
    this.stop(report.message, 1);
  }

  /** Ends every component and what it started (STOP_SEQUENCE in acp-wire/src/processes.ts), then reports. */
  private closeComponents(): Promise<void> {
    return closeComponentsOf(this.nodes, this.options.log);
  }

  private stop(reason: string, status: number, bySignal = false): void {
    if (this.stopping) return;
    this.stopping = true;
    this.options.debug(`stopping: ${reason}`);
    void stopProcesses(this.processes.map((component) => component.child))
      .then(() => this.closeComponents())
      .then(() => this.trace?.close())
      .then(() => this.done(bySignal ? status : this.endStatus(status)));
  }

  /** The agent's spawn error, when it could not start. */
  private agentSpawnError: NodeJS.ErrnoException | null = null;

  /** The status to end with: the chain's, or (status "agent") the agent's own once it has ended. */
  private endStatus(chainStatus: number): number {
    const agent = this.processes.at(-1);
    if (this.options.status !== "agent" || agent === undefined) return chainStatus;
    if (this.agentSpawnError !== null) return spawnErrorStatus(this.agentSpawnError);
    return exitStatus(agent.child.exitCode, agent.child.signalCode);
  }
}

/** The in-process components' own ending (checkpoints finish the turns still open); a failure is logged, never fatal. */
function closeComponentsOf(nodes: ChainNode[], log: Logger): Promise<void> {
  const closing = nodes.flatMap((node) => (node.kind === "in-process" && node.component.close ? [node.component.close()] : []));
  return Promise.all(closing.map((close) => close.catch((error: Error) => log(`closing: ${error.message}`)))).then(() => {});
}

/** 128 + the signal's number for a signal name, as a shell reports it. */
function stopStatus(reason: unknown): number {
  const number = typeof reason === "string" ? osConstants.signals[reason as NodeJS.Signals] : undefined;
  return 128 + (number ?? osConstants.signals.SIGTERM);
}

/** The agent as its errors are explained: its name, its command, its stderr's tail. */
function describedAgent(connection: ProcessConnection) {
  return { name: connection.name, command: connection.spec.command, stderrTail: connection.stderrTail };
}

function describeNode(node: ChainNode): string {
  return node.kind === "process" ? node.connection.name : `${node.component.name} (in process)`;
}
