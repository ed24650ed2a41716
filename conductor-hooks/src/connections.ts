// The conductor's connections: its own stdio (toward the client) and one per
// component process. Each frames ndjson with acp-wire's LineSplitter; the
// router keeps the tables that remap request ids.

import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { LineWriter, MAX_MESSAGE_BYTES, NEWLINE, readLines, spawnProgram, type LineHandler } from "../../acp-wire/src/index.js";
import { StderrTail, relayStderr } from "./agent-failure.js";
import type { Trace } from "./trace.js";

export type ConnectionRole = "upstream" | "proxy" | "agent";

/**
 * One ACP connection of the conductor. It is built unstarted: `start` begins
 * reading, once whoever handles its lines (the router) exists. While a
 * message it delivered waits for room on another connection, its input is
 * paused (`holdUntilDrained`), so memory stays bounded on every hop.
 */
export abstract class Connection {
  /** The connections whose full input holds this one back. */
  private readonly heldBy = new Set<Connection>();

  constructor(
    readonly name: string,
    readonly role: ConnectionRole,
    protected readonly trace: Trace | null,
  ) {}

  /** Sends one line; false when the receiver's input is full. */
  send(line: string | Buffer): boolean {
    this.trace?.record(this.name, "out", line);
    // A line passed on as it came, with its newline: lines of one input chunk leave in one write.
    return Buffer.isBuffer(line) && line[line.length - 1] === NEWLINE ? this.writer.writeFramed(line) : this.writer.writeLine(line);
  }

  /** Stops reading this connection until `full` has room again. */
  holdUntilDrained(full: Connection): void {
    if (this.heldBy.has(full)) return;
    this.heldBy.add(full);
    this.input.pause();
    full.writer.onceDrained(() => {
      this.heldBy.delete(full);
      if (this.heldBy.size === 0) this.input.resume();
    });
  }

  protected abstract readonly writer: LineWriter;
  protected abstract readonly input: Readable;
}

/** The conductor's own stdin/stdout: the client, or an outer conductor. */
export class StdioConnection extends Connection {
  protected readonly writer: LineWriter;

  constructor(
    protected readonly input: Readable,
    output: Writable,
    trace: Trace | null,
    onOutputClosed: () => void,
  ) {
    super("client", "upstream", trace);
    this.writer = new LineWriter(output, onOutputClosed);
  }

  /** Resolves when the client closes its input. */
  start(handler: LineHandler): Promise<void> {
    return readLines(this.input, MAX_MESSAGE_BYTES, handler);
  }
}

export interface ComponentSpec {
  name: string;
  /** Program and arguments; run directly, never through a shell. */
  command: string[];
  /** Variables set for this component alone (an AgentConfig's "env"), over the conductor's own. */
  env?: Record<string, string>;
}

/** Where a component runs: its environment (under its spec's own variables), its folder, where its stderr lines go. */
export interface SpawnContext {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  stderr: Writable;
}

export interface ProcessEvents extends LineHandler {
  /** The component exited, or closed its output (then `code` and `signal` are both null if it still runs). */
  onEnded(code: number | null, signal: NodeJS.Signals | null): void;
  onSpawnError(error: NodeJS.ErrnoException): void;
}

/** How long after a component closes its output its exit status is waited for, to name how it ended. */
const EXIT_STATUS_WAIT_MS = 1_000;

/**
 * A component process: its stdio is an ACP connection, its stderr lines go to ours with its name. It is
 * spawned when built (the chain's processes start before the rest of the conductor is even loaded); its
 * output is read, and its end reported, once `start` is given whoever handles them.
 */
export class ProcessConnection extends Connection {
  readonly child: ChildProcess;
  /** Its last stderr lines, for the report when it fails. */
  readonly stderrTail = new StderrTail();
  private readonly stderrClosed: Promise<void>;
  private readonly exited: Promise<void>;
  /** Settles with the spawn error, if there is one (it comes on a later turn of the event loop). */
  private readonly spawnFailed: Promise<NodeJS.ErrnoException>;
  protected readonly writer: LineWriter;
  protected readonly input: Readable;

  constructor(
    readonly spec: ComponentSpec,
    role: "proxy" | "agent",
    trace: Trace | null,
    context: SpawnContext,
  ) {
    super(spec.name, role, trace);
    const [program, ...args] = spec.command;
    const { env, cwd, stderr } = context;
    this.child = spawnProgram(program!, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: spec.env ? { ...env, ...spec.env } : env,
      ...(cwd !== undefined ? { cwd } : {}),
    });
    this.spawnFailed = new Promise((resolve) => this.child.once("error", resolve));
    this.exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin!.on("error", () => {}); // a dead component is reported by its exit
    this.writer = new LineWriter(this.child.stdin!);
    this.input = this.child.stdout!;
    this.stderrClosed = relayStderr(this.child.stderr!, `[${spec.name}] `, this.stderrTail, stderr);
  }

  /** Reads its output (what came before waited in the pipe) and reports how it ends, its spawn failing included. */
  start(events: ProcessEvents): void {
    void this.spawnFailed.then((error) => events.onSpawnError(error));
    // End of its output is the component ending: wait a moment for its exit status, to name it (a
    // loaded machine can take a few hundred ms between the two; one that keeps running is reported after this).
    void readLines(this.input, MAX_MESSAGE_BYTES, events)
      .then(() => Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, EXIT_STATUS_WAIT_MS))]))
      .then(() => events.onEnded(this.child.exitCode, this.child.signalCode));
    void this.exited.then(() => events.onEnded(this.child.exitCode, this.child.signalCode));
  }

  /** Resolves once its stderr is read to the end (at most 200 ms after it is asked). */
  stderrRead(): Promise<void> {
    return Promise.race([this.stderrClosed, new Promise<void>((resolve) => setTimeout(resolve, 200))]);
  }
}
