// Child processes: the project's one copy of starting a program, ending it
// with everything it started, and describing how it ended.
//
// On POSIX each child leads its own process group, so a signal to the group
// also reaches grandchildren whose parent already exited; the rest of a tree
// (a descendant that started a group of its own) is found by walking the
// process table while the root is still alive, asynchronously (/proc on
// Linux, `ps` elsewhere on POSIX, CIM through PowerShell on Windows). On
// Windows a stop asks `taskkill /T` first and adds `/F` only later. Every stop
// in the project follows STOP_SEQUENCE: input closed, a polite request, then
// force, with one set of timings. A missing or failing system tool never
// throws: the stop goes on with what signals alone can reach.

import { execFile, type ChildProcess, type SpawnOptions, type StdioOptions } from "node:child_process";
import { promises as fsp } from "node:fs";
import { constants as osConstants } from "node:os";
import spawn from "cross-spawn";

const POSIX = process.platform !== "win32";

/** One stop, from the moment it starts: input closed at 0, then these. */
export const STOP_SEQUENCE = {
  /** A program that does not exit on end of input gets SIGTERM (its whole group and tree; Windows: `taskkill /T`). */
  sigtermAfterMs: 500,
  /** Whatever still runs then, leader or left-behind descendant, gets SIGKILL (Windows: `taskkill /T /F`). */
  sigkillAfterMs: 1_500,
  /** A stop never waits longer than this (a process stuck in the kernel cannot be helped). */
  giveUpAfterMs: 1_800,
} as const;

/** How long a stop waits for the process table before closing input (a walk on Linux takes milliseconds). */
const WALK_HEAD_START_MS = 300;

export interface StopSequence {
  readonly sigtermAfterMs: number;
  readonly sigkillAfterMs: number;
  readonly giveUpAfterMs: number;
}

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

/**
 * Signals a process's group (POSIX) and tree, found from the process table.
 * SIGKILL is forceful everywhere; anything else is a polite request (on
 * Windows `taskkill /T` without `/F`). Harmless when they are already gone;
 * resolves once the signals are sent.
 */
export async function signalProcessTree(pid: number | undefined, signal: NodeJS.Signals): Promise<void> {
  if (pid === undefined) return;
  signalGroup(pid, signal);
  if (!isAlive(pid)) return;
  const descendants = await descendantsOf([pid]);
  deliver([pid], descendants, signal === "SIGKILL" ? "SIGKILL" : "SIGTERM");
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

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  // On Windows a "signal" is TerminateProcess: only deliver() ends trees there.
  if (POSIX) signalQuietly(-pid, signal);
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile, or not a group leader
  }
}

/**
 * One step of a stop: `roots` (with their groups) and the `descendants`
 * noted earlier get SIGTERM or SIGKILL; on Windows, `taskkill /T` for the
 * roots and each descendant still alive, with `/F` only for SIGKILL.
 */
function deliver(roots: readonly number[], descendants: readonly number[], signal: "SIGTERM" | "SIGKILL"): void {
  const alive = descendants.filter(isAlive);
  if (!POSIX) {
    const pids = [...roots.filter(isAlive), ...alive];
    if (pids.length > 0) taskkill(pids, signal === "SIGKILL");
    return;
  }
  for (const root of roots) signalGroup(root, signal);
  for (const pid of alive) signalQuietly(pid, signal);
  for (const root of roots) signalQuietly(root, signal);
}

/** `taskkill` arguments: whole trees, politely (`/T`), or forcefully (`/T /F`). */
export function taskkillArgs(pids: readonly number[], force: boolean): string[] {
  return [...pids.flatMap((pid) => ["/PID", String(pid)]), "/T", ...(force ? ["/F"] : [])];
}

function taskkill(pids: readonly number[], force: boolean): void {
  // The callback takes every error (no taskkill, a pid already gone): none may end this process.
  execFile("taskkill", taskkillArgs(pids, force), { windowsHide: true, timeout: 5_000 }, () => {
    // Where taskkill is missing or refuses (Wine's knows no /T), the forceful step
    // still ends what it knows of, with TerminateProcess: after taskkill, which
    // needs the root alive to find the tree.
    if (force) pids.filter(isAlive).forEach((pid) => signalQuietly(pid, "SIGKILL"));
  });
}

/**
 * Stops children and everything they started, following STOP_SEQUENCE:
 * closes their input, SIGTERM to each group and tree at `sigtermAfterMs`
 * (at once to the group of a child that already exited, for what it left
 * behind), SIGKILL at `sigkillAfterMs` to whatever still runs. Resolves when
 * every child, its group and its noted descendants are gone, or at `giveUpAfterMs`.
 */
export async function stopProcesses(children: readonly ChildProcess[], sequence: StopSequence = STOP_SEQUENCE): Promise<void> {
  const tracked = children.filter((child) => child.pid !== undefined);
  // Descendants are looked up first, while their parents still link them to
  // us: one in a process group of its own is out of reach of a group signal,
  // and once its parent exits (on end of input, say) POSIX gives it another
  // parent. Windows keeps a dead parent's pid in the table, so a slow walk
  // there (PowerShell) need not hold the stop back for long.
  const descendants = descendantsOf(tracked.filter(isRunning).map((child) => child.pid!));
  await Promise.race([descendants, new Promise((resolve) => setTimeout(resolve, WALK_HEAD_START_MS))]);
  for (const child of children) child.stdin?.destroy();
  for (const child of tracked) {
    if (isRunning(child)) child.once("exit", () => signalGroup(child.pid!, "SIGTERM"));
    else signalGroup(child.pid!, "SIGTERM");
  }
  const rootsLeft = (): number[] => tracked.filter((child) => isRunning(child) || groupIsPopulated(child.pid!)).map((child) => child.pid!);
  return runStopSequence(rootsLeft, descendants, sequence);
}

/**
 * Stops a process known only by its pid (a detached one started by an
 * earlier window), or a tree whose leader may end first: its group and tree
 * politely as soon as the tree is read, forcefully `sigkillAfterMs -
 * sigtermAfterMs` later.
 */
export function stopProcessTree(pid: number, sequence: StopSequence = STOP_SEQUENCE): Promise<void> {
  const descendants = descendantsOf([pid]);
  const rootsLeft = (): number[] => (isAlive(pid) || groupIsPopulated(pid) ? [pid] : []);
  const shifted = { sigtermAfterMs: 0, sigkillAfterMs: sequence.sigkillAfterMs - sequence.sigtermAfterMs, giveUpAfterMs: sequence.giveUpAfterMs };
  return runStopSequence(rootsLeft, descendants, shifted);
}

/** The timeline of a stop, polled every 20 ms: polite at `sigtermAfterMs`, forceful at `sigkillAfterMs`. */
function runStopSequence(rootsLeft: () => number[], walk: Promise<number[]>, sequence: StopSequence): Promise<void> {
  let descendants: number[] = [];
  let walked = false;
  let sent: "none" | "SIGTERM" | "SIGKILL" = "none";
  void walk.then((found) => {
    descendants = found;
    walked = true;
    // Found after a step was taken: they get that step too.
    if (sent !== "none") deliver([], descendants, sent);
  });
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = (): void => {
      const left = rootsLeft();
      const elapsed = Date.now() - started;
      const done = left.length === 0 && walked && !descendants.some(isAlive);
      if (done) return resolve();
      // No signal before the tree is read (or its head start is over): a parent that ends on SIGTERM hands its
      // children to another parent at once, and a walk after that no longer finds those that lead groups of their own.
      const waitForWalk = !walked && elapsed < WALK_HEAD_START_MS;
      const due = waitForWalk ? "none" : elapsed >= sequence.sigkillAfterMs ? "SIGKILL" : elapsed >= sequence.sigtermAfterMs ? "SIGTERM" : "none";
      if (due !== "none" && due !== sent) {
        sent = due;
        deliver(left, descendants, due);
      }
      // Never given up before SIGKILL went: on a busy machine a tick can come late, past both moments at once,
      // and what ignores SIGTERM (Toad's apps) would outlive the stop.
      if (elapsed >= sequence.giveUpAfterMs && sent === "SIGKILL") return resolve();
      // Not unref'd: a caller with nothing else left to do must still see the stop through.
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** Every descendant of `roots` (alive now), from one read of the process table; empty if it cannot be read. */
export async function descendantsOf(roots: readonly number[]): Promise<number[]> {
  if (roots.length === 0) return [];
  const children = await processTable();
  const found: number[] = [];
  const seen = new Set(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Parent pid → child pids. */
type ProcessTable = Map<number, number[]>;

let tableRead: Promise<ProcessTable> | undefined;

/** The process table; stops that ask while a read is under way share it (200 stops at once: one read). */
function processTable(): Promise<ProcessTable> {
  tableRead ??= readProcessTable().finally(() => (tableRead = undefined));
  return tableRead;
}

async function readProcessTable(): Promise<ProcessTable> {
  if (process.platform === "linux") {
    const fromProc = await readProcTable();
    if (fromProc) return fromProc;
  }
  if (process.platform === "win32") {
    // Where wmic is gone (Windows 11), CIM is what lists parents.
    const script = "Get-CimInstance Win32_Process | ForEach-Object { '{0} {1}' -f $_.ProcessId, $_.ParentProcessId }";
    return tableFrom(await runTool("powershell.exe", ["-NoProfile", "-NonInteractive", "-Command", script]));
  }
  return tableFrom(await runTool("ps", ["-A", "-o", "pid=,ppid="]));
}

/** Linux: each /proc/PID/stat names its parent (field 4, after the command's closing parenthesis). */
async function readProcTable(): Promise<ProcessTable | undefined> {
  let entries: string[];
  try {
    entries = (await fsp.readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const rows = await Promise.all(
    entries.map(async (pid) => {
      try {
        const stat = await fsp.readFile(`/proc/${pid}/stat`, "latin1");
        return `${pid} ${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]}`;
      } catch {
        return ""; // ended meanwhile
      }
    }),
  );
  return tableFrom(rows.join("\n"));
}

/** A tool's stdout, or "" when it is missing or fails: never an exception, never a crash. */
function runTool(program: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(program, args, { encoding: "utf8", timeout: 5_000, windowsHide: true, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? "" : stdout),
    );
  });
}

/** Rows of "PID PPID". */
function tableFrom(text: string): ProcessTable {
  const children: ProcessTable = new Map();
  for (const row of text.split("\n")) {
    const [pid, ppid] = row.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid === undefined || !Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
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
