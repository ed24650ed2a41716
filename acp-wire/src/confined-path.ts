// The one "is this inside the project" mechanism, for the built-in chat's
// agent file access and for the editor tools (docs/security.md): the name
// check (`namesBelow`), and the step-by-step open (`ConfinedFolder`) that
// reads and writes inside a folder whatever its symlinks do, and however they
// change while a file is opened.
//
// Checking a path and then opening it leaves a window in which a link along
// it can be swapped, and Node has no openat() to open a name inside a
// directory already checked. It does have one directory that relative names
// are opened from: the working directory. So each open enters the directory
// holding the file (following its links), asks the kernel where it landed
// (which must be inside the folder), and opens or replaces the last name
// relative to it, that name's own link never followed; then it returns to the
// previous working directory. All of that is synchronous, so no other code of
// this process runs while the working directory is elsewhere. What is opened
// is what was checked: a link swapped afterwards changes nothing.
//
// Paths may name the folder through any spelling of it (a symlinked parent,
// /tmp for /private/tmp, a subst drive, other letter case on a case-
// insensitive disk): they are mapped to names under the folder's real path.
//
// Refusals are `ConfinementError`s (their message says why, to follow
// "access to <path> refused: "); a missing file is an ENOENT error. Callers
// word them for their own protocol.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Links followed for one open before giving up (Linux's own limit). */
const MAX_LINKS = 40;

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows: there the identity check
// after the open (same file as the name's lstat) does the same job.
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** A path refused because of where it leads; the message is the reason. */
export class ConfinementError extends Error {
  override name = "ConfinementError";
}

/** A path refused because it names a directory, a FIFO, a device…: not a regular file. */
export class NotAFileError extends ConfinementError {
  override name = "NotAFileError";
}

/** What one step inside the folder gave: a result, or another path to try (a link's target). */
export type Step<T> = { done: T } | { next: string };

/**
 * `absolute`'s names below `base`, or null when it is not inside (`[]`: it is `base` itself). The one name-level
 * check: it follows no link, so callers compare real paths, or open through `ConfinedFolder`.
 */
export function namesBelow(base: string, absolute: string): string[] | null {
  const relative = path.relative(base, absolute);
  if (relative === "") return [];
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
  return relative.split(path.sep);
}

/** Whether `absolute` names something strictly below `base` (by name only, no link followed). */
export function isBelow(base: string, absolute: string): boolean {
  const names = namesBelow(base, absolute);
  return names !== null && names.length > 0;
}

export class ConfinedFolder {
  private constructor(
    /** The folder's real path (the kernel's spelling). */
    readonly root: string,
    /** The folder's path as given (it may go through links). */
    private readonly given: string,
    private readonly rootStat: fs.BigIntStats,
  ) {}

  /** `dir` must exist. */
  static at(dir: string): ConfinedFolder {
    const given = path.resolve(dir);
    const root = fs.realpathSync.native(given);
    return new ConfinedFolder(root, given, fs.statSync(root, { bigint: true }));
  }

  /** Whether `requested` names a path under this folder (as given or resolved), before any link is followed. */
  holds(requested: string): boolean {
    if (typeof requested !== "string" || !path.isAbsolute(requested)) return false;
    const absolute = path.resolve(requested);
    return namesBelow(this.root, absolute) !== null || namesBelow(this.given, absolute) !== null;
  }

  /** A descriptor of the regular file `requested` (absolute), opened step by step; the caller closes it. */
  openToRead(requested: string): number {
    return this.follow(requested, (name, here) => openNameToRead(name, here));
  }

  /**
   * Runs `step` in the folder holding `requested`'s last name, following the
   * links it hands back (each target checked like the request), at most
   * MAX_LINKS times; with `create`, missing folders on the way are made.
   */
  follow<T>(requested: string, step: (name: string, here: string) => Step<T>, create = false): T {
    let target = requested;
    for (let hops = 0; hops <= MAX_LINKS; hops++) {
      const names = this.namesUnderRoot(requested, target);
      const name = names.pop();
      if (name === undefined) throw new ConfinementError("it is the project directory itself, not a file");
      const result = this.inFolder(names, create, (here) => step(name, here));
      if ("done" in result) return result.done;
      target = result.next;
    }
    throw new ConfinementError(`it goes through more than ${MAX_LINKS} symlinks, or kept changing while it was opened`);
  }

  /**
   * `target`'s names below the folder's root: `target` must lie in the
   * folder as given, or as resolved, or under some folder that is the
   * folder's root (the same file).
   */
  private namesUnderRoot(requested: string, target: string): string[] {
    if (typeof target !== "string" || !path.isAbsolute(target)) throw new ConfinementError("the path must be absolute");
    const absolute = path.resolve(target);
    for (const base of [this.root, this.given]) {
      const names = namesBelow(base, absolute);
      if (names !== null) return names;
    }
    const names = this.namesBelowAlias(absolute);
    if (names !== null) return names;
    throw new ConfinementError(
      target === requested ? "it is outside the project directory" : `it leads outside the project directory through a symlink (to ${target})`,
    );
  }

  /** The names below the nearest ancestor of `absolute` that is the folder's root itself (another spelling of it). */
  private namesBelowAlias(absolute: string): string[] | null {
    // A UNC path's stat would connect to the host it names (and offer it the user's credentials).
    if (process.platform === "win32" && /^[\\/]{2}/.test(absolute)) return null;
    const names: string[] = [];
    for (let folder = absolute; ; folder = path.dirname(folder)) {
      const stat = statOrUndefined(folder);
      if (stat !== undefined && sameFile(stat, this.rootStat)) return names;
      if (path.dirname(folder) === folder) return null;
      names.unshift(path.basename(folder));
    }
  }

  /**
   * Enters the root, then each of `names` in turn (creating missing ones
   * when `create`), checking after each step where the kernel says it is;
   * runs `use` there with that real path; always goes back.
   */
  private inFolder<T>(names: string[], create: boolean, use: (here: string) => T): T {
    const previous = workingDirectory();
    try {
      process.chdir(this.root);
      let here = this.checkedHere();
      for (const name of names) {
        enter(name, create);
        here = this.checkedHere();
      }
      return use(here);
    } finally {
      goBack(previous);
    }
  }

  /** The real path of the working directory, refused unless inside the folder. */
  private checkedHere(): string {
    const here = process.platform === "win32" ? fs.realpathSync.native(".") : process.cwd();
    if (namesBelow(this.root, here) === null) throw new ConfinementError(`it leads outside the project directory through a symlink (to ${here})`);
    return here;
  }
}

/** Enters the folder `name` of the working directory, creating it when missing and `create`. */
function enter(name: string, create: boolean): void {
  try {
    process.chdir(name);
    return;
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const stat = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (stat?.isSymbolicLink()) throw new ConfinementError(`${name} is a symlink to ${fs.readlinkSync(name)}, which does not exist`);
  fs.mkdirSync(name);
  process.chdir(name);
}

/** Opens `name` in the working directory (`here`) for reading: a regular file, never through a link. */
function openNameToRead(name: string, here: string): Step<number> {
  const named = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (named === undefined) throw Object.assign(new Error(`${name} does not exist`), { code: "ENOENT" });
  if (named.isSymbolicLink()) return { next: linkTarget(name, here) };
  if (!named.isFile()) throw new NotAFileError(`it is ${kindOf(named)}, not a file`);
  let fd: number;
  try {
    fd = fs.openSync(name, READ_FLAGS);
  } catch (error) {
    // Became a link (ELOOP; EMLINK on the BSDs) or vanished since the lstat: look again.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK" || code === "ENOENT") return { next: path.join(here, name) };
    throw error;
  }
  // The name may have been swapped between the lstat and the open (on Windows
  // the open follows links): what was opened must be the file the lstat saw.
  if (!sameFile(fs.fstatSync(fd, { bigint: true }), named)) {
    fs.closeSync(fd);
    return { next: path.join(here, name) };
  }
  return { done: fd };
}

/** Where the link `name` in the working directory (`here`) points, as an absolute path. */
export function linkTarget(name: string, here: string): string {
  try {
    return path.resolve(here, fs.readlinkSync(name));
  } catch {
    return path.join(here, name); // no longer a link: look again
  }
}

export function kindOf(stat: fs.BigIntStats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

function sameFile(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function statOrUndefined(file: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The working directory to come back to (one that was removed meanwhile cannot be). */
function workingDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

function goBack(previous: string | undefined): void {
  try {
    process.chdir(previous ?? os.tmpdir());
  } catch {
    process.chdir(os.tmpdir());
  }
}
