// The window's unsaved files, for the agent (docs/state-file.md, "Unsaved
// documents"): one snapshot file per dirty document, next to the state file
// in its private directory (0600 in 0700), listed in the state file. Without
// `vscode`, like state-file-writer.ts, so tests drive it directly.
//
// Order keeps readers right: a snapshot is written (atomically) before the
// state file lists it, and removed only after a state file that no longer
// lists it was written. So a listed snapshot exists, and holds the listed
// version or a newer one.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { MAX_SNAPSHOTS_TOTAL_BYTES, MAX_SNAPSHOT_BYTES, MAX_UNSAVED_DOCUMENTS, type UnsavedDocumentState } from "../../../editor-state/src/index.js";

/** What the tracker knows of a dirty document, without copying its text. */
export interface UnsavedDocumentFacts {
  /** Absolute path on disk. */
  path: string;
  version: number;
  /** Its length in UTF-16 code units (a lower bound of its UTF-8 size), known without copying the text. */
  length: number;
  text(): string;
}

export interface SnapshotLimits {
  maxBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxBytes: MAX_SNAPSHOT_BYTES, maxTotalBytes: MAX_SNAPSHOTS_TOTAL_BYTES };

interface Written {
  name: string;
  version: number;
  bytes: number;
}

export class UnsavedSnapshots {
  /** Snapshots on disk, by document path. */
  private readonly written = new Map<string, Written>();
  /** Names to remove once a state file that does not list them is written. */
  private readonly obsolete = new Set<string>();
  private orphansSwept: string | undefined;
  private failing = false;

  constructor(
    private readonly log: { warn(message: string): void; info(message: string): void },
    private readonly limits: SnapshotLimits = DEFAULT_SNAPSHOT_LIMITS,
  ) {}

  /**
   * Writes the snapshots of new or changed documents for the state file at
   * `stateFile` and returns the list it must carry. Documents over the caps
   * are listed with `snapshot: null`.
   */
  sync(stateFile: string, documents: UnsavedDocumentFacts[]): UnsavedDocumentState[] {
    this.sweepOrphans(stateFile);
    const listed = new Set<string>();
    const entries: UnsavedDocumentState[] = [];
    let budget = this.limits.maxTotalBytes;
    for (const document of documents.slice(0, MAX_UNSAVED_DOCUMENTS)) {
      listed.add(document.path);
      const written = this.snapshot(stateFile, document, budget);
      budget -= written?.bytes ?? 0;
      entries.push({ path: document.path, version: document.version, snapshot: written?.name ?? null });
    }
    for (const [file, written] of this.written) {
      if (listed.has(file)) continue;
      this.obsolete.add(written.name);
      this.written.delete(file);
    }
    return entries;
  }

  /** After a state file was written: its unlisted snapshots go. */
  removeObsolete(stateFile: string): void {
    for (const name of this.obsolete) removeQuietly(path.join(path.dirname(stateFile), name), this.log);
    this.obsolete.clear();
  }

  /** Every snapshot of `stateFile`, after the state file itself was removed (window closed, context off). */
  removeAll(stateFile: string): void {
    for (const { name } of this.written.values()) this.obsolete.add(name);
    this.written.clear();
    this.removeObsolete(stateFile);
    this.orphansSwept = undefined;
    this.sweepOrphans(stateFile);
  }

  /** The snapshot for `document`, written now unless it already holds this version; undefined when over the caps. */
  private snapshot(stateFile: string, document: UnsavedDocumentFacts, budget: number): Written | undefined {
    const previous = this.written.get(document.path);
    if (previous?.version === document.version && previous.bytes <= budget) return previous;
    const fits = (bytes: number): boolean => bytes <= this.limits.maxBytes && bytes <= budget;
    const text = fits(document.length) ? document.text() : undefined;
    const bytes = text === undefined ? Infinity : Buffer.byteLength(text);
    if (text === undefined || !fits(bytes)) return this.forget(document.path);
    const name = previous?.name ?? `${path.basename(stateFile, ".json")}.unsaved-${crypto.randomBytes(8).toString("hex")}.txt`;
    try {
      writeFileAtomic.sync(path.join(path.dirname(stateFile), name), text, { mode: 0o600, fsync: false });
    } catch (error) {
      if (!this.failing) this.log.warn(`cannot write the snapshot of ${document.path}: ${(error as Error).message} (retrying on the next change)`);
      this.failing = true;
      return this.forget(document.path);
    }
    this.failing = false;
    const written = { name, version: document.version, bytes };
    this.written.set(document.path, written);
    return written;
  }

  private forget(file: string): undefined {
    const previous = this.written.get(file);
    if (previous) this.obsolete.add(previous.name);
    this.written.delete(file);
    return undefined;
  }

  /** Snapshots a crashed extension host left for this state file (same name prefix) are removed, once per path. */
  private sweepOrphans(stateFile: string): void {
    if (this.orphansSwept === stateFile) return;
    this.orphansSwept = stateFile;
    const prefix = `${path.basename(stateFile, ".json")}.unsaved-`;
    const mine = new Set([...this.written.values()].map((written) => written.name));
    let names: string[];
    try {
      names = fs.readdirSync(path.dirname(stateFile));
    } catch {
      return;
    }
    for (const name of names) if (name.startsWith(prefix) && !mine.has(name)) removeQuietly(path.join(path.dirname(stateFile), name), this.log);
  }
}

function removeQuietly(file: string, log: { warn(message: string): void }): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.warn(`cannot remove ${file}: ${(error as Error).message}`);
  }
}
