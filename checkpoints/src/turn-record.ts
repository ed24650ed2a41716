// A turn's record: which conversation, what it asked, the project's trees
// before and after, and the files that changed. One JSON file per turn
// (0600, written whole through a rename), in its project's folder; read back
// checked, so a damaged file is reported, never trusted.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ChangedFile, ChangeStatus, SkippedFile } from "./shadow-repo.js";

export const RECORD_VERSION = 1;

/** open: the prompt is still waiting for its answer; done: both trees taken; skipped/failed: no review possible (notes say why). */
export type TurnState = "open" | "done" | "skipped" | "failed";

/** One directory of the turn's project (its `cwd`, then any additional directories). */
export interface TurnRoot {
  dir: string;
  before: string | null;
  after: string | null;
  files: ChangedFile[];
  skipped: SkippedFile[];
}

export interface TurnRecord {
  version: typeof RECORD_VERSION;
  id: string;
  sessionId: string;
  /** The prompt's text, cut to PROMPT_CHARS. */
  prompt: string;
  startedAt: string;
  endedAt: string | null;
  state: TurnState;
  roots: TurnRoot[];
  notes: string[];
  /** When the turn was undone (its files put back: `restore`, or a rewind past it); absent while it stands. */
  undoneAt?: string;
}

export const PROMPT_CHARS = 200;

/** A new turn's id: its start time (so names sort by age) and a random tail. */
export function newTurnId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.(\d{3})Z$/, "$1Z");
  return `${stamp}-${crypto.randomBytes(3).toString("hex")}`;
}

const TURN_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;

export function isTurnId(text: string): boolean {
  return TURN_ID.test(text);
}

export function writeRecord(folder: string, record: TurnRecord): void {
  const file = path.join(folder, `${record.id}.json`);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** The records in `folder`, oldest first; a file that cannot be read or is not a record is named in `damaged`. */
export function readRecords(folder: string): { records: TurnRecord[]; damaged: string[] } {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return { records: [], damaged: [] };
  }
  const records: TurnRecord[] = [];
  const damaged: string[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".json") && isTurnId(entry.slice(0, -5))).sort()) {
    const record = readRecord(path.join(folder, name));
    if (record === null) damaged.push(name);
    else records.push(record);
  }
  return { records, damaged };
}

export function readRecord(file: string): TurnRecord | null {
  try {
    return parseRecord(JSON.parse(fs.readFileSync(file, "utf8")) as unknown);
  } catch {
    return null;
  }
}

function parseRecord(value: unknown): TurnRecord | null {
  if (!isObject(value) || value.version !== RECORD_VERSION) return null;
  const { id, sessionId, prompt, startedAt, endedAt, state, roots, notes, undoneAt } = value;
  if (typeof id !== "string" || !isTurnId(id) || typeof sessionId !== "string" || typeof prompt !== "string") return null;
  if (typeof startedAt !== "string" || (endedAt !== null && typeof endedAt !== "string")) return null;
  if (state !== "open" && state !== "done" && state !== "skipped" && state !== "failed") return null;
  if (undoneAt !== undefined && typeof undoneAt !== "string") return null;
  if (!Array.isArray(roots) || !Array.isArray(notes) || !notes.every((note) => typeof note === "string")) return null;
  const parsedRoots = roots.map(parseRoot);
  if (parsedRoots.some((root) => root === null)) return null;
  return {
    version: RECORD_VERSION,
    id,
    sessionId,
    prompt,
    startedAt,
    endedAt,
    state,
    roots: parsedRoots as TurnRoot[],
    notes: notes,
    ...(undoneAt === undefined ? {} : { undoneAt }),
  };
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const STATUSES: ReadonlySet<string> = new Set<ChangeStatus>(["added", "modified", "deleted", "renamed"]);

function parseRoot(value: unknown): TurnRoot | null {
  if (!isObject(value) || typeof value.dir !== "string" || !path.isAbsolute(value.dir)) return null;
  const tree = (candidate: unknown) => (candidate === null ? null : typeof candidate === "string" && OBJECT_ID.test(candidate) ? candidate : undefined);
  const before = tree(value.before);
  const after = tree(value.after);
  if (before === undefined || after === undefined || !Array.isArray(value.files) || !Array.isArray(value.skipped)) return null;
  const files: ChangedFile[] = [];
  for (const file of value.files as unknown[]) {
    if (!isObject(file) || !isRelativePath(file.path) || typeof file.status !== "string" || !STATUSES.has(file.status)) return null;
    if (file.from !== undefined && !isRelativePath(file.from)) return null;
    files.push({ path: file.path, status: file.status as ChangeStatus, ...(typeof file.from === "string" ? { from: file.from } : {}) });
  }
  const skipped: SkippedFile[] = [];
  for (const file of value.skipped as unknown[]) {
    if (!isObject(file) || !isRelativePath(file.path) || typeof file.reason !== "string") return null;
    skipped.push({ path: file.path, reason: file.reason });
  }
  return { dir: value.dir, before, after, files, skipped };
}

/** A path inside its root, as git writes it: relative, forward slashes, no `..` or `.` parts. */
export function isRelativePath(value: unknown): value is string {
  if (typeof value !== "string" || value === "" || value.startsWith("/") || value.includes("\0")) return false;
  // On Windows a backslash is a separator: a name holding one could climb out.
  if (process.platform === "win32" && value.includes("\\")) return false;
  return value.split("/").every((part) => part !== "" && part !== "." && part !== ".." && !/^[A-Za-z]:$/.test(part));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
