// A server's memory, read from the outside (/proc on Linux, ps elsewhere),
// for the tests that flood the chat server: its peak resident size while a
// test runs, and a stop before a plainly failing build takes the machine's memory.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import type { ChildProcess } from "node:child_process";

/** Resident memory of a process, in MB: /proc on Linux, ps elsewhere; 0 once it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    // no /proc (macOS), or the process is gone
  }
  try {
    return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
  } catch {
    return 0;
  }
}

/** Samples `child`'s memory every 50 ms; past `abortMb` the child is killed (the test has failed). */
export function watchMemory(child: ChildProcess, abortMb: number): { peakMb(): number; stop(): void } {
  const pid = child.pid!;
  let peak = 0;
  const timer = setInterval(() => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    peak = Math.max(peak, rssMb(pid));
    if (peak > abortMb) child.kill("SIGKILL");
  }, 50);
  return { peakMb: () => peak, stop: () => clearInterval(timer) };
}
