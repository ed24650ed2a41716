// Where the state file lives (docs/state-file.md, "Rules for the writer"):
// a per-user directory of mode 0700 that nobody else can own or redirect,
// and in it one unpredictable name per window, kept across window reloads.
//
// The directory is `$XDG_RUNTIME_DIR/symposium` when that variable names a
// private directory of ours, else `symposium-<uid>` in the OS temp directory;
// on Windows `%LOCALAPPDATA%\Symposium`, else the user's own temp directory.
// A component that is a symlink, is owned by someone else or is open to
// others is refused (and logged); then a fresh directory from mkdtemp (0700,
// random name) is used instead.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isAlive } from "../../../acp-wire/src/processes.js";
import { stateFileWriterPid } from "../../../editor-state/src/index.js";

const POSIX = process.platform !== "win32";
const FILE_NAME = /^editor-state-[0-9a-f]{32}\.json$/;
const REMEMBER_AT_MOST = 8;
const SNAPSHOT_NAME = /^(editor-state-[0-9a-f]{32})\.unsaved-[0-9a-f]{16}\.txt$/;
/**
 * A state file untouched this long belongs to no live window (a live one touches its file every
 * 10 s): with its writer gone too, it is an ended window's.
 */
export const ENDED_WINDOW_MS = 2 * 60_000;

export type Log = (message: string) => void;

/** The private directory for state files, created if needed; undefined (and logged) when none can be made safe. */
export function privateStateDirectory(log: Log): string | undefined {
  for (const candidate of directoryCandidates(log)) {
    try {
      fs.mkdirSync(candidate, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        log(`cannot create ${candidate}: ${(error as Error).message}`);
        continue;
      }
    }
    tightenOwnDirectory(candidate, log);
    const problem = unsafeDirectory(candidate);
    if (problem === null) return candidate;
    log(`refusing ${candidate} for the editor state file: ${problem}`);
  }
  try {
    return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `symposium-${userTag()}-`));
  } catch (error) {
    log(`no private directory for the editor state file: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Where to try, in order. Windows: the user's local application data
 * (%LOCALAPPDATA%, private to the user by its ACL and never roamed), then the
 * user's temp directory; a shared %TEMP% is not assumed private.
 */
export function directoryCandidates(log: Log, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const candidates: string[] = [];
  if (platform === "win32") {
    const local = env.LOCALAPPDATA;
    if (local && path.win32.isAbsolute(local)) candidates.push(path.win32.join(local, "Symposium"));
    else log("LOCALAPPDATA is not set: the editor state file goes to the temp directory");
  }
  const runtime = env.XDG_RUNTIME_DIR;
  if (platform !== "win32" && runtime && path.isAbsolute(runtime)) {
    const problem = unsafeDirectory(runtime);
    if (problem === null) candidates.push(path.join(runtime, "symposium"));
    else log(`not using XDG_RUNTIME_DIR (${runtime}): ${problem}`);
  }
  // The temp directory itself may be a system symlink (macOS /tmp): resolve it, then check what we add below it.
  candidates.push(path.join(fs.realpathSync(os.tmpdir()), platform !== "win32" ? `symposium-${userTag()}` : "symposium"));
  return candidates;
}

/** An existing directory of ours that others may read (made by hand, or under another umask) is made private. */
function tightenOwnDirectory(dir: string, log: Log): void {
  if (!POSIX) return;
  try {
    const stat = fs.lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== process.getuid!() || (stat.mode & 0o077) === 0) return;
    fs.chmodSync(dir, 0o700);
    log(`made ${dir} private (mode was ${(stat.mode & 0o777).toString(8)})`);
  } catch {
    // unsafeDirectory says what is wrong.
  }
}

function userTag(): string {
  return typeof process.getuid === "function" ? String(process.getuid()) : os.userInfo().username.replace(/[^\w.-]/g, "_");
}

/** Why `dir` may not hold private data, or null when it may. */
export function unsafeDirectory(dir: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    return (error as Error).message;
  }
  if (stat.isSymbolicLink()) return "it is a symbolic link";
  if (!stat.isDirectory()) return "it is not a directory";
  if (!POSIX) return null; // Windows: the user's temp directory is already the user's own.
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) return `it is owned by uid ${stat.uid}, not by this user`;
  if ((stat.mode & 0o077) !== 0) return `its mode is ${(stat.mode & 0o777).toString(8)}, open to other users (expected 700)`;
  return null;
}

export function freshStateFilePath(dir: string): string {
  return path.join(dir, `editor-state-${crypto.randomBytes(16).toString("hex")}.json`);
}

/** Per workspace, the files this workspace's windows wrote lately, newest first (persistent-state.ts). */
export interface StateFileMemory {
  readonly editorStateFiles: unknown;
  setEditorStateFiles(files: string[]): Thenable<void>;
}

/**
 * The path for this window: one this workspace used before (so a Toad started
 * before a window reload keeps finding it) when no live window writes it now,
 * else a fresh one. Two windows on one folder share the memory, not the file.
 */
export function claimStateFilePath(dir: string, memory: StateFileMemory, log: Log): string {
  const remembered = memory.editorStateFiles;
  const known = (Array.isArray(remembered) ? remembered : []).filter(
    (file): file is string => typeof file === "string" && path.dirname(file) === dir && FILE_NAME.test(path.basename(file)),
  );
  const reusable = known.find((file) => !writtenByLiveWindow(file));
  const chosen = reusable ?? freshStateFilePath(dir);
  log(reusable ? `editor state file: ${chosen} (this workspace's, kept across reloads)` : `editor state file: ${chosen}`);
  void memory.setEditorStateFiles([chosen, ...known.filter((file) => file !== chosen)].slice(0, REMEMBER_AT_MOST));
  return chosen;
}

/** True while another live process (another window's extension host) writes `file`. */
function writtenByLiveWindow(file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false; // gone (removed when its window closed or reloaded): free to reuse
  }
  const pid = stateFileWriterPid(text);
  return pid !== null && pid !== process.pid && isAlive(pid);
}

/** Removes the file; a file that is already gone is fine. */
export function removeStateFile(file: string, log: Log): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log(`cannot remove ${file}: ${(error as Error).message}`);
  }
}

/**
 * Removes what ended windows left in `dir` (their extension host was killed before it could remove
 * its files): state files untouched for ENDED_WINDOW_MS whose writer is not alive, and unsaved
 * snapshots whose state file is gone and that are as old. They hold source text. Returns how many.
 */
export function sweepEndedWindows(dir: string, log: Log, now = Date.now()): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const stale = (name: string) => {
    const stat = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    return stat?.isFile() === true && now - stat.mtimeMs > ENDED_WINDOW_MS;
  };
  const ended = new Set(names.filter((name) => FILE_NAME.test(name) && stale(name) && !writtenByLiveWindow(path.join(dir, name))));
  const remaining = new Set(names.filter((name) => FILE_NAME.test(name) && !ended.has(name)));
  const snapshots = names.filter((name) => {
    const owner = SNAPSHOT_NAME.exec(name)?.[1];
    return owner !== undefined && !remaining.has(`${owner}.json`) && stale(name);
  });
  // The state files first: then no reader finds a listed snapshot missing.
  for (const name of [...ended, ...snapshots]) removeStateFile(path.join(dir, name), log);
  const count = ended.size + snapshots.length;
  if (count > 0) log(`removed ${count} editor-state file(s) of ended windows from ${dir}`);
  return count;
}
