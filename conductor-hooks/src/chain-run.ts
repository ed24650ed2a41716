// One chain running: the router built over the component processes (already
// started by conductor.ts) and the in-process components, and ending them all
// (no orphans) when the client leaves, when the caller aborts (the CLI does on
// SIGTERM/SIGINT/SIGHUP), or when any component dies or closes its output.
// Loaded once the processes are spawned, so loading it overlaps their start.

import { constants as osConstants } from "node:os";
import { MAX_MESSAGE_BYTES, exitStatus, rpcError, spawnErrorStatus, stopProcesses, type Logger } from "../../acp-wire/src/index.js";
import { describeAgentFailure, type AgentEnd } from "./agent-failure.js";
import { agentErrorsComponent } from "./agent-errors.js";
import { RUN_CONFIG_ENV, disableCommand } from "./config.js";
import type { ConductorOptions } from "./conductor.js";
import { StdioConnection, type ComponentSpec, type ProcessConnection } from "./connections.js";
import { checkpointsHook } from "./checkpoints-hook.js";
import { editorContextHook } from "./editor-context-hook.js";
import { mcpServersComponent } from "./mcp-servers.js";
import { agentMetaGuard, handOverGuard } from "./setup-handoff.js";
import { Router, type ChainNode, type InProcessComponent } from "./router.js";
import { Trace } from "./trace.js";

/** Runs the chain over `processes` (the components, spawned in chain order, the agent last in agent mode) until it ends. */
export function runChain(options: ConductorOptions, processes: ProcessConnection[], trace: Trace | null): Promise<number> {
  return new Promise((resolve) => new ChainRun(options, processes, trace, resolve).start());
}

class ChainRun {
  private readonly upstream: StdioConnection;
  private router: Router | null = null;
  private nodes: ChainNode[] = [];
  private stopping = false;

  constructor(
    private readonly options: ConductorOptions,
    private readonly processes: ProcessConnection[],
    private readonly trace: Trace | null,
    private readonly done: (status: number) => void,
  ) {
    this.upstream = new StdioConnection(options.input, options.output, this.trace, () => this.stop("the client's output closed", 0));
  }

  /** Builds the chain over the processes, reads their output and the client's through the router. */
  start(): void {
    const { options } = this;
    this.clientLinesRead = afterOneTurnOfInput();
    const nodes = this.chainNodes();
    // Their lines reach the router only from the next turn of the event loop, once it exists.
    nodes.forEach((node, position) => {
      if (node.kind === "process") this.startComponent(node.connection as ProcessConnection, position);
    });
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
   * The chain in order: the in-process components that see what the client sends first (the hand-over
   * guard at the very front, unless the agent is our setup agent: no answer of any other reaches the client
   * with the first-run hand-over; checkpoints before the editor context: they see the prompt as the client
   * sent it, docs/checkpoints.md), then the processes, with the user's MCP servers added and the agent's
   * errors explained just in front of the agent (what the client, the editor and the proxies put in a
   * session is there already; mcp-servers.ts), and closest to the agent the guard that removes the conductor's
   * own `_meta` keys from its answers before the components above write theirs (setup-handoff.ts).
   */
  private chainNodes(): ChainNode[] {
    const { env, log, debug, mode } = this.options;
    const conductor = (this.options.inProcess ?? "conductor") === "conductor";
    const guard = this.options.setupAgent === true ? null : handOverGuard(log);
    const first = [guard, conductor ? checkpointsHook(env, log, debug) : null, editorContextHook(env, debug)];
    const inProcess = (component: InProcessComponent | null): ChainNode[] => (component === null ? [] : [{ kind: "in-process", component }]);
    const agent = mode === "agent" ? this.processes.at(-1) : undefined;
    return [
      ...first.flatMap(inProcess),
      ...this.processes.flatMap((connection): ChainNode[] => [
        ...(connection === agent && conductor ? inProcess(mcpServersComponent(env, log)) : []),
        ...(connection === agent && conductor ? inProcess(agentErrorsComponent(describedAgent(connection), env, log)) : []),
        ...(connection === agent ? inProcess(agentMetaGuard(log)) : []),
        { kind: "process", connection },
      ]),
    ];
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
    // A component that ended while this module was loading: the requests the client has sent by now are answered
    // with the report, as when the chain was built in the same turn as the spawn.
    await Promise.all([connection.stderrRead(), this.clientLinesRead]);
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
    // An extension of the config that fails: the user can start without it (docs/extensions.md).
    if (connection.role === "proxy" && configPath) {
      const hint = `To start without the extension '${spec.name}': ${disableCommand(spec.name)}`;
      report.message = `${report.message}. ${hint}`;
      report.data.details = `${report.data.details}\n${hint}`;
    }
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

  /** Settles once the client's input has been read for one turn of the event loop after the chain was built. */
  private clientLinesRead: Promise<void> = Promise.resolve();

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

/** Settles after the event loop's next poll for input (the first `setImmediate` runs before it, the second after). */
function afterOneTurnOfInput(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
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
