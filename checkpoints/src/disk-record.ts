// Proof without git that a project is as a snapshot found it. After a snapshot,
// the stat of every file its tree holds (and of the files it skipped) and the
// names in every folder git looked into, each with its type (an ignored folder
// turned into a file is one git sees), are recorded; a later check that finds
// them all the same reuses the snapshot's tree, as `git ls-files` would, with no
// process started. It follows git's own rules: a file is unchanged when its stat
// data is (change time included, which no tool can set back), and a file whose
// times are too close to the snapshot's start to tell ("racily clean") is never
// trusted. Anything unsure (an error, a nested repository, an inode of 0 (no
// stable file identity, as on some Windows filesystems), too
// many files, a file git would see that the tree lacks) means no record: git
// then checks, as before.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SkippedFile } from "./shadow-repo.js";

/** Above this many files and folders, the stat calls cost about what the one `git ls-files` they replace does. */
export const MAX_RECORDED_ENTRIES = 1_000;
/**
 * A file modified this close before the snapshot started (or after) may have changed while git read it:
 * the coarsest timestamps in use (FAT's, 2 s) cannot tell.
 */
export const RACY_MARGIN_MS = 2_000;
/** Folders without tracked files that are not ignored (empty ones) are looked into at most this deep. */
const MAX_ROUNDS = 8;
const STAT_BATCH = 256;

export interface DiskRecord {
  /** The snapshot's tree and skipped files, what a check that finds nothing changed returns. */
  tree: string;
  skipped: SkippedFile[];
  /** Project-relative path (`/`-separated) → its stat key. */
  files: Map<string, string>;
  /**
   * Project-relative folder (`""` for the top) → its stat key and its entries (sorted, NUL-joined, each its
   * type's letter and its name: an ignored folder turned into a file of the same name is a file git now sees).
   */
  folders: Map<string, { key: string; names: string }>;
  /** Files outside the project that decide what git ignores (absolute path → stat key, or "absent"). */
  outside: Map<string, string>;
}

export interface RecordInput {
  workTree: string;
  tree: string;
  skipped: SkippedFile[];
  /** When the snapshot started (ms since the epoch): no recorded time may be near or after it. */
  startedMs: number;
  /** The tree's entries, `git ls-tree -r -t` style: path → mode. */
  treeEntries: Map<string, string>;
  /** Which of these project-relative paths git ignores. */
  ignored: (paths: string[]) => Promise<Set<string>>;
}

/**
 * The record of `input.tree` as the disk is now; "racy" when only a file's times too close to the snapshot's
 * start stand in the way (a snapshot taken later may leave one); null when it cannot be trusted later.
 */
export async function recordDisk(input: RecordInput): Promise<DiskRecord | "racy" | null> {
  const files = new Set<string>();
  const treeFolders = new Set<string>([""]);
  for (const [entry, mode] of input.treeEntries) {
    if (mode === "160000") return null; // a nested repository: its commit changes without its folder's stat changing
    if (mode === "040000") treeFolders.add(entry);
    else files.add(entry);
  }
  for (const file of input.skipped) {
    files.add(file.path);
    for (let folder = parentOf(file.path); folder !== ""; folder = parentOf(folder)) treeFolders.add(folder);
  }
  if (files.size + treeFolders.size > MAX_RECORDED_ENTRIES) return null;

  const folders = new Map<string, { key: string; names: string }>();
  let toWalk = [...treeFolders];
  for (let round = 0; toWalk.length > 0; round++) {
    if (round >= MAX_ROUNDS || files.size + folders.size + toWalk.length > MAX_RECORDED_ENTRIES) return null;
    const unknown: Array<{ entry: string; folder: boolean }> = [];
    for (const [folder, listing] of await inBatches(toWalk, (folder) => listFolder(input.workTree, folder))) {
      if (listing === null) return null;
      folders.set(folder, { key: listing.key, names: namesKey(listing.names) });
      for (const name of listing.names) {
        const entry = folder === "" ? name.name : `${folder}/${name.name}`;
        if (name.name === ".git") {
          if (folder !== "") return null; // a repository inside the project: git sees its commit, not its files
          continue; // the project's own: git never looks into it
        }
        if (files.has(entry) || treeFolders.has(entry)) continue;
        // Every .gitignore decides what git sees, even one that ignores itself.
        if (name.name === ".gitignore" && !name.folder) files.add(entry);
        else unknown.push({ entry, folder: name.folder });
      }
    }
    const ignored = unknown.length === 0 ? new Set<string>() : await input.ignored(unknown.map((name) => name.entry));
    toWalk = [];
    for (const name of unknown) {
      if (ignored.has(name.entry)) continue;
      // A file git would see that the tree lacks changed since the snapshot; a folder may hold only empty ones.
      if (!name.folder) return null;
      toWalk.push(name.entry);
    }
  }

  const racyFromNs = BigInt(input.startedMs - RACY_MARGIN_MS) * 1_000_000n;
  let racy = false;
  const recorded = new Map<string, string>();
  for (const [file, stat] of await inBatches([...files], (file) => lstatOrNull(path.join(input.workTree, file)))) {
    if (stat === null || stat.ino === 0n) return null;
    racy ||= isRacy(stat, racyFromNs);
    recorded.set(file, fileKey(stat));
  }
  const outside = new Map<string, string>();
  for (const file of outsideFiles()) {
    const stat = await statOrNull(file);
    racy ||= stat !== null && isRacy(stat, racyFromNs);
    outside.set(file, stat === null ? "absent" : fileKey(stat));
  }
  return racy ? "racy" : { tree: input.tree, skipped: input.skipped, files: recorded, folders, outside };
}

/**
 * Whether the disk is still exactly as `record` found it; false on any difference or error. Synchronous on
 * purpose: a few thousand stat calls through the thread pool cost several times the git process they
 * replace, while done in line they take well under a millisecond per thousand.
 */
export function unchangedSince(record: DiskRecord, workTree: string): boolean {
  try {
    for (const [file, key] of record.files) {
      if (fileKey(fs.lstatSync(path.join(workTree, file), { bigint: true })) !== key) return false;
    }
    for (const [folder, was] of record.folders) {
      const where = path.join(workTree, folder);
      if (folderKey(fs.lstatSync(where, { bigint: true })) !== was.key) return false;
      if (namesKey(sortedNames(fs.readdirSync(where, { withFileTypes: true }))) !== was.names) return false;
    }
    for (const [file, key] of record.outside) {
      const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
      if ((stat === undefined ? "absent" : fileKey(stat)) !== key) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** The files outside the project git reads ignore rules from: the user's own excludes file (its default place). */
function outsideFiles(): string[] {
  // git finds it from XDG_CONFIG_HOME, else HOME (which on Windows may differ from the profile folder).
  const homes = new Set([os.homedir(), process.env.HOME].filter((home): home is string => Boolean(home)));
  const configs = process.env.XDG_CONFIG_HOME ? [process.env.XDG_CONFIG_HOME] : [...homes].map((home) => path.join(home, ".config"));
  return configs.map((config) => path.join(config, "git", "ignore"));
}

/** A time near or after the snapshot's start: the file may have changed while git read it. */
function isRacy(stat: fs.BigIntStats, racyFromNs: bigint): boolean {
  return stat.mtimeNs >= racyFromNs || stat.ctimeNs >= racyFromNs;
}

function fileKey(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** A folder entry's type: d folder, f file, l symlink, o anything else (a socket, a device). */
type EntryType = "d" | "f" | "l" | "o";

interface FolderEntry {
  name: string;
  folder: boolean;
  type: EntryType;
}

interface Listing {
  key: string;
  names: FolderEntry[];
}

/** A folder's identity (the same folder, still a folder, not a link) and its names, sorted; null when it is not one. */
async function listFolder(workTree: string, folder: string): Promise<Listing | null> {
  const where = path.join(workTree, folder);
  const stat = await lstatOrNull(where);
  if (stat === null || !stat.isDirectory() || stat.ino === 0n) return null;
  const entries = await fs.promises.readdir(where, { withFileTypes: true }).catch(() => null);
  if (entries === null) return null;
  return { key: folderKey(stat), names: sortedNames(entries) };
}

function folderKey(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.mode}`;
}

function sortedNames(entries: fs.Dirent[]): FolderEntry[] {
  return entries
    .map((entry) => ({ name: entry.name, folder: entry.isDirectory(), type: entryType(entry) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function entryType(entry: fs.Dirent): EntryType {
  return entry.isDirectory() ? "d" : entry.isFile() ? "f" : entry.isSymbolicLink() ? "l" : "o";
}

/** A folder's entries as one string: a name whose type changed (folder, file, symlink) differs, whether git ignores it or not. */
function namesKey(names: readonly FolderEntry[]): string {
  return names.map((name) => `${name.type}${name.name}`).join("\0");
}

function lstatOrNull(file: string): Promise<fs.BigIntStats | null> {
  return fs.promises.lstat(file, { bigint: true }).catch(() => null);
}

function statOrNull(file: string): Promise<fs.BigIntStats | null> {
  return fs.promises.stat(file, { bigint: true }).catch(() => null);
}

/** `work` on every item, at most a batch at a time in flight; pairs of item and result, in order. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<Array<[T, R]>> {
  const results: Array<[T, R]> = [];
  for (let i = 0; i < items.length; i += STAT_BATCH) {
    const batch = items.slice(i, i + STAT_BATCH);
    const done = await Promise.all(batch.map(work));
    batch.forEach((item, j) => results.push([item, done[j]!]));
  }
  return results;
}

function parentOf(entry: string): string {
  const slash = entry.lastIndexOf("/");
  return slash < 0 ? "" : entry.slice(0, slash);
}
