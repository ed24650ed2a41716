// Wrap mode: `symposium-editor-context -- <agent command>` starts the agent
// itself (no shell) and sits between its own stdio and the agent's.
//
// Client→agent: every line is screened (see screenClientLine); lines that are
// not prompts are forwarded as the same bytes, runs of them in one write.
// Agent→client: whole lines, forwarded as the same bytes, never parsed when
// laid out as JSON.stringify writes them; a half line is never passed on.
// Each direction stops reading its source while the other side's input is
// full, so memory stays bounded whoever stops reading. The requests in flight
// are remembered by id, so that an agent that dies or closes its output leaves
// none of them unanswered (docs/proxy.md, "Guarantees"). The agent's file
// requests about files with unsaved changes are answered here (unsaved-files.ts).

import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import {
  MAX_MESSAGE_BYTES,
  NEWLINE,
  LineWriter,
  canonicalHead,
  describeExit,
  encodeMessage,
  describeSpawnError,
  errorResponse,
  exactId,
  exitStatus,
  idJson,
  isRequest,
  isResponse,
  oversizedLineError,
  parseLine,
  readLines,
  rpcError,
  screenClientLine,
  spawnErrorStatus,
  spawnProgram,
  stopProcesses,
  RawId,
  type Logger,
} from "../../acp-wire/src/index.js";
import { INJECTED_METHODS, type EditorContextInjector } from "./injector.js";
import { FILE_METHODS, answerLine } from "./unsaved-files.js";

export interface WrapOptions {
  command: string;
  args: string[];
  injector: EditorContextInjector;
  input: Readable;
  output: Writable;
  log: Logger;
  maxMessageBytes?: number;
  /** Aborting ends the agent's process tree (the CLI aborts on SIGTERM/SIGINT/SIGHUP). */
  signal?: AbortSignal;
}

/** Runs until the agent has ended; resolves with the exit status to pass on. */
export function runWrapped(options: WrapOptions): Promise<number> {
  const agent = spawnProgram(options.command, options.args, { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve) => {
    agent.once("error", (error: NodeJS.ErrnoException) => {
      options.log(describeSpawnError(options.command, error));
      options.input.pause();
      resolve(spawnErrorStatus(error));
    });
    agent.once("spawn", () => void new WrappedAgent(agent, options).run().then(resolve));
  });
}

class WrappedAgent {
  private readonly toClient: LineWriter;
  private readonly toAgent: LineWriter;
  private readonly maxBytes: number;
  /** Client requests the agent has not answered yet, by the exact JSON text of their id. */
  private readonly inFlight = new Set<string>();
  private stopping: Promise<void> | null = null;
  private readonly exited: Promise<string>;
  private status = 1;

  constructor(
    private readonly agent: ChildProcess,
    private readonly options: WrapOptions,
  ) {
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.toClient = new LineWriter(options.output, () => void this.stop());
    this.toAgent = new LineWriter(agent.stdin!);
    agent.stdin!.on("error", () => {}); // The agent exiting mid-write is reported by its exit status.
    this.exited = new Promise((resolve) =>
      agent.once("exit", (code, signal) => {
        this.status = exitStatus(code, signal);
        resolve(`the agent ${describeExit(code, signal)}`);
      }),
    );
    options.signal?.addEventListener("abort", () => void this.stop(), { once: true });
  }

  async run(): Promise<number> {
    void this.readClient().then(() => this.stop());
    const outputEnded = this.readAgent();
    // The agent's output ends when it exits, or when it closes it while still running.
    await Promise.race([outputEnded, this.exited]);
    const exitedSoon = await Promise.race([this.exited, delay(100).then(() => null)]);
    if (exitedSoon === null) this.answerInFlight("the agent closed its output");
    const stopped = this.stop();
    // Read what the agent wrote before it ended; a child holding its stdout open is ended by the stop.
    await Promise.race([outputEnded, stopped]);
    this.answerInFlight(await Promise.race([this.exited, stopped.then(() => "the agent did not exit")]));
    this.options.input.pause();
    await stopped; // what the agent left behind is gone too (bounded: STOP_SEQUENCE.giveUpAfterMs)
    return this.status;
  }

  /** Closes the agent's input, then SIGTERM, then SIGKILL to its whole tree (STOP_SEQUENCE in acp-wire/src/processes.ts). */
  private stop(): Promise<void> {
    this.stopping ??= stopProcesses([this.agent]);
    return this.stopping;
  }

  private readClient(): Promise<void> {
    const input = this.options.input;
    return readLines(input, this.maxBytes, {
      onLine: (line, framed) => {
        const written = this.fromClient(line, framed);
        if (!written && !input.isPaused()) {
          input.pause();
          this.toAgent.onceDrained(() => input.resume());
        }
      },
      onOversizedLine: (bytes) => this.toClient.writeLine(errorResponse(null, oversizedLineError(bytes, this.maxBytes))),
    });
  }

  /** Forwards (or answers) one client line; false when the agent's input is full. */
  private fromClient(line: Buffer, framed: Buffer | null): boolean {
    const verdict = screenClientLine(line, INJECTED_METHODS);
    if (verdict.kind === "error") return (this.toClient.writeLine(errorResponse(verdict.id, verdict.error)), true);
    if (verdict.kind === "parsed") {
      const id = isRequest(verdict.message) ? exactId(line, verdict.message) : undefined;
      if (id !== undefined) this.inFlight.add(idJson(id));
      const rewritten = this.options.injector.rewrite(verdict.message);
      if (rewritten !== null) return this.toAgent.writeLine(encodeMessage(rewritten, id, null, null));
    } else if (verdict.head.kind === "request") {
      this.inFlight.add(verdict.head.id.json);
    }
    return framed ? this.toAgent.writeFramed(framed) : this.toAgent.writeLine(line);
  }

  /**
   * Agent→client: each chunk's whole lines leave in one write, as the bytes
   * they came in (the hot path: no per-line work unless requests are in
   * flight), framed by acp-wire's LineSplitter in runs: half a line is never
   * passed on, and a line over the limit is dropped and the agent told.
   */
  private readAgent(): Promise<void> {
    const output = this.agent.stdout!;
    return readLines(output, this.maxBytes, {
      onLines: (lines) => this.toClientLines(lines, output),
      onOversizedLine: (bytes) => this.agentLineTooLong(bytes),
      onUnterminatedLine: (bytes) => this.options.log(`the agent's output ended in the middle of a line; ${bytes} bytes dropped`),
    });
  }

  /** Whole lines (newlines included) from the agent, to the client; pauses the agent while the client is full. */
  private toClientLines(run: Buffer, output: Readable): void {
    // One scan of the chunk, only with a state file: the agent's file requests name a method "fs/…".
    const lines = this.options.injector.stateFile && run.includes(FILE_METHOD_MARK) ? this.answerFileRequests(run, output) : run;
    if (lines.length === 0) return;
    // One scan of the chunk: every answer carries an "id"; a flood of notifications carries none.
    if (this.inFlight.size > 0 && lines.includes(ID_MEMBER)) {
      for (let start = 0; start < lines.length;) {
        const end = lines.indexOf(NEWLINE, start);
        this.noteAnswer(lines.subarray(start, end));
        start = end + 1;
      }
    }
    if (!this.toClient.writeLines(lines) && !output.isPaused()) {
      output.pause();
      this.toClient.onceDrained(() => output.resume());
    }
  }

  /** Answers the agent's file requests that unsaved-files.ts decides; returns the lines left for the client. */
  private answerFileRequests(lines: Buffer, output: Readable): Buffer {
    const kept: Buffer[] = [];
    let keptFrom = 0;
    for (let start = 0; start < lines.length;) {
      const end = lines.indexOf(NEWLINE, start);
      const line = lines.subarray(start, end);
      const answer = line.includes(FILE_METHOD_MARK) ? this.fileAnswer(line) : null;
      if (answer !== null) {
        kept.push(lines.subarray(keptFrom, start));
        keptFrom = end + 1;
        if (!this.toAgent.writeLine(answer) && !output.isPaused()) {
          output.pause();
          this.toAgent.onceDrained(() => output.resume());
        }
      }
      start = end + 1;
    }
    if (keptFrom === 0) return lines;
    kept.push(lines.subarray(keptFrom));
    return Buffer.concat(kept);
  }

  /** The answer line to one agent line, or null to forward it. */
  private fileAnswer(line: Buffer): string | null {
    const head = canonicalHead(line);
    if (head !== null && (head.kind !== "request" || (head.method !== null && !FILE_METHODS.has(head.method)))) return null;
    const parsed = parseLine(line);
    if (!parsed.ok || !isRequest(parsed.message)) return null;
    const answer = this.options.injector.unsavedFiles.answer(parsed.message);
    return answer === null ? null : answerLine(exactId(line, parsed.message), answer);
  }

  /** The same rule as the conductor's: the sender of an oversized line is told, the line dropped. */
  private agentLineTooLong(bytes: number): void {
    this.options.log(`the agent sent a line of ${bytes} bytes, over the ${this.maxBytes}-byte limit; dropped`);
    this.toAgent.writeLine(errorResponse(null, oversizedLineError(bytes, this.maxBytes)));
  }

  /** Forgets a client request once the agent answers it. */
  private noteAnswer(line: Buffer): void {
    const head = canonicalHead(line);
    if (head !== null) {
      if (head.kind === "response") this.inFlight.delete(head.id.json);
      return;
    }
    if (!line.includes(RESULT) && !line.includes(ERROR_MEMBER)) return;
    const parsed = parseLine(line);
    if (parsed.ok && isResponse(parsed.message) && parsed.message.id !== undefined) this.inFlight.delete(idJson(exactId(line, parsed.message)));
  }

  private answerInFlight(why: string): void {
    const error = rpcError("internal", why);
    for (const id of this.inFlight) this.toClient.writeLine(errorResponse(new RawId(id), error));
    this.inFlight.clear();
  }
}

const ID_MEMBER = Buffer.from('"id"');
const RESULT = Buffer.from('"result"');
const ERROR_MEMBER = Buffer.from('"error"');
const FILE_METHOD_MARK = Buffer.from('"fs/');

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
