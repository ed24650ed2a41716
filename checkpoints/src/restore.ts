// Putting one turn's files back as they were before it, and nothing else:
// a file whose content is no longer what the turn left (the user, or another
// turn, changed it since) is a conflict and stays as it is. Written by us,
// never by git: each file goes to a temporary name beside it and is renamed
// over, so a symlink in its place is replaced, never followed; a path with a
// symlink (or a file) among its parent folders is refused, so no byte lands
// outside the project.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ShadowRepo, TreeEntry } from "./shadow-repo.js";
import { isRelativePath } from "./turn-record.js";

export interface RestoreOutcome {
  /** Files put back to their before-turn state. */
  restored: string[];
  /** Files left alone, and why (changed since the turn, a symlinked parent, unreadable). */
  conflicts: Array<{ path: string; reason: string }>;
}

const SYMLINK = "120000";
const GITLINK = "160000";
const EXECUTABLE = "100755";

/** The file at `relative` under `root` as a tree entry would describe it, or null when absent. */
export function currentEntry(root: string, relative: string): TreeEntry | null | "other" {
  const file = path.join(root, relative);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink()) return { mode: SYMLINK, object: blobId(Buffer.from(fs.readlinkSync(file), "utf8")) };
  if (!stat.isFile()) return "other";
  const mode = process.platform !== "win32" && (stat.mode & 0o111) !== 0 ? EXECUTABLE : "100644";
  return { mode, object: blobId(fs.readFileSync(file)) };
}

/** git's object id of a blob with `content` (SHA-1, as the shadow repositories use). */
export function blobId(content: Buffer): string {
  return crypto.createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Restores `paths` of `root` from tree `before`, each only where it is still as tree `after` has it. */
export async function restorePaths(
  repo: ShadowRepo,
  paths: readonly string[],
  before: string,
  after: string,
  timeoutMs: number,
  /** Why a file must be left alone whatever its content (the editor holds unsaved changes to it), or null. */
  keep: (relative: string) => string | null = () => null,
): Promise<RestoreOutcome> {
  const root = repo.workTree;
  const [beforeEntries, afterEntries] = await Promise.all([repo.entries(before, paths, timeoutMs), repo.entries(after, paths, timeoutMs)]);
  const outcome: RestoreOutcome = { restored: [], conflicts: [] };
  const writes: Array<{ path: string; entry: TreeEntry | null }> = [];
  for (const relative of paths) {
    // A path under a symlink is not in the project: it counts as absent (and is never read through the link).
    const now = unsafeParent(root, relative) === null ? currentEntry(root, relative) : null;
    const problem = keep(relative) ?? changedSince(now, afterEntries.get(relative) ?? null);
    if (problem !== null) outcome.conflicts.push({ path: relative, reason: problem });
    else writes.push({ path: relative, entry: beforeEntries.get(relative) ?? null });
  }
  const objects = writes.flatMap(({ entry }) => (entry !== null && entry.mode !== GITLINK ? [entry.object] : []));
  const contents = await repo.blobs([...new Set(objects)], timeoutMs);
  // Deletions first: a file the turn turned into a folder (or back) frees its name before the other is written.
  writes.sort((a, b) => Number(a.entry !== null) - Number(b.entry !== null));
  for (const { path: relative, entry } of writes) {
    try {
      // Checked again now: the deletions before may have removed a symlink the turn put among its parents.
      const unsafe = unsafeParent(root, relative);
      if (unsafe !== null) throw new Error(unsafe);
      // And the file itself: a save that landed while the old contents were read from the store wins.
      const since = changedSince(currentEntry(root, relative), afterEntries.get(relative) ?? null);
      if (since !== null) throw new Error(since);
      if (entry === null) removeFile(root, relative);
      else if (entry.mode === GITLINK) throw new Error("a nested repository is not restored (its own git keeps its history)");
      else writeEntry(root, relative, entry, contents.get(entry.object)!);
      outcome.restored.push(relative);
    } catch (error) {
      outcome.conflicts.push({ path: relative, reason: (error as Error).message });
    }
  }
  return outcome;
}

/**
 * Why no undo may write or remove `relative` (a name from the store's trees), or null when it may: an absolute
 * path, one with `..` (outside the project), or one inside a `.git` folder (the user's own repository: its hooks
 * run code). Git's own checkouts refuse the same names, spelled the ways Windows and macOS read as `.git`.
 */
export function whyUnwritable(relative: string): string | null {
  // On Windows a colon makes a drive-relative path or names a file's stream (isRelativePath refuses backslashes there).
  if (!isRelativePath(relative) || (process.platform === "win32" && relative.includes(":"))) return "it is absolute or leaves the project";
  if (relative.split("/").some(isDotGit)) return "it is inside a .git folder";
  return null;
}

/**
 * Whether a path component names `.git`, as git's own checks read it: in any case, with trailing dots or spaces
 * or as its short name (Windows; git refuses these everywhere), and on macOS with characters HFS+ ignores.
 */
function isDotGit(component: string): boolean {
  const visible = process.platform === "darwin" ? component.replace(/[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, "") : component;
  const name = visible.replace(/[. ]+$/, "").toLowerCase();
  return name === ".git" || name === "git~1";
}

/** Why a file now `now` is no longer as the turn left it (`after`), or null when it is. */
function changedSince(now: TreeEntry | null | "other", after: TreeEntry | null): string | null {
  if (now === "other") return "it is no longer a file";
  if (now === null && after === null) return null;
  if (now === null) return "deleted since the turn";
  if (after === null) return "created since the turn";
  if (now.object !== after.object) return "changed since the turn";
  return null;
}

/** Why a file at `relative` could not be written without leaving the project, or null. */
function unsafeParent(root: string, relative: string): string | null {
  const parts = relative.split("/");
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(at);
    } catch {
      return null; // missing from here on: created as folders when written
    }
    if (stat.isSymbolicLink()) return `${path.relative(root, at)} is a symlink (never followed)`;
    if (!stat.isDirectory()) return `${path.relative(root, at)} is not a folder`;
  }
  return null;
}

/** Removes the file the turn created; folders stay (git does not record them, so an empty one may be the user's). */
function removeFile(root: string, relative: string): void {
  fs.rmSync(path.join(root, relative), { force: true });
}

function writeEntry(root: string, relative: string, entry: TreeEntry, content: Buffer): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const existing = fs.lstatSync(file, { throwIfNoEntry: false });
  // A folder the turn made in the file's place, emptied by the deletions before: rmdir refuses one that is not empty.
  if (existing?.isDirectory()) fs.rmdirSync(file);
  // The file keeps the permissions it has (git records only whether it is executable).
  const permissions = existing?.isFile() ? existing.mode & 0o666 : 0o644;
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.symposium-restore-${crypto.randomBytes(4).toString("hex")}`);
  try {
    if (entry.mode === SYMLINK) fs.symlinkSync(content.toString("utf8"), temporary);
    else fs.writeFileSync(temporary, content, { mode: entry.mode === EXECUTABLE ? permissions | 0o111 : permissions, flag: "wx" });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
