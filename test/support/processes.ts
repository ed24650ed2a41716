// Starting the project's real programs and fixtures as processes, and talking
// to them over their real stdio.

import { strict as assert } from "node:assert";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after } from "node:test";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";

/** The compiled output root (out/). */
export const OUT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO_DIR = path.resolve(OUT_DIR, "..");

/** The bundled CLIs: what package.json's bin and the .vsix run. */
export const PROXY_CLI = path.join(REPO_DIR, "dist", "symposium-editor-context.mjs");
export const CONDUCTOR_CLI = path.join(REPO_DIR, "dist", "symposium-conductor.mjs");
export const REPORTING_AGENT = path.join(OUT_DIR, "test", "fixtures", "reporting-agent.js");
export const RAW_AGENT = path.join(OUT_DIR, "test", "fixtures", "raw-agent.js");
export const AGENT_WITH_CHILD = path.join(OUT_DIR, "test", "fixtures", "agent-with-child.js");

export interface RunningProcess {
  child: ChildProcess;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or 128+signal) once the process has exited. */
  exited: Promise<number>;
}

/** `cwd`: where it runs (default ours); a program run as another user needs one that user can enter. */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): RunningProcess {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env }, cwd: options.cwd });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number>((resolve) => {
    child.once("close", (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
  });
  return { child, stderr: () => stderr, exited };
}

export function startNode(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): RunningProcess {
  return startProcess(process.execPath, [script, ...args], env, options);
}

/**
 * Runs `op`; when it fails, the error's message gains the last lines `proc` wrote on stderr (a
 * conductor relays its agent's, each prefixed "[agent] "), so the cause of, say, an agent that
 * exited at start is on screen in the test's failure.
 */
export async function withStderrOnFailure<T>(proc: Pick<RunningProcess, "stderr">, op: () => Promise<T>, lines = 30): Promise<T> {
  try {
    return await op();
  } catch (error) {
    const tail = proc.stderr().trimEnd().split("\n").slice(-lines).join("\n");
    if (error instanceof Error && tail !== "") error.message += `\n--- the last lines it wrote on stderr:\n${tail}`;
    throw error;
  }
}

/** An ACP stream over a child's stdio, for the SDK's client or agent app. */
export function streamTo(child: ChildProcess): Stream {
  return ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
}

/** Collects a child's stdout as ndjson lines, for byte-level assertions. */
export class LineCollector {
  readonly lines: string[] = [];
  private buffer = "";
  private waiters: Array<() => void> = [];

  constructor(stream: NodeJS.ReadableStream) {
    stream.on("data", (chunk: Buffer) => {
      this.buffer += chunk.toString("utf8");
      let newline = this.buffer.indexOf("\n");
      while (newline !== -1) {
        this.lines.push(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
        newline = this.buffer.indexOf("\n");
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Waits until `count` lines have arrived (or fails after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 5_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${count} lines; got ${this.lines.length}: ${this.lines.join("\n")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.lines.slice(0, count);
  }

  parsed(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/** Calls `onMessage` with each ndjson line of `stream`, parsed. */
export class LineCollectorSink {
  private buffer = "";

  constructor(stream: NodeJS.ReadableStream, onMessage: (message: Record<string, unknown>) => void) {
    stream.on("data", (chunk: Buffer) => {
      this.buffer += chunk.toString("utf8");
      let newline = this.buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim()) onMessage(JSON.parse(line) as Record<string, unknown>);
        newline = this.buffer.indexOf("\n");
      }
    });
  }
}

export function tempDir(prefix = "symposium-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Called at a test file's top level: a maker of temporary folders (each by its real path, as
 * git and the programs report it), all removed after the file's tests.
 */
export function scratchDirs(): (prefix: string) => string {
  const made: string[] = [];
  after(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  return (prefix) => {
    const dir = fs.realpathSync(tempDir(prefix));
    made.push(dir);
    return dir;
  };
}

/** Resolves when `predicate` holds, polling; fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every live descendant of `pid`, from the process table (POSIX `ps`). */
export function descendants(pid: number): number[] {
  const table = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** True while `pid` runs; a zombie (dead, not yet reaped by init) counts as ended. */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // No /proc (macOS) or no such process: ask the kernel directly.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A JSON-RPC response as the tests read one: `error` checked to have its code and message. */
export interface RpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  [key: string]: unknown;
}

/** Parses a line the process wrote as a JSON-RPC reply, failing the test when it is not one. */
export function parseReply(line: string): RpcReply {
  const value: unknown = JSON.parse(line);
  assert.ok(typeof value === "object" && value !== null && !Array.isArray(value), `not a JSON-RPC message: ${line}`);
  if ("error" in value) {
    const error = value.error;
    assert.ok(typeof error === "object" && error !== null && "code" in error && typeof error.code === "number", `an error without a code: ${line}`);
    assert.ok("message" in error && typeof error.message === "string", `an error without a message: ${line}`);
  }
  return value as RpcReply;
}
