// Child processes: the project's one copy of starting a program, ending it
// with everything it started, and describing how it ended.
//
// On POSIX each child leads its own process group, so a signal to the group
// also reaches grandchildren whose parent already exited; tree-kill (which
// walks the process table, or uses taskkill /T on Windows) covers the rest.
// Every stop in the project follows STOP_SEQUENCE: input closed, SIGTERM,
// SIGKILL, with one set of timings.

import { execFileSync, type ChildProcess, type SpawnOptions, type StdioOptions } from "node:child_process";
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
  // Descendants are noted now, while their parents still link them to us: one
  // in a process group of its own is out of reach of a group signal, and once
  // its parent exits no process table walk finds it either.
  const descendants = descendantsOf(children.filter(isRunning).map((child) => child.pid!));
  for (const child of children) child.stdin?.destroy();
  for (const child of children) {
    if (isRunning(child)) child.once("exit", () => signalProcessTree(child.pid, "SIGTERM"));
    else signalProcessTree(child.pid, "SIGTERM");
  }
  const remaining = (): number[] => pids.filter((pid, index) => isRunning(children[index]!) || groupIsPopulated(pid));
  const signalAll = (left: number[], signal: NodeJS.Signals): void => {
    left.forEach((pid) => signalProcessTree(pid, signal));
    descendants.filter(isAlive).forEach((pid) => signalQuietly(pid, signal));
  };
  return new Promise((resolve) => {
    const started = Date.now();
    let termSent = false;
    let killSent = false;
    const tick = (): void => {
      const left = remaining();
      const elapsed = Date.now() - started;
      if ((left.length === 0 && !descendants.some(isAlive)) || elapsed >= sequence.giveUpAfterMs) return resolve();
      if (!termSent && elapsed >= sequence.sigtermAfterMs) {
        termSent = true;
        signalAll(left, "SIGTERM");
      }
      if (!killSent && elapsed >= sequence.sigkillAfterMs) {
        killSent = true;
        signalAll(left, "SIGKILL");
      }
      // Not unref'd: a caller with nothing else left to do must still see the stop through.
      setTimeout(tick, 20);
    };
    tick();
  });
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

/**
 * Every descendant of `roots`, from one read of the process table (POSIX
 * `ps`; empty elsewhere, where tree-kill's `taskkill /T` ends a tree at once).
 */
function descendantsOf(roots: number[]): number[] {
  if (!POSIX || roots.length === 0) return [];
  let table: string;
  try {
    table = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8", timeout: 1_000, stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const row of table.split("\n")) {
    const [pid, ppid] = row.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid === undefined || Number.isNaN(pid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
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

/** How long an exiting CLI waits for its stdout to drain: a client that reads nothing cannot hold it. */
export const EXIT_FLUSH_LIMIT_MS = 200;

/** Exits with `status` once stdout has drained, or after EXIT_FLUSH_LIMIT_MS. */
export function exitAfterFlush(status: number): void {
  process.exitCode = status;
  setTimeout(() => process.exit(status), EXIT_FLUSH_LIMIT_MS);
  process.stdout.write("", () => process.exit(status));
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
