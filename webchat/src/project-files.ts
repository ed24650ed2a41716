// The agent's file access (ACP fs/read_text_file and fs/write_text_file),
// confined to the project directory whatever its symlinks do, and however
// they change while a request is served (docs/webchat.md, "What an attacker
// can and cannot do").
//
// Checking a path and then opening it leaves a window in which a link along
// it can be swapped, and Node has no openat() to open a name inside a
// directory already checked. It does have one directory that relative names
// are opened from: the working directory. So each request enters the
// directory holding the file (following its links), asks the kernel where it
// landed (which must be inside the project), and opens or replaces the last
// name relative to it, that name's own link never followed; then it returns
// to the previous working directory. All of that is synchronous, so no other
// code of this process runs while the working directory is elsewhere (and
// nothing else in this server opens a relative path, so no file operation
// under way in libuv's threads depends on it). What is opened is what was
// checked: a link swapped afterwards changes nothing.
//
// Paths may name the project through any spelling of it (a symlinked parent,
// /tmp for /private/tmp, a subst drive, other letter case on a case-
// insensitive disk): they are mapped to names under the project's real path.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { RequestError } from "@agentclientprotocol/sdk";

/** The largest answer fs/read_text_file gives (docs/webchat.md); larger reads are refused. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** Links followed for one request before giving up (Linux's own limit). */
const MAX_LINKS = 40;
const CHUNK_BYTES = 64 * 1024;

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows: there the identity check
// after the open (same file as the name's lstat) does the same job.
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;

const readAt = promisify(fs.read);

/** What one step inside the project's directory gave: an open file, or another path to try (a link's target). */
type Step<T> = { done: T } | { next: string };

export class ProjectFiles {
  /** The workspace's other folders (--add-dir), each confined as the project is: a path outside the project is tried there. */
  private others: ProjectFiles[] = [];

  private constructor(
    /** The project's real path (the kernel's spelling). */
    private readonly root: string,
    /** The project's path as given (it may go through links). */
    private readonly given: string,
    private readonly rootStat: fs.BigIntStats,
  ) {}

  /** `projectDir` and each of `additionalDirs` (a multi-root workspace's other folders) must exist. */
  static async open(projectDir: string, additionalDirs: readonly string[] = []): Promise<ProjectFiles> {
    const open = async (dir: string): Promise<ProjectFiles> => {
      const given = path.resolve(dir);
      const root = await fs.promises.realpath(given);
      return new ProjectFiles(root, given, await fs.promises.stat(root, { bigint: true }));
    };
    const files = await open(projectDir);
    files.others = await Promise.all(additionalDirs.map(open));
    return files;
  }

  /** The other folders' real paths, for session/new's additionalDirectories. */
  get additionalDirectories(): string[] {
    return this.others.map((other) => other.root);
  }

  /** The file's text, or lines `line` (1-based) to `line + limit - 1` of it, read without holding more than the answer. */
  read(requested: string, line?: number | null, limit?: number | null): Promise<string> {
    return this.inAnyFolder(requested, (files) => files.readHere(requested, line, limit));
  }

  /** Replaces the file's content (a temporary file renamed over it), creating missing folders. */
  write(requested: string, content: string): Promise<void> {
    return this.inAnyFolder(requested, (files) => files.writeHere(requested, content));
  }

  /**
   * `act` in the project, else, for a path outside it, in the first other folder that holds it;
   * a path in none of them gets the project's refusal. A link from one folder into another is refused.
   */
  private inAnyFolder<T>(requested: string, act: (files: ProjectFiles) => Promise<T>): Promise<T> {
    const owner = this.holds(requested) ? this : (this.others.find((other) => other.holds(requested)) ?? this);
    return act(owner);
  }

  /** Whether `requested` names a path under this folder (as given or resolved), before any link is followed. */
  private holds(requested: string): boolean {
    if (typeof requested !== "string" || !path.isAbsolute(requested)) return false;
    const absolute = path.resolve(requested);
    return namesBelow(this.root, absolute) !== null || namesBelow(this.given, absolute) !== null;
  }

  private async readHere(requested: string, line?: number | null, limit?: number | null): Promise<string> {
    checkRange(requested, line, limit);
    const fd = this.follow(requested, (name, here) => openToRead(requested, name, here));
    try {
      const size = fs.fstatSync(fd).size;
      if (line == null && limit == null && size > MAX_ANSWER_BYTES) throw tooLarge(requested, `it is ${size} bytes`);
      return await readLines(requested, fd, Math.max(0, (line ?? 1) - 1), limit ?? undefined);
    } catch (error) {
      throw failure(requested, error);
    } finally {
      fs.close(fd, () => {});
    }
  }

  private async writeHere(requested: string, content: string): Promise<void> {
    if (typeof content !== "string") throw RequestError.invalidParams({ path: requested }, `cannot write ${requested}: content must be a string`);
    this.follow(requested, (name, here) => replace(requested, name, here, content), true);
  }

  /**
   * The real path of folder `requested` (absolute, or relative to the
   * project), links followed, when it lies inside the project: a terminal's
   * working directory. Anything else is refused (-32602) naming the path.
   */
  directory(requested: string): string {
    if (typeof requested !== "string") throw refusal(String(requested), "the path must be a string");
    let real: string;
    try {
      real = fs.realpathSync.native(path.resolve(this.root, requested));
      if (!fs.statSync(real).isDirectory()) throw new Error("it is not a directory");
    } catch (error) {
      throw RequestError.invalidParams({ path: requested }, `cannot use ${requested} as a working directory: ${(error as Error).message}`);
    }
    if (namesBelow(this.root, real) !== null || this.others.some((other) => namesBelow(other.root, real) !== null)) return real;
    throw refusal(requested, "it is outside the project directory");
  }

  /**
   * Runs `step` in the folder holding `requested`'s last name, following the
   * links it hands back (each target checked like the request), at most
   * MAX_LINKS times. Errors become JSON-RPC errors naming `requested`.
   */
  private follow<T>(requested: string, step: (name: string, here: string) => Step<T>, create = false): T {
    let target = requested;
    for (let hops = 0; hops <= MAX_LINKS; hops++) {
      const names = this.namesUnderRoot(requested, target);
      const name = names.pop();
      if (name === undefined) throw refusal(requested, "it is the project directory itself, not a file");
      let result: Step<T>;
      try {
        result = this.inFolder(requested, names, create, (here) => step(name, here));
      } catch (error) {
        throw failure(requested, error);
      }
      if ("done" in result) return result.done;
      target = result.next;
    }
    throw refusal(requested, `it goes through more than ${MAX_LINKS} symlinks, or kept changing while it was opened`);
  }

  /**
   * `target`'s names below the project's root: `target` must lie in the
   * project as given, or as resolved, or under some folder that is the
   * project's root (the same file).
   */
  private namesUnderRoot(requested: string, target: string): string[] {
    if (typeof target !== "string" || !path.isAbsolute(target)) throw refusal(requested, "the path must be absolute");
    const absolute = path.resolve(target);
    for (const base of [this.root, this.given]) {
      const names = namesBelow(base, absolute);
      if (names !== null) return names;
    }
    const names = this.namesBelowAlias(absolute);
    if (names !== null) return names;
    throw refusal(
      requested,
      target === requested ? "it is outside the project directory" : `it leads outside the project directory through a symlink (to ${target})`,
    );
  }

  /** The names below the nearest ancestor of `absolute` that is the project's root folder itself (another spelling of it). */
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
   * Enters the project's root, then each of `names` in turn (creating missing
   * ones when `create`), checking after each step where the kernel says it
   * is; runs `use` there with that real path; always goes back.
   */
  private inFolder<T>(requested: string, names: string[], create: boolean, use: (here: string) => T): T {
    const previous = workingDirectory();
    try {
      process.chdir(this.root);
      let here = this.checkedHere(requested);
      for (const name of names) {
        enter(requested, name, create);
        here = this.checkedHere(requested);
      }
      return use(here);
    } finally {
      goBack(previous);
    }
  }

  /** The real path of the working directory, refused unless inside the project. */
  private checkedHere(requested: string): string {
    const here = process.platform === "win32" ? fs.realpathSync.native(".") : process.cwd();
    if (namesBelow(this.root, here) === null) throw refusal(requested, `it leads outside the project directory through a symlink (to ${here})`);
    return here;
  }
}

/** Enters the folder `name` of the working directory, creating it when missing and `create`. */
function enter(requested: string, name: string, create: boolean): void {
  try {
    process.chdir(name);
    return;
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const stat = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (stat?.isSymbolicLink()) throw refusal(requested, `${name} is a symlink to ${fs.readlinkSync(name)}, which does not exist`);
  fs.mkdirSync(name);
  process.chdir(name);
}

/** Opens `name` in the working directory (`here`) for reading: a regular file, never through a link. */
function openToRead(requested: string, name: string, here: string): Step<number> {
  const named = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (named === undefined) throw RequestError.resourceNotFound(requested);
  if (named.isSymbolicLink()) return { next: linkTarget(name, here) };
  if (!named.isFile()) throw refusal(requested, `it is ${kindOf(named)}, not a file`);
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

/**
 * Writes `content` to a new file beside `name` in the working directory
 * (`here`), then renames it over `name`: the rename replaces the name itself,
 * so a link swapped in meanwhile is replaced, never followed. An existing
 * file's permissions are kept.
 */
function replace(requested: string, name: string, here: string, content: string): Step<void> {
  const named = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (named?.isSymbolicLink()) return { next: linkTarget(name, here) };
  if (named !== undefined && !named.isFile()) throw refusal(requested, `it is ${kindOf(named)}, not a file`);
  if (named !== undefined) fs.accessSync(name, fs.constants.W_OK);
  const temporary = `.${randomBytes(6).toString("hex")}.symposium-write`;
  const fd = fs.openSync(temporary, CREATE_FLAGS, 0o666);
  try {
    try {
      fs.writeFileSync(fd, content, "utf8");
      if (named !== undefined) fs.fchmodSync(fd, Number(named.mode & 0o7777n));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, name);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return { done: undefined };
}

/** Where the link `name` in the working directory (`here`) points, as an absolute path. */
function linkTarget(name: string, here: string): string {
  try {
    return path.resolve(here, fs.readlinkSync(name));
  } catch {
    return path.join(here, name); // no longer a link: look again
  }
}

/**
 * Lines `start` (0-based) to `start + limit - 1` (all of them without a
 * limit: from 0, the whole file), as `text.split("\n").slice(start, start +
 * limit).join("\n")` gives them, read in chunks: only the answer is kept.
 */
async function readLines(requested: string, fd: number, start: number, limit: number | undefined): Promise<string> {
  if (limit === 0) return "";
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const answer: Buffer[] = [];
  let answerBytes = 0;
  let toSkip = start; // newlines before the first line wanted
  let toTake = limit ?? Infinity; // lines wanted
  for (let position = 0; ;) {
    const { bytesRead } = await readAt(fd, chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    let from = 0;
    while (toSkip > 0 && from < bytesRead) {
      const newline = data.indexOf(10, from);
      if (newline === -1) from = bytesRead;
      else {
        from = newline + 1;
        toSkip--;
      }
    }
    if (toSkip > 0) continue;
    let to = bytesRead;
    for (let at = from; toTake !== Infinity;) {
      const newline = data.indexOf(10, at);
      if (newline === -1) break;
      at = newline + 1;
      if (--toTake === 0) {
        to = newline;
        break;
      }
    }
    answerBytes += to - from;
    if (answerBytes > MAX_ANSWER_BYTES) throw tooLarge(requested, `lines from ${start + 1} hold more`);
    answer.push(Buffer.from(data.subarray(from, to)));
    if (toTake === 0) break;
  }
  return Buffer.concat(answer).toString("utf8");
}

function checkRange(requested: string, line: number | null | undefined, limit: number | null | undefined): void {
  // line 0 is taken as 1, as before.
  for (const [name, value, least] of [
    ["line", line, 0],
    ["limit", limit, 0],
  ] as const) {
    if (value != null && (!Number.isSafeInteger(value) || value < least)) {
      throw RequestError.invalidParams(
        { path: requested },
        `cannot read ${requested}: ${name} must be an integer of at least ${least}, not ${JSON.stringify(value)}`,
      );
    }
  }
}

/** `absolute`'s names below `base`, or null when it is not inside (case-insensitive where the platform's paths are). */
function namesBelow(base: string, absolute: string): string[] | null {
  const relative = path.relative(base, absolute);
  if (relative === "") return [];
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
  return relative.split(path.sep);
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

function kindOf(stat: fs.BigIntStats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

function refusal(requested: string, why: string): RequestError {
  return RequestError.invalidParams({ path: requested }, `access to ${requested} refused: ${why}`);
}

function tooLarge(requested: string, why: string): RequestError {
  return RequestError.invalidParams(
    { path: requested, maxBytes: MAX_ANSWER_BYTES },
    `cannot read ${requested}: ${why}, over the ${MAX_ANSWER_BYTES}-byte limit for one answer; read it in parts with line and limit`,
  );
}

function failure(requested: string, error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return RequestError.resourceNotFound(requested);
  return RequestError.internalError({ path: requested }, `cannot access ${requested}: ${(error as Error).message}`);
}
