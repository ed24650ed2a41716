// The ACP `terminal` client capability for one agent session: commands the
// agent runs (terminal/create), their output kept up to the agent's byte
// limit (cut at the start, at a character boundary), exit, kill and release.
// Memory is bounded per session (docs/webchat.md: terminals): the limits of
// its terminals not yet released add up to at most SESSION_OUTPUT_BYTES, so a
// server keeps at most that times its conversations; the page is sent views
// (the end of the output), which a slow page gets merged (conversation.ts).
// Each command is started without a shell, as given (command + args, env
// added to the agent's), in a folder inside the project, and leads its own
// process group: every one is ended with the session (acp-wire's stop
// sequence), whatever it started.

import type { ChildProcess } from "node:child_process";
import { RequestError, type CreateTerminalRequest, type TerminalExitStatus } from "@agentclientprotocol/sdk";
import { isRunning, spawnProgram, stopProcesses, type Logger } from "../../acp-wire/src/index.js";
import type { TranscriptEvent } from "../page/protocol.js";
import type { ProjectFiles } from "./project-files.js";
import { ByteRing, charStartIn } from "./transcript.js";

/** Output kept when the agent names no limit. */
export const DEFAULT_OUTPUT_BYTES = 1024 * 1024;
/** The most any terminal keeps, whatever the agent asks: the server's memory is bounded. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Terminals one session may hold at once (released ones do not count). */
export const MAX_TERMINALS = 64;
/** The most output one session's terminals (those not released) may keep together: the sum of their limits. */
export const SESSION_OUTPUT_BYTES = 32 * 1024 * 1024;
/** What the page is shown of a terminal's output (its end). */
export const PAGE_OUTPUT_BYTES = 64 * 1024;
/** The page hears of new output at most this often. */
const PAGE_UPDATE_MS = 100;

type TerminalEvent = TranscriptEvent & { kind: "terminal" };

export interface TerminalsOptions {
  files: ProjectFiles;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The page's view of a terminal; `keep`: the final one, kept in the transcript. */
  onOutput(event: TerminalEvent, keep: boolean): void;
}

interface Terminal {
  id: string;
  child: ChildProcess;
  /** The output kept: the last `limit` bytes, starting at a character. */
  output: ByteRing;
  truncated: boolean;
  limit: number;
  exit?: TerminalExitStatus;
  exited: Promise<TerminalExitStatus>;
  pageTimer?: NodeJS.Timeout;
}

export class Terminals {
  private readonly live = new Map<string, Terminal>();
  private count = 0;

  constructor(private readonly options: TerminalsOptions) {}

  create(params: CreateTerminalRequest): { terminalId: string } {
    if (this.live.size >= MAX_TERMINALS)
      throw RequestError.invalidParams({}, `this session already holds ${MAX_TERMINALS} terminals: release some (terminal/release) first`);
    if (typeof params.command !== "string" || params.command === "") throw RequestError.invalidParams({}, "terminal/create needs a command");
    const args = params.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) throw RequestError.invalidParams({}, "terminal/create: args must be strings");
    const limit = outputLimit(params.outputByteLimit);
    this.checkBudget(limit);
    const cwd = this.options.files.directory(params.cwd ?? this.options.projectDir);
    const env = { ...this.options.env };
    for (const variable of params.env ?? []) env[String(variable.name)] = String(variable.value);
    const id = `term-${++this.count}`;
    const child = spawnProgram(params.command, args, { stdio: ["ignore", "pipe", "pipe"], cwd, env });
    const terminal: Terminal = { id, child, output: new ByteRing(limit), truncated: false, limit, exited: undefined! };
    terminal.exited = new Promise((resolve) => {
      const done = (exit: TerminalExitStatus) => {
        if (terminal.exit) return;
        terminal.exit = exit;
        this.toPage(terminal, true);
        resolve(exit);
      };
      child.on("error", (error) => {
        this.append(terminal, Buffer.from(`${params.command}: ${error.message}\n`));
        done({ exitCode: null, signal: null });
      });
      // "close": the pipes are drained too, so the output is whole when the agent hears of the exit.
      child.on("close", (exitCode, signal) => done({ exitCode, signal }));
    });
    for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => this.append(terminal, chunk));
    this.live.set(id, terminal);
    this.options.log(`terminal ${id} (pid ${child.pid ?? "?"}): ${params.command} ${args.join(" ")}`.trim());
    return { terminalId: id };
  }

  output(terminalId: string): { output: string; truncated: boolean; exitStatus: TerminalExitStatus | null } {
    const terminal = this.find(terminalId);
    return { output: text(terminal, terminal.limit), truncated: terminal.truncated, exitStatus: terminal.exit ?? null };
  }

  async waitForExit(terminalId: string): Promise<TerminalExitStatus> {
    const { exitCode, signal } = await this.find(terminalId).exited;
    return { exitCode, signal };
  }

  /** Ends the command (and what it started); the terminal stays readable until released. */
  async kill(terminalId: string): Promise<void> {
    const terminal = this.find(terminalId);
    if (isRunning(terminal.child)) await stopProcesses([terminal.child]);
  }

  async release(terminalId: string): Promise<void> {
    const terminal = this.find(terminalId);
    this.live.delete(terminalId);
    clearTimeout(terminal.pageTimer);
    if (isRunning(terminal.child)) await stopProcesses([terminal.child]);
  }

  /** Ends every terminal's process tree: the session is ending. */
  async stopAll(): Promise<void> {
    const terminals = [...this.live.values()];
    this.live.clear();
    for (const terminal of terminals) clearTimeout(terminal.pageTimer);
    await stopProcesses(terminals.map((terminal) => terminal.child).filter(isRunning));
  }

  /** The page's view of each terminal still running: a page attaching mid-run sees their output at once. */
  snapshots(): TerminalEvent[] {
    const events: TerminalEvent[] = [];
    for (const terminal of this.live.values()) if (!terminal.exit) this.toPage(terminal, false, (event) => events.push(event));
    return events;
  }

  /** Refuses a terminal whose limit would take this session's terminals past SESSION_OUTPUT_BYTES. */
  private checkBudget(limit: number): void {
    let held = 0;
    for (const terminal of this.live.values()) held += terminal.limit;
    if (held + limit <= SESSION_OUTPUT_BYTES) return;
    const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
    throw RequestError.invalidParams(
      { outputByteLimit: limit, heldBytes: held, maxBytes: SESSION_OUTPUT_BYTES },
      `this session's terminals may keep ${mib(SESSION_OUTPUT_BYTES)} of output in all, and those not released keep up to ${mib(held)}: ` +
        `release some (terminal/release), or ask for a smaller outputByteLimit than ${mib(limit)}`,
    );
  }

  private find(terminalId: string): Terminal {
    const terminal = this.live.get(String(terminalId));
    if (!terminal) throw RequestError.invalidParams({ terminalId }, `no terminal ${terminalId} in this session (released, or never created)`);
    return terminal;
  }

  /** Keeps the chunk, dropping the oldest output (forward to a character's start) beyond the limit. */
  private append(terminal: Terminal, chunk: Buffer): void {
    const { output, limit } = terminal;
    if (chunk.length > limit) {
      chunk = chunk.subarray(charStartIn(chunk, chunk.length - limit));
      terminal.truncated = true;
    }
    if (output.length + chunk.length > limit) {
      output.dropTo(output.charStart(output.end - (limit - chunk.length)));
      terminal.truncated = true;
    }
    if (chunk.length > 0) output.append(chunk);
    terminal.pageTimer ??= setTimeout(() => {
      terminal.pageTimer = undefined;
      if (!terminal.exit && this.live.has(terminal.id)) this.toPage(terminal, false);
    }, PAGE_UPDATE_MS);
  }

  private toPage(terminal: Terminal, keep: boolean, deliver = (event: TerminalEvent) => this.options.onOutput(event, keep)): void {
    const exitStatus = terminal.exit ? { exitCode: terminal.exit.exitCode ?? null, signal: terminal.exit.signal ?? null } : undefined;
    deliver({
      kind: "terminal",
      terminalId: terminal.id,
      output: text(terminal, PAGE_OUTPUT_BYTES),
      truncated: terminal.truncated || terminal.output.length > PAGE_OUTPUT_BYTES,
      ...(exitStatus ? { exitStatus } : {}),
    });
  }
}

function outputLimit(requested: number | null | undefined): number {
  if (requested === undefined || requested === null) return DEFAULT_OUTPUT_BYTES;
  if (!Number.isInteger(requested) || requested < 0)
    throw RequestError.invalidParams({ outputByteLimit: requested }, "outputByteLimit must be a whole number of bytes, 0 or more");
  return Math.min(requested, MAX_OUTPUT_BYTES);
}

/** The last `most` bytes of the terminal's output (from a character's start) as text. */
function text(terminal: Terminal, most: number): string {
  const { output } = terminal;
  const from = output.length > most ? output.charStart(output.end - most) : output.start;
  return output.read(from, output.end).toString("utf8");
}
