// Assembles and runs one chain: starts the components, wires them to the
// router, and ends them all (no orphans) when the client leaves, on
// SIGTERM/SIGINT, or when any component dies.

import { constants as osConstants } from "node:os";
import type { Readable, Writable } from "node:stream";
import {
  MAX_MESSAGE_BYTES,
  describeExit,
  describeSpawnError,
  rpcError,
  stopProcesses,
  type Logger,
  type ProxyDialect,
} from "../../acp-wire/src/index.js";
import { ProcessConnection, StdioConnection, type ComponentSpec } from "./connections.js";
import { editorContextHook } from "./editor-context-hook.js";
import { Router, type ChainMode, type ChainNode } from "./router.js";
import { Trace } from "./trace.js";

export interface ConductorOptions {
  mode: ChainMode;
  /** Proxies in order; in agent mode the last one is the agent. */
  components: ComponentSpec[];
  dialect: ProxyDialect;
  env: NodeJS.ProcessEnv;
  tracePath?: string;
  input: Readable;
  output: Writable;
  log: Logger;
  debug: Logger;
}

export function runConductor(options: ConductorOptions): Promise<number> {
  return new Promise((resolve) => new ChainRun(options, resolve).start());
}

class ChainRun {
  private readonly trace: Trace | null;
  private readonly upstream: StdioConnection;
  private readonly processes: ProcessConnection[] = [];
  private router!: Router;
  private stopping = false;

  constructor(
    private readonly options: ConductorOptions,
    private readonly done: (status: number) => void,
  ) {
    this.trace = options.tracePath ? new Trace(options.tracePath) : null;
    this.upstream = new StdioConnection(options.input, options.output, this.trace, () => this.stop("the client's output closed", 0));
  }

  start(): void {
    const nodes: ChainNode[] = [];
    const hook = editorContextHook(this.options.env, this.options.debug);
    if (hook !== null) nodes.push({ kind: "in-process", component: hook });
    this.options.components.forEach((spec, index) => {
      const isAgent = this.options.mode === "agent" && index === this.options.components.length - 1;
      nodes.push({ kind: "process", connection: this.startComponent(spec, isAgent, nodes.length) });
    });
    this.router = new Router({
      nodes,
      upstream: this.upstream,
      mode: this.options.mode,
      dialect: this.options.dialect,
      trace: this.trace,
      log: this.options.log,
    });
    this.options.debug(`chain: client → ${nodes.map(describeNode).join(" → ")}${this.options.mode === "proxy" ? " → successor" : ""}`);
    void this.upstream
      .listen({
        onLine: (line) => this.router.fromUpstream(line),
        onOversizedLine: (bytes) => this.router.oversized(this.upstream, bytes, MAX_MESSAGE_BYTES),
      })
      .then(() => this.stop("the client closed its input", 0));
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      process.once(signal, () => this.stop(`received ${signal}`, 128 + (osConstants.signals[signal] ?? 0)));
    }
  }

  private startComponent(spec: ComponentSpec, isAgent: boolean, position: number): ProcessConnection {
    const connection: ProcessConnection = new ProcessConnection(spec, isAgent ? "agent" : "proxy", this.trace, {
      onLine: (line) => this.router.fromComponent(position, line),
      onOversizedLine: (bytes) => this.router.oversized(connection, bytes, MAX_MESSAGE_BYTES),
      onExit: (code, signal) => this.componentEnded(spec.name, describeExit(code, signal)),
      onSpawnError: (error) => this.componentEnded(spec.name, `could not start: ${describeSpawnError(spec.command[0]!, error)}`),
    });
    this.processes.push(connection);
    return connection;
  }

  private componentEnded(name: string, what: string): void {
    if (this.stopping) return;
    const message = `component '${name}' ${what}`;
    this.options.log(message);
    this.router.failAllPending({ ...rpcError("internal"), message, data: { component: name } });
    this.stop(message, 1);
  }

  /** Ends every component and what it started (STOP_SEQUENCE in acp-wire/src/processes.ts), then reports. */
  private stop(reason: string, status: number): void {
    if (this.stopping) return;
    this.stopping = true;
    this.options.debug(`stopping: ${reason}`);
    void stopProcesses(this.processes.map((component) => component.child))
      .then(() => this.trace?.close())
      .then(() => this.done(status));
  }
}

function describeNode(node: ChainNode): string {
  return node.kind === "process" ? node.connection.name : `${node.component.name} (in process)`;
}
