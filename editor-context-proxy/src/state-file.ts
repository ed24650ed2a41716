// Reads the state file safely, on the hot path of every prompt.
//
// Synchronous on purpose: the read is a few microseconds on a local file, and
// doing it inline keeps message order trivially intact (a session/cancel can
// never overtake the prompt it cancels). It never blocks and never reads
// unboundedly: the file is opened non-blocking (a FIFO opens at once), checked
// with fstat before a byte is read (FIFOs, devices, directories and large
// files are refused), and read with a fixed upper bound.

import * as fs from "node:fs";
import {
  MAX_STATE_AGE_MS,
  MAX_STATE_BYTES,
  STATE_FILE_ENV,
  parseEditorState,
  parseEditorTools,
  parseUnsavedDocuments,
  type EditorState,
  type EditorToolsState,
  type UnsavedDocumentState,
} from "../../editor-state/src/index.js";

/**
 * A fresh file's unsaved documents and editor tools come with it (`unsaved`, `editorTools`), also when it
 * names no active file (no block, but the agent still reads what the user sees and reaches the window).
 */
export type StateReadResult =
  | { ok: true; state: EditorState; ageMs: number; unsaved: UnsavedDocumentState[]; editorTools: EditorToolsState | null }
  | { ok: false; reason: string; unsaved?: UnsavedDocumentState[]; editorTools?: EditorToolsState | null };

export interface StateFileReaderOptions {
  /** Skip a file last written longer ago than this (docs/state-file.md: 30 s). */
  maxAgeMs?: number;
  maxBytes?: number;
  now?: () => number;
}

// O_NONBLOCK does not exist on Windows; there a named pipe is not a path in
// the file system namespace the tracker writes to, so plain read-only is safe.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** Reads of a file that changes under them before falling back to the last good state. */
const READ_ATTEMPTS = 3;

/** A read that met a file changing under it: worth another try. */
interface Changing {
  changing: string;
}

interface CacheEntry {
  key: string;
  result: StateReadResult;
}

/**
 * Reads and validates the state file. The parsed result is cached, keyed by
 * the file's identity, size and times; a cache hit costs one stat of the path
 * (the tracker replaces the file atomically, so a new version is a new
 * identity), anything else opens the file and reads what that open sees.
 */
export class StateFileReader {
  private cache: CacheEntry | null = null;
  /** The last state parsed whole, and its file's modification time: the fallback while the file keeps changing. */
  private lastGood: { result: StateReadResult; mtimeMs: number } | null = null;
  /** Files last written longer ago than this are skipped. */
  readonly maxAgeMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(
    readonly path: string | undefined,
    options: StateFileReaderOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? MAX_STATE_AGE_MS;
    this.maxBytes = options.maxBytes ?? MAX_STATE_BYTES;
    this.now = options.now ?? Date.now;
  }

  read(): StateReadResult {
    if (!this.path) return { ok: false, reason: `${STATE_FILE_ENV} is not set` };
    const cached = this.cacheHit(this.path);
    if (cached !== null) return cached;
    // A file that changed under the read is read again: each try opens the
    // path anew, so it finds the writer's next whole version.
    let result = this.readOnce(this.path);
    for (let attempt = 1; attempt < READ_ATTEMPTS && "changing" in result; attempt++) result = this.readOnce(this.path);
    if (!("changing" in result)) return result;
    return this.lastGoodIfFresh() ?? { ok: false, reason: result.changing };
  }

  private readOnce(path: string): StateReadResult | Changing {
    let fd: number;
    try {
      fd = fs.openSync(path, OPEN_FLAGS);
    } catch (error) {
      return { ok: false, reason: describeOpenError(path, error) };
    }
    try {
      return this.readOpen(fd);
    } catch (error) {
      return { ok: false, reason: `cannot read ${path}: ${(error as Error).message}` };
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The last state read whole, while its file's time is still within the age limit. */
  private lastGoodIfFresh(): StateReadResult | null {
    if (this.lastGood === null) return null;
    const ageMs = this.now() - this.lastGood.mtimeMs;
    return Math.abs(ageMs) > this.maxAgeMs ? null : withAge(this.lastGood.result, ageMs);
  }

  /** The cached result when the path still names that very file, fresh; null otherwise (the full read says why). */
  private cacheHit(path: string): StateReadResult | null {
    if (this.cache === null) return null;
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (stat === undefined || statKey(stat) !== this.cache.key) return null;
    const ageMs = this.now() - Number(stat.mtimeMs);
    return Math.abs(ageMs) > this.maxAgeMs ? null : withAge(this.cache.result, ageMs);
  }

  private readOpen(fd: number): StateReadResult | Changing {
    const stat = fs.fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return { ok: false, reason: `${this.path} is not a regular file (${fileKind(stat)})` };
    const ageMs = this.now() - Number(stat.mtimeMs);
    if (ageMs > this.maxAgeMs) {
      return { ok: false, reason: `${this.path} is stale: last written ${Math.round(ageMs / 1000)} s ago (limit ${this.maxAgeMs / 1000} s)` };
    }
    if (ageMs < -this.maxAgeMs) return { ok: false, reason: `${this.path} has a modification time in the future` };
    if (stat.size > BigInt(this.maxBytes)) {
      return { ok: false, reason: `${this.path} is ${stat.size} bytes, over the ${this.maxBytes}-byte limit` };
    }
    const key = statKey(stat);
    if (this.cache?.key === key) return withAge(this.cache.result, ageMs);
    const bytes = readBounded(fd, Number(stat.size), this.maxBytes);
    // A writer that is not atomic may be halfway through: what was read could
    // mix two versions. Not the ctime: an atomic writer's rename unlinks the
    // file being read, which changes only its ctime, never its bytes.
    if (
      contentKey(fs.fstatSync(fd, { bigint: true })) !== contentKey(stat) ||
      (bytes !== null && (bytes.length !== Number(stat.size) || !readsTheSame(fd, bytes)))
    ) {
      return { changing: `${this.path} kept changing while it was read (${READ_ATTEMPTS} tries; is its writer atomic?)` };
    }
    const result = this.parse(bytes);
    this.cache = { key, result };
    if (result.ok) this.lastGood = { result, mtimeMs: Number(stat.mtimeMs) };
    return withAge(result, ageMs);
  }

  private parse(bytes: Buffer | null): StateReadResult {
    if (bytes === null) return { ok: false, reason: `${this.path} grew past the ${this.maxBytes}-byte limit while being read` };
    const depth = nestingDepth(bytes, MAX_NESTING);
    if (depth > MAX_NESTING) return { ok: false, reason: `${this.path} nests values deeper than ${MAX_NESTING} levels` };
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      return { ok: false, reason: `${this.path} is not valid JSON: ${(error as Error).message}` };
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, reason: `${this.path} does not hold a JSON object` };
    }
    const state = parseEditorState(value);
    const unsaved = parseUnsavedDocuments(value);
    const editorTools = parseEditorTools(value);
    if (state === null) return { ok: false, reason: `${this.path} names no active file`, unsaved, editorTools };
    return { ok: true, state, ageMs: 0, unsaved, editorTools };
  }
}

/**
 * A second read matches the first: file times may not tick between two writes
 * of an in-place writer (their granularity is the kernel's clock tick), bytes do.
 */
function readsTheSame(fd: number, first: Buffer): boolean {
  const again = Buffer.allocUnsafe(first.length);
  return fs.readSync(fd, again, 0, again.length, 0) === first.length && again.equals(first);
}

function statKey(stat: fs.BigIntStats): string {
  return `${contentKey(stat)}:${stat.ctimeNs}`;
}

/** What changes when the file's bytes do. */
function contentKey(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

/**
 * The state file's format nests a few levels; JSON.parse of megabytes of
 * brackets takes about a second. This scan (a few ms for the largest file
 * allowed) refuses such a file before it is parsed.
 */
const MAX_NESTING = 32;

/** The deepest nesting of arrays and objects, outside strings; stops counting past `limit`. */
function nestingDepth(bytes: Buffer, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!;
    if (inString) {
      if (byte === 0x5c) at++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

function withAge(result: StateReadResult, ageMs: number): StateReadResult {
  return result.ok ? { ...result, ageMs } : result;
}

/**
 * Reads the file, expecting `expected` bytes (fstat's size), in one read when
 * it has not changed since; never more than maxBytes. Null when it holds more.
 */
function readBounded(fd: number, expected: number, maxBytes: number): Buffer | null {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (buffer.length > maxBytes) return null;
      const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(larger, 0, 0, total);
      buffer = larger;
    }
    const read = fs.readSync(fd, buffer, total, buffer.length - total, null);
    if (read === 0) return buffer.subarray(0, total);
    total += read;
  }
}

function fileKind(stat: fs.BigIntStats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "not a file";
}

function describeOpenError(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return `${path} does not exist`;
  if (code === "EACCES" || code === "EPERM") return `${path} is not readable`;
  if (code === "ENXIO") return `${path} is a FIFO or socket with no writer`;
  return `cannot open ${path}: ${(error as Error).message}`;
}
