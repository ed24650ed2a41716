// What the reliability tests share: the two ways a chain runs (wrap mode and
// the conductor), the fault agent, a raw line client, and memory readings.
//
// RELIABILITY_DIST may name another folder holding the two bundled CLIs (an
// older build), to check that a test fails on the code it was written against.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CONDUCTOR_CLI, LineCollector, OUT_DIR, PROXY_CLI, eventually, startNode, tempDir, type RunningProcess } from "./processes.js";

const DIST = process.env.RELIABILITY_DIST;
export const PROXY = DIST ? path.join(DIST, path.basename(PROXY_CLI)) : PROXY_CLI;
export const CONDUCTOR = DIST ? path.join(DIST, path.basename(CONDUCTOR_CLI)) : CONDUCTOR_CLI;
export const FAULT_AGENT = path.join(OUT_DIR, "test", "fixtures", "fault-agent.js");
export const POSIX = process.platform !== "win32";
export const STATE_ENV = "SYMPOSIUM_EDITOR_STATE_FILE";

export type Shape = "wrap" | "conductor";
export const SHAPES: readonly Shape[] = ["wrap", "conductor"];

/** The fault agent behind wrap mode or behind the conductor (with `proxies` proxy processes in between). */
export function chainWithFaultAgent(shape: Shape, env: NodeJS.ProcessEnv = {}, proxies = 0): RunningProcess {
  const agent = [process.execPath, FAULT_AGENT];
  if (shape === "wrap") return startNode(PROXY, ["--", ...agent], { [STATE_ENV]: "", ...env });
  const proxy = `${process.execPath} ${PROXY}`;
  return startNode(CONDUCTOR, ["agent", ...Array<string>(proxies).fill(proxy), agent.join(" ")], { [STATE_ENV]: "", ...env });
}

export interface RawClient {
  proc: RunningProcess;
  out: LineCollector;
  send(message: unknown): void;
  /** The parsed lines received so far that answer request `id`. */
  answers(id: unknown): Array<Record<string, unknown>>;
}

export function rawClient(proc: RunningProcess): RawClient {
  const out = new LineCollector(proc.child.stdout!);
  return {
    proc,
    out,
    send: (message) => proc.child.stdin!.write((typeof message === "string" ? message : JSON.stringify(message)) + "\n"),
    answers: (id) => out.parsed().filter((message) => message.id === id && !("method" in message)),
  };
}

/** Sends one prompt; resolves with the prompt the agent received (the fault agent echoes params). */
export async function promptThrough(client: RawClient, id: number, text = "hi"): Promise<{ blocks: Array<{ text: string }> }> {
  client.send({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text }] } });
  await eventually(() => client.answers(id).length > 0, 10_000, `answer to prompt ${id}`);
  const answer = client.answers(id)[0]!;
  assert.ok(answer.result, `prompt ${id} failed: ${JSON.stringify(answer.error)}`);
  return { blocks: (answer.result as { received: { prompt: Array<{ text: string }> } }).received.prompt };
}

export async function closeClient(client: RawClient): Promise<number> {
  client.proc.child.stdin!.end();
  return client.proc.exited;
}

/** The chain with the fault agent started with a child (see fault-agent.ts); resolves once the child runs, with its pid. */
export async function chainWithChild(shape: Shape, env: NodeJS.ProcessEnv): Promise<{ client: RawClient; child: number }> {
  const file = pidFile();
  const client = rawClient(chainWithFaultAgent(shape, { ...env, CHILD_PID_FILE: file }));
  await eventually(() => fs.existsSync(file) && fs.readFileSync(file, "utf8") !== "", 5_000, "the agent's child");
  return { client, child: readPid(file) };
}

/** Resident memory of a process in MB (Linux /proc), or null where it cannot be read. */
export function residentMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** Samples the peak resident memory of `pids` every 50 ms until `until` resolves. */
export async function peakResidentMb(pids: number[], until: Promise<unknown>): Promise<number[]> {
  const peaks = pids.map(() => 0);
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    pids.forEach((pid, index) => (peaks[index] = Math.max(peaks[index]!, residentMb(pid) ?? 0)));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return peaks;
}

export function pidFile(): string {
  return path.join(tempDir(), "child.pid");
}

export function readPid(file: string): number {
  return Number(fs.readFileSync(file, "utf8"));
}

/** Resolves with the process's exit status, or with "still running" after `ms`. */
export function exitWithin(proc: RunningProcess, ms: number): Promise<number | "still running"> {
  return Promise.race([proc.exited, sleep(ms).then(() => "still running" as const)]);
}

/** Kills a process a failed test left running (by pid, with SIGKILL). */
export function reap(...pids: Array<number | undefined>): void {
  for (const pid of pids) {
    if (pid === undefined) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
