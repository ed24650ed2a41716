// The conductor's connections: its own stdio (toward the client) and one per
// component process. Each frames ndjson with the proxy package's LineSplitter
// and keeps the bookkeeping the router needs to remap request ids.

import type { ChildProcess } from "node:child_process";
import * as readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import { LineWriter, MAX_MESSAGE_BYTES, readLines, spawnProgram, type JsonRpcId, type LineHandler } from "../../acp-wire/src/index.js";
import type { Trace } from "./trace.js";

/** A request the conductor forwarded: where its answer must go back to. */
export interface ForwardedRequest {
  origin: Connection;
  originId: JsonRpcId;
}

export type ConnectionRole = "upstream" | "proxy" | "agent";

export abstract class Connection {
  /** Requests the conductor sent on this connection, by the id it gave them. */
  readonly pending = new Map<number, ForwardedRequest>();
  /** Requests received on this connection and forwarded, by their id here: where they went. */
  readonly forwarded = new Map<string, { target: Connection; id: number }>();
  private lastId = 0;

  constructor(
    readonly name: string,
    readonly role: ConnectionRole,
    protected readonly trace: Trace | null,
  ) {}

  nextId(): number {
    return ++this.lastId;
  }

  send(line: string | Buffer): void {
    this.trace?.record(this.name, "out", line);
    this.write(line);
  }

  protected abstract write(line: string | Buffer): void;
}

/** The conductor's own stdin/stdout: the client, or an outer conductor. */
export class StdioConnection extends Connection {
  private readonly writer: LineWriter;

  constructor(
    private readonly input: Readable,
    output: Writable,
    trace: Trace | null,
    onOutputClosed: () => void,
  ) {
    super("client", "upstream", trace);
    this.writer = new LineWriter(output, onOutputClosed);
  }

  listen(handler: LineHandler): Promise<void> {
    return readLines(this.input, MAX_MESSAGE_BYTES, handler);
  }

  protected write(line: string | Buffer): void {
    this.writer.writeLine(line);
  }
}

export interface ComponentSpec {
  name: string;
  /** Program and arguments; run directly, never through a shell. */
  command: string[];
}

export interface ProcessEvents extends LineHandler {
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
  onSpawnError(error: NodeJS.ErrnoException): void;
}

/** A component process: its stdio is an ACP connection, its stderr lines go to ours with its name. */
export class ProcessConnection extends Connection {
  readonly child: ChildProcess;
  private readonly writer: LineWriter;

  constructor(spec: ComponentSpec, role: "proxy" | "agent", trace: Trace | null, events: ProcessEvents) {
    super(spec.name, role, trace);
    const [program, ...args] = spec.command;
    this.child = spawnProgram(program!, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.once("error", (error: NodeJS.ErrnoException) => events.onSpawnError(error));
    this.child.once("exit", (code, signal) => events.onExit(code, signal));
    this.child.stdin!.on("error", () => {}); // a dead component is reported by its exit
    this.writer = new LineWriter(this.child.stdin!);
    void readLines(this.child.stdout!, MAX_MESSAGE_BYTES, events);
    prefixLines(this.child.stderr!, `[${spec.name}] `);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  protected write(line: string | Buffer): void {
    this.writer.writeLine(line);
  }
}

function prefixLines(stream: Readable, prefix: string): void {
  readline.createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    process.stderr.write(prefix + line + "\n");
  });
}
