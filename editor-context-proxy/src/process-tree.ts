// Starting a child program without a shell, and ending it with everything it
// started. On POSIX each child leads its own process group, so a signal to
// the group also reaches grandchildren whose parent already exited; tree-kill
// (which walks the process table, or uses taskkill /T on Windows) covers the
// rest.

import type { ChildProcess, StdioOptions } from "node:child_process";
import spawn from "cross-spawn";
import treeKill from "tree-kill";

const POSIX = process.platform !== "win32";

export function spawnProgram(command: string, args: string[], stdio: StdioOptions): ChildProcess {
  // cross-spawn resolves Windows' .cmd/.bat shims (npx, for one) without a shell.
  return spawn(command, args, { stdio, windowsHide: true, detached: POSIX });
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

export function killProcessTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (POSIX) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already empty.
    }
  }
  if (isRunning(child)) treeKill(child.pid, signal, () => {});
}
