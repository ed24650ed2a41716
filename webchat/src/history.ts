// This workspace's kept conversations (docs/webchat.md: history): one file
// per conversation, its first line the entry (id, title from the first
// prompt, times, the agent's session id), then its transcript events, one
// JSON a line. Private (files 0600 in a 0700 folder; on Windows the user's
// profile folder's permissions apply) and bounded: at most
// HISTORY_LIMITS.conversations files, each at most conversationBytes (the
// oldest events dropped), all at most totalBytes (the oldest files dropped).
// Read back as untrusted (another process, or a damaged disk, may have put
// anything there): regular files only, opened without blocking or following
// a link, at most MAX_FILE_BYTES each, every line checked; what is not a
// well-formed entry or event is left out and logged.

import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Logger } from "../../acp-wire/src/index.js";
import type { HistoryEntry, TranscriptEvent } from "../page/protocol.js";

export const HISTORY_LIMITS = { conversations: 50, conversationBytes: 1024 * 1024, totalBytes: 16 * 1024 * 1024 } as const;
/** How much of a file `list` reads for its first line. */
const HEAD_BYTES = 4096;
/** The largest history file read: a conversation's limit, and room for an entry larger than its share. Larger ones are not ours. */
export const MAX_FILE_BYTES = HISTORY_LIMITS.conversationBytes + 64 * 1024;
// O_NOFOLLOW and O_NONBLOCK do not exist on Windows, where a FIFO is no name in a folder.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const TITLE_CHARS = 120;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const SUFFIX = ".jsonl";

/** A kept conversation's entry as its history file's first line holds it: the page's entry, and what reopening needs. */
export interface StoredHistoryEntry extends HistoryEntry {
  createdAt: number;
  /** The agent's session id: what session/load and session/resume take. */
  agentSessionId?: string;
}

/** `<stateDir>/history/<hash of the project's path>`; stateDir defaults to ~/.symposium. */
export function historyDir(projectDir: string, stateDir = path.join(os.homedir(), ".symposium")): string {
  const hash = createHash("sha256").update(path.resolve(projectDir)).digest("hex").slice(0, 16);
  return path.join(stateDir, "history", hash);
}

export function newHistoryId(): string {
  return randomBytes(12).toString("hex");
}

export function isHistoryId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/** A title from the first prompt's text: one line, at most TITLE_CHARS. */
export function titleOf(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

export class HistoryStore {
  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Newest first. A file that cannot be read is left out (and logged). */
  list(): HistoryEntry[] {
    return this.files()
      .map((file) => this.head(file))
      .filter((entry): entry is StoredHistoryEntry => entry !== undefined)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));
  }

  /** The entry and its well-formed events (others dropped, and logged), or undefined when there is no such conversation or it cannot be read. */
  load(id: string): { entry: StoredHistoryEntry; events: TranscriptEvent[] } | undefined {
    if (!isHistoryId(id)) return undefined;
    let text: string;
    try {
      text = readStart(this.file(id), MAX_FILE_BYTES).toString("utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.log(`cannot reopen history ${id}: ${(error as Error).message}`);
      return undefined;
    }
    const [head, ...lines] = text.split("\n").filter((line) => line !== "");
    const entry = storedHistoryEntry(parsed(head ?? ""), id);
    if (!entry) {
      this.log(`history ${id} is damaged (its first line is no entry): not shown`);
      return undefined;
    }
    const events = lines.map((line) => transcriptEvent(parsed(line))).filter((event) => event !== undefined);
    if (events.length < lines.length) this.log(`history ${id}: ${lines.length - events.length} damaged event(s) left out`);
    return { entry, events };
  }

  /**
   * Writes the conversation (a new file renamed over the old), keeping the
   * newest events that fit conversationBytes, then drops the oldest files
   * beyond the limits.
   */
  save(entry: StoredHistoryEntry, eventJson: readonly string[]): void {
    if (!isHistoryId(entry.id)) throw new Error(`not a history id: ${String(entry.id)}`);
    const head = JSON.stringify(entry);
    let room = HISTORY_LIMITS.conversationBytes - Buffer.byteLength(head) - 1;
    let first = eventJson.length;
    while (first > 0 && room - Buffer.byteLength(eventJson[first - 1]!) - 1 >= 0) room -= Buffer.byteLength(eventJson[--first]!) + 1;
    const body = [head, ...eventJson.slice(first)].join("\n") + "\n";
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700); // mkdir's mode yields to the umask and leaves an existing folder as it was
    const temporary = path.join(this.dir, `.${entry.id}.${process.pid}.tmp`);
    fs.writeFileSync(temporary, body, { mode: 0o600 });
    fs.renameSync(temporary, this.file(entry.id));
    this.prune(entry.id);
  }

  delete(id: string): boolean {
    if (!isHistoryId(id)) return false;
    try {
      fs.rmSync(this.file(id));
      return true;
    } catch {
      return false;
    }
  }

  private prune(keep: string): void {
    const files = this.files()
      .map((file) => ({ file, stat: fs.statSync(file, { throwIfNoEntry: false }) }))
      .filter((each): each is { file: string; stat: fs.Stats } => each.stat !== undefined)
      .sort((a, b) => b.stat.mtimeMs - a.stat.mtimeMs);
    let total = 0;
    files.forEach(({ file, stat }, index) => {
      total += stat.size;
      const mine = path.basename(file) === `${keep}${SUFFIX}`;
      if (!mine && (index >= HISTORY_LIMITS.conversations || total > HISTORY_LIMITS.totalBytes)) {
        fs.rmSync(file, { force: true });
        total -= stat.size;
      }
    });
  }

  private files(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((name) => name.endsWith(SUFFIX) && isHistoryId(name.slice(0, -SUFFIX.length))).map((name) => path.join(this.dir, name));
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}${SUFFIX}`);
  }

  private head(file: string): StoredHistoryEntry | undefined {
    let text: string;
    try {
      text = readStart(file, HEAD_BYTES).toString("utf8");
    } catch (error) {
      this.log(`cannot read the history file ${file}: ${(error as Error).message}`);
      return undefined;
    }
    const end = text.indexOf("\n");
    const entry = storedHistoryEntry(parsed(end < 0 ? text : text.slice(0, end)), path.basename(file, SUFFIX));
    if (!entry) this.log(`the history file ${file} is damaged (its first line is no entry): not listed`);
    return entry;
  }
}

/**
 * The first `most` bytes of `file`: a regular file (never a FIFO, a device or
 * a link; opened without blocking) of at most MAX_FILE_BYTES. Throws, saying why.
 */
function readStart(file: string, most: number): Buffer {
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error("it is not a regular file");
    if (stat.size > MAX_FILE_BYTES) throw new Error(`it is ${stat.size} bytes, too large: over the ${MAX_FILE_BYTES}-byte limit of a history file`);
    const buffer = Buffer.alloc(Math.min(most, stat.size));
    let total = 0;
    for (let read = -1; read !== 0 && total < buffer.length; total += read) read = fs.readSync(fd, buffer, total, buffer.length - total, total);
    return buffer.subarray(0, total);
  } finally {
    fs.closeSync(fd);
  }
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every(isString);

/** A file's first line as an entry, when well-formed and naming the file's own id. */
function storedHistoryEntry(value: unknown, id: string): StoredHistoryEntry | undefined {
  if (!isObject(value) || value.id !== id || !isString(value.title)) return undefined;
  if (!Number.isFinite(value.createdAt) || !Number.isFinite(value.updatedAt) || !isOptional(value.agentSessionId, isString)) return undefined;
  return value as unknown as StoredHistoryEntry;
}

/** The fields each kind of event must have for the transcript and the page to take it (webchat/page/protocol.ts). */
const EVENT_FIELDS: Record<TranscriptEvent["kind"], (event: Fields) => boolean> = {
  user: (event) =>
    isString(event.text) &&
    isOptional(event.contextSkipped, (value) => typeof value === "boolean") &&
    isOptional(event.images, (value) => Number.isSafeInteger(value) && (value as number) >= 0),
  update: (event) => isObject(event.update) && isString(event.update.sessionUpdate),
  permission: (event) => isString(event.id) && isString(event.title) && Array.isArray(event.options) && event.options.every(isObject),
  permissionDone: (event) => isString(event.id) && isString(event.outcome),
  turnEnd: (event) => isString(event.stopReason),
  turnChanges: (event) => isString(event.project) && isString(event.turn) && Number.isSafeInteger(event.count) && isStrings(event.files),
  turnUndone: (event) => isString(event.turn),
  error: (event) => isString(event.message) && isOptional(event.detail, isStrings),
  notice: (event) => isString(event.message),
  signIn: (event) => isString(event.id) && isString(event.message) && Array.isArray(event.methods) && event.methods.every(isObject),
  signInDone: (event) => isString(event.id) && isString(event.methodId) && typeof event.ok === "boolean" && isOptional(event.output, isStrings),
  signInProgress: (event) => isString(event.id) && isString(event.methodId) && isStrings(event.lines) && Number.isFinite(event.limitMs),
  elicitation: (event) =>
    isString(event.id) && isString(event.message) && (event.mode === "url" ? isString(event.url) : Array.isArray(event.fields) && event.fields.every(isObject)),
  elicitationDone: (event) => isString(event.id) && isString(event.action),
  terminal: (event) => isString(event.terminalId) && isString(event.output) && typeof event.truncated === "boolean",
};

/** A kept line as a transcript event, when it is one of a known kind with its fields. */
export function transcriptEvent(value: unknown): TranscriptEvent | undefined {
  if (!isObject(value) || !isString(value.kind) || !Object.hasOwn(EVENT_FIELDS, value.kind)) return undefined;
  return EVENT_FIELDS[value.kind as TranscriptEvent["kind"]](value) ? (value as unknown as TranscriptEvent) : undefined;
}
