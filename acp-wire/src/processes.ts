// Child processes: the project's one copy of starting a program, ending it
// with everything it started, and describing how it ended.
//
// On POSIX each child leads its own process group, so a signal to the group
// also reaches grandchildren whose parent already exited; tree-kill (which
// walks the process table, or uses taskkill /T on Windows) covers the rest.
// Every stop in the project follows STOP_SEQUENCE: input closed, SIGTERM,
// SIGKILL, with one set of timings.

import type { ChildProcess, SpawnOptions, StdioOptions } from "node:child_process";
import { constants as osConstants } from "node:os";
import spawn from "cross-spawn";
import treeKill from "tree-kill";

const POSIX = process.platform !== "win32";

/** One stop, from the moment it starts: input closed at 0, then these. */
export const STOP_SEQUENCE = {
  /** A program that does not exit on end of input gets SIGTERM (its whole group and tree). */
  sigtermAfterMs: 500,
  /** Whatever still runs then, leader or left-behind descendant, gets SIGKILL. */
  sigkillAfterMs: 1_500,
  /** A stop never waits longer than this (a process stuck in the kernel cannot be helped). */
  giveUpAfterMs: 1_800,
} as const;

export interface StartOptions {
  stdio: StdioOptions;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Leave the child running when this process exits (the panel's host): no pipes may tie them. */
  detached?: boolean;
}

/** Starts a program directly, never through a shell; it leads its own process group on POSIX. */
export function spawnProgram(command: string, args: readonly string[], options: StartOptions): ChildProcess {
  // cross-spawn resolves Windows' .cmd/.bat shims (npx, for one) without a shell.
  return spawn(command, [...args], spawnOptions(options));
}

/**
 * Runs a command line through the platform's shell, as Toad runs its agent
 * command (`/bin/sh -c` on POSIX, `cmd.exe /d /s /c` on Windows). Only for
 * command lines the user wrote for a shell; never build one from settings.
 */
export function spawnShellCommand(commandLine: string, options: StartOptions): ChildProcess {
  return spawn(commandLine, [], { ...spawnOptions(options), shell: true });
}

function spawnOptions(options: StartOptions): SpawnOptions {
  return {
    stdio: options.stdio,
    cwd: options.cwd,
    env: options.env,
    windowsHide: true,
    detached: POSIX || options.detached === true,
  };
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Signals a process's group (POSIX) and tree. Harmless when they are already gone. */
export function signalProcessTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  if (POSIX) {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already empty, or this pid does not lead one.
    }
  }
  if (isAlive(pid)) treeKill(pid, signal, () => {});
}

/** True while a process with this pid exists (a zombie counts as gone where /proc says so). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True while any process is left in the group this pid led (POSIX; elsewhere: the pid itself). */
function groupIsPopulated(pid: number): boolean {
  if (!POSIX) return isAlive(pid);
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Stops children and everything they started, following STOP_SEQUENCE:
 * closes their input, SIGTERM to each group and tree at `sigtermAfterMs`
 * (at once to the group of a child that already exited, for what it left
 * behind), SIGKILL at `sigkillAfterMs` to whatever still runs. Resolves when
 * every child and its group are gone, or at `giveUpAfterMs`.
 */
export function stopProcesses(children: readonly ChildProcess[], sequence: typeof STOP_SEQUENCE = STOP_SEQUENCE): Promise<void> {
  const pids = children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
  for (const child of children) child.stdin?.destroy();
  for (const child of children) {
    if (isRunning(child)) child.once("exit", () => signalProcessTree(child.pid, "SIGTERM"));
    else signalProcessTree(child.pid, "SIGTERM");
  }
  const remaining = (): number[] => pids.filter((pid, index) => isRunning(children[index]!) || groupIsPopulated(pid));
  return new Promise((resolve) => {
    const started = Date.now();
    let termSent = false;
    let killSent = false;
    const tick = (): void => {
      const left = remaining();
      const elapsed = Date.now() - started;
      if (left.length === 0 || elapsed >= sequence.giveUpAfterMs) return resolve();
      if (!termSent && elapsed >= sequence.sigtermAfterMs) {
        termSent = true;
        left.forEach((pid) => signalProcessTree(pid, "SIGTERM"));
      }
      if (!killSent && elapsed >= sequence.sigkillAfterMs) {
        killSent = true;
        left.forEach((pid) => signalProcessTree(pid, "SIGKILL"));
      }
      setTimeout(tick, 20).unref();
    };
    tick();
  });
}

/**
 * Stops a process known only by its pid (a detached one started by an
 * earlier window): SIGTERM to its group and tree, SIGKILL at `sigkillAfterMs`.
 */
export async function stopProcessTree(pid: number, sequence: typeof STOP_SEQUENCE = STOP_SEQUENCE): Promise<void> {
  signalProcessTree(pid, "SIGTERM");
  const started = Date.now();
  let killSent = false;
  while (isAlive(pid) || groupIsPopulated(pid)) {
    const elapsed = Date.now() - started;
    if (elapsed >= sequence.giveUpAfterMs) return;
    if (!killSent && elapsed >= sequence.sigkillAfterMs - sequence.sigtermAfterMs) {
      killSent = true;
      signalProcessTree(pid, "SIGKILL");
    }
    await new Promise((resolve) => setTimeout(resolve, 20).unref());
  }
}

/** The shell convention: a signal becomes 128 + its number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? osConstants.signals[signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}

/** How a process ended, in words: "exited with code 3", "was killed by SIGKILL". */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return code === null ? `was killed by ${signal ?? "a signal"}` : `exited with code ${code}`;
}

/** The exit status a shell gives a program it could not start: 127 not found, 126 not runnable. */
export function spawnErrorStatus(error: NodeJS.ErrnoException): number {
  return error.code === "ENOENT" ? 127 : 126;
}

export function describeSpawnError(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return `cannot start '${command}': no such program (is it installed and on PATH?)`;
  if (error.code === "EACCES") return `cannot start '${command}': permission denied (is it executable?)`;
  return `cannot start '${command}': ${error.message}`;
}
