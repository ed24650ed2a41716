// A busy machine for the tests that must hold under load (a reload, a stop):
// processes that each keep a core busy until they are stopped.

import { spawn, type ChildProcess } from "node:child_process";

export interface CpuLoad {
  stop(): void;
}

/** `count` busy-loop Node processes, running until `stop()` (or this process's exit). */
export function busyLoops(count: number): CpuLoad {
  const children: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  const stop = (): void => {
    for (const child of children) child.kill("SIGKILL");
  };
  process.once("exit", stop);
  return {
    stop: () => {
      stop();
      process.removeListener("exit", stop);
    },
  };
}
