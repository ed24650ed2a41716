// The agent's file access (ACP fs/read_text_file and fs/write_text_file),
// confined to the project directory whatever its symlinks do, and however
// they change while a request is served (docs/webchat.md, "What an attacker
// can and cannot do").
//
// The walk itself, step by step from the project's root, is the one shared
// with the editor tools: acp-wire/src/confined-path.ts.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { RequestError } from "@agentclientprotocol/sdk";
import { ConfinedFolder, ConfinementError, kindOf, linkTarget, namesBelow, type Step } from "../../acp-wire/src/confined-path.js";

/** The largest answer fs/read_text_file gives (docs/webchat.md); larger reads are refused. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;

const readAt = promisify(fs.read);

export class ProjectFiles {
  /** The workspace's other folders (--add-dir), each confined as the project is: a path outside the project is tried there. */
  private others: ProjectFiles[] = [];

  private constructor(private readonly folder: ConfinedFolder) {}

  /** The project's real path (the kernel's spelling). */
  private get root(): string {
    return this.folder.root;
  }

  /** `projectDir` and each of `additionalDirs` (a multi-root workspace's other folders) must exist. */
  static async open(projectDir: string, additionalDirs: readonly string[] = []): Promise<ProjectFiles> {
    const files = new ProjectFiles(ConfinedFolder.at(projectDir));
    files.others = additionalDirs.map((dir) => new ProjectFiles(ConfinedFolder.at(dir)));
    return Promise.resolve(files);
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

  private holds(requested: string): boolean {
    return this.folder.holds(requested);
  }

  private async readHere(requested: string, line?: number | null, limit?: number | null): Promise<string> {
    checkRange(requested, line, limit);
    const fd = this.opened(requested);
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
    this.follow(requested, (name, here) => replace(name, here, content), true);
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

  /** `folder.openToRead`, its errors made JSON-RPC errors naming `requested`. */
  private opened(requested: string): number {
    try {
      return this.folder.openToRead(requested);
    } catch (error) {
      throw failure(requested, error);
    }
  }

  /** `folder.follow`, its errors made JSON-RPC errors naming `requested`. */
  private follow<T>(requested: string, step: (name: string, here: string) => Step<T>, create = false): T {
    try {
      return this.folder.follow(requested, step, create);
    } catch (error) {
      throw failure(requested, error);
    }
  }
}

/**
 * Writes `content` to a new file beside `name` in the working directory
 * (`here`), then renames it over `name`: the rename replaces the name itself,
 * so a link swapped in meanwhile is replaced, never followed. An existing
 * file's permissions are kept.
 */
function replace(name: string, here: string, content: string): Step<void> {
  const named = fs.lstatSync(name, { bigint: true, throwIfNoEntry: false });
  if (named?.isSymbolicLink()) return { next: linkTarget(name, here) };
  if (named !== undefined && !named.isFile()) throw new ConfinementError(`it is ${kindOf(named)}, not a file`);
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
  if (error instanceof ConfinementError) return refusal(requested, error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return RequestError.resourceNotFound(requested);
  return RequestError.internalError({ path: requested }, `cannot access ${requested}: ${(error as Error).message}`);
}
