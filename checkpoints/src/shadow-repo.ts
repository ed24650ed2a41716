// One project directory's shadow repository: a git directory in the private
// state directory whose work tree is the project. Snapshots go through an
// index file of this process's own (seeded from the last one written, so it is
// warm), and become trees named by refs; git never checks anything out, so
// the project is only ever read. The user's .git, index and stash are never
// opened: git is pointed at our directory by GIT_DIR.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_RECORDED_ENTRIES, RACY_MARGIN_MS, recordDisk, unchangedSince, type DiskRecord } from "./disk-record.js";
import { GitError, nulRecordBytes, nulRecords, runGit, utf8OrNull, type GitCall } from "./git.js";

/** Every file is stored as the bytes on disk: no end-of-line or filter conversion, whatever .gitattributes says. */
const ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n";

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface Snapshot {
  tree: string;
  skipped: SkippedFile[];
  /** Set when the shadow repository was damaged and this snapshot started a fresh one: what was done. */
  repaired?: string;
  /**
   * True when git found nothing on disk changed since this process's last snapshot of the directory, so its tree
   * is that snapshot's (no file staged, no tree written).
   */
  unchanged?: boolean;
  /** True when that was found without git, from the stat record a snapshot of that tree left (see disk-record.ts). */
  checkedWithoutGit?: boolean;
}

export interface SnapshotOptions {
  /**
   * A before-turn snapshot, on the prompt's path: it leaves no stat record itself when git took it (the turn's
   * own snapshot follows soon, and the agent needs the CPU meanwhile).
   */
  beforeTurn?: boolean;
  /** Taken again only to leave a record the last one could not (see recordInBackground); never taken again itself. */
  settling?: boolean;
}

export type ChangeStatus = "added" | "modified" | "deleted" | "renamed";

export interface ChangedFile {
  path: string;
  status: ChangeStatus;
  /** A renamed file's old path. */
  from?: string;
}

/** An entry of a tree: its mode (100644, 100755, 120000 for a symlink, 160000 for a nested repository) and object. */
export interface TreeEntry {
  mode: string;
  object: string;
}

export interface ShadowRepoOptions {
  /** The project directory (absolute, real path). */
  workTree: string;
  /** This repository's folder in the state directory. */
  home: string;
  /** Files larger than this are not stored (recorded as skipped). */
  maxFileBytes: number;
}

/** The file names in a repository's folder. */
const GIT_DIR = "git";
const SHARED_INDEX = "index";
const INDEXES = "indexes";
const LAST_SNAPSHOT_MS = "last-snapshot-ms";

export class ShadowRepo {
  readonly gitDir: string;
  private readonly ownIndex: string;
  private seeded = false;
  /**
   * The tree this process's index was last written as, while nothing has changed the index since (null before
   * the first snapshot and after the index is thrown away). A snapshot that finds nothing to stage is this tree.
   */
  private indexTree: string | null = null;
  /** Which repository folder `indexTree` is in (another process may set a damaged one aside and start afresh). */
  private indexTreeRepo = "";
  /**
   * A stat record of the index's tree (see disk-record.ts): it proves the disk holds that tree while its stats
   * match, whichever snapshot made it, so it is kept while later snapshots find the same tree.
   */
  private diskRecord: DiskRecord | null = null;
  /** Counts index resets: a record made across one is dropped. */
  private indexEpoch = 0;
  /** The tree a record is being made of, if one is. */
  private recordingTree: string | null = null;
  /** Snapshots of this repository run one at a time in this process (they share the index). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ShadowRepoOptions) {
    this.gitDir = path.join(options.home, GIT_DIR);
    this.ownIndex = path.join(options.home, INDEXES, `${process.pid}-${crypto.randomBytes(4).toString("hex")}`);
    this.lastSnapshotMs = this.readLastSnapshotMs();
  }

  get workTree(): string {
    return this.options.workTree;
  }

  /**
   * How long the last snapshot that finished took (ms), or null before the first. Kept in the repository's
   * folder too, so a new conversation on a project known to be too big does not wait the budget to learn it.
   */
  lastSnapshotMs: number | null;
  /** When the snapshot now running started (ms since the epoch), or null. */
  private runningSince: number | null = null;

  /** How long the snapshot now running has been running (ms); 0 when none is. */
  runningForMs(): number {
    return this.runningSince === null ? 0 : Date.now() - this.runningSince;
  }

  /** Snapshots asked for and not finished yet. */
  pending = 0;

  /** The project's files as a tree, within `timeoutMs` per git call. */
  snapshot(timeoutMs: number, options: SnapshotOptions = {}): Promise<Snapshot> {
    this.pending++;
    const run = this.queue.then(async () => {
      const started = Date.now();
      this.runningSince = started;
      try {
        // The same proof serves every snapshot (a turn that wrote nothing has its after-tree without git too),
        // but the one taken to leave a record.
        const proven = options.settling ? null : this.unchangedWithoutGit();
        if (proven !== null) return proven;
        const epoch = this.indexEpoch;
        const snapshot = await this.snapshotNow(timeoutMs);
        if (this.diskRecord?.tree !== snapshot.tree) this.diskRecord = null;
        const recordNeeded = this.diskRecord === null && this.recordingTree !== snapshot.tree;
        if (!options.beforeTurn && recordNeeded) this.recordInBackground(epoch, snapshot, started, timeoutMs, options.settling === true);
        return snapshot;
      } finally {
        this.runningSince = null;
        this.recordSnapshotMs(Date.now() - started);
        this.pending--;
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** The stat record being made behind the last snapshot. */
  private recording: Promise<void> = Promise.resolve();

  /**
   * Records the disk as `snapshot` found it, behind the snapshot (it is off the prompt's path: two git calls
   * and a stat per file). Kept only if the index still holds that tree, with no reset meanwhile.
   */
  private recordInBackground(epoch: number, snapshot: Snapshot, startedMs: number, timeoutMs: number, settling: boolean): void {
    if (snapshot.repaired !== undefined || !this.fewEnoughToRecord(snapshot)) return;
    const call = this.call(timeoutMs);
    this.recordingTree = snapshot.tree;
    this.recording = (async () => {
      const listed = await runGit(["ls-tree", "-r", "-t", "-z", "--full-tree", snapshot.tree], call);
      const treeEntries = new Map<string, string>();
      for (const record of nulRecords(listed.stdout)) {
        const tab = record.indexOf("\t");
        treeEntries.set(record.slice(tab + 1), record.slice(0, record.indexOf(" ")));
      }
      const record = await recordDisk({
        workTree: this.options.workTree,
        tree: snapshot.tree,
        skipped: snapshot.skipped,
        startedMs,
        treeEntries,
        ignored: async (paths) => {
          // check-ignore takes pathspecs: a name with pattern characters is not asked about (no record then).
          if (paths.some((entry) => /[*?[\\:]/.test(entry))) throw new Error("a name check-ignore would read as a pattern");
          const input = paths.map((entry) => `./${entry}\0`).join("");
          const args = ["--no-literal-pathspecs", "check-ignore", "-z", "--stdin"];
          const { stdout } = await runGit(args, { ...call, input, alsoSuccess: [1] });
          return new Set(nulRecords(stdout).map((entry) => entry.replace(/^\.\//, "")));
        },
      });
      if (epoch !== this.indexEpoch || snapshot.tree !== this.indexTree || this.diskRecord !== null) return;
      if (record === "racy") {
        // Files written just before the snapshot (the agent's, at the end of its turn): a snapshot taken once
        // the margin has passed, in the background, can leave a record before the next prompt needs it.
        if (!settling) this.settleLater(snapshot.tree, timeoutMs);
      } else if (record !== null) this.diskRecord = record;
    })()
      .catch(() => {})
      .finally(() => {
        if (this.recordingTree === snapshot.tree) this.recordingTree = null;
      });
  }

  /**
   * Whether the index holds few enough files for a record to pay (its header says how many), so a big
   * project's tree is not listed after every snapshot for nothing.
   */
  private fewEnoughToRecord(snapshot: Snapshot): boolean {
    try {
      const header = Buffer.alloc(12);
      const fd = fs.openSync(this.ownIndex, "r");
      try {
        fs.readSync(fd, header, 0, 12, 0);
      } finally {
        fs.closeSync(fd);
      }
      return header.toString("latin1", 0, 4) === "DIRC" && header.readUInt32BE(8) + snapshot.skipped.length <= MAX_RECORDED_ENTRIES;
    } catch {
      return false;
    }
  }

  private settleTimer: NodeJS.Timeout | null = null;
  private settling: Promise<void> = Promise.resolve();

  /** Settles once the snapshot taken to leave a record after a racy one (if one is due) and its record are done. */
  settled(): Promise<void> {
    return this.settling;
  }

  /** One snapshot more, once the racy margin has passed, unless a record of the tree came meanwhile. */
  private settleLater(tree: string, timeoutMs: number): void {
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settling = new Promise<void>((resolve) => {
      this.settleTimer = setTimeout(() => {
        this.settleTimer = null;
        if (this.diskRecord !== null || this.indexTree !== tree || this.pending > 0) return resolve();
        this.snapshot(timeoutMs, { settling: true })
          .then(() => this.recording)
          .catch(() => {})
          .finally(resolve);
      }, RACY_MARGIN_MS + 100);
      this.settleTimer.unref();
    });
  }

  /**
   * The last snapshot again when its stat record proves nothing changed since (no git process started); null
   * when there is no record, it is not this index's tree in this repository folder, or anything differs.
   */
  private unchangedWithoutGit(): Snapshot | null {
    const record = this.diskRecord;
    if (record?.tree !== this.indexTree || record === null) return null;
    try {
      if (this.indexTreeRepo !== this.repositoryIdentity()) return null;
    } catch {
      return null;
    }
    if (!unchangedSince(record, this.options.workTree)) {
      this.diskRecord = null; // it can only differ more from now on
      return null;
    }
    return { tree: record.tree, skipped: [...record.skipped], unchanged: true, checkedWithoutGit: true };
  }

  /** Names `tree` by `ref` (refs/turns/<id>/before), so git keeps it. */
  async keep(refs: ReadonlyArray<{ ref: string; tree: string }>, timeoutMs: number): Promise<void> {
    if (refs.length === 0) return;
    const input = refs.map(({ ref, tree }) => `update ${ref} ${tree}\n`).join("");
    await runGit(["update-ref", "--stdin"], { ...this.call(timeoutMs), input });
  }

  /** Forgets the refs under `prefix` (a pruned turn's). */
  async forget(prefix: string, timeoutMs: number): Promise<void> {
    const { stdout } = await runGit(["for-each-ref", "--format=%(refname)", prefix], this.call(timeoutMs));
    const refs = stdout.toString("utf8").split("\n").filter(Boolean);
    if (refs.length > 0) await runGit(["update-ref", "--stdin"], { ...this.call(timeoutMs), input: refs.map((ref) => `delete ${ref}\n`).join("") });
  }

  /** What changed from tree `before` to tree `after`; with `renames`, a file moved whole is one "renamed" entry. */
  async changes(before: string, after: string, renames: boolean, timeoutMs: number): Promise<ChangedFile[]> {
    const args = ["diff-tree", "-r", "-z", "--raw", renames ? "-M" : "--no-renames", before, after];
    const records = nulRecords((await runGit(args, this.call(timeoutMs))).stdout);
    const changes: ChangedFile[] = [];
    for (let i = 0; i < records.length;) {
      const status = records[i++]!.split(" ").pop() ?? "";
      if (status.startsWith("R") || status.startsWith("C")) {
        const from = records[i++]!;
        const to = records[i++]!;
        changes.push(status.startsWith("R") ? { path: to, status: "renamed", from } : { path: to, status: "added" });
      } else {
        const file = records[i++]!;
        changes.push({ path: file, status: status === "A" ? "added" : status === "D" ? "deleted" : "modified" });
      }
    }
    return changes;
  }

  /** The entries of `tree` at `paths` (a path absent from the tree is absent from the map). */
  async entries(tree: string, paths: readonly string[], timeoutMs: number): Promise<Map<string, TreeEntry>> {
    const found = new Map<string, TreeEntry>();
    if (paths.length === 0) return found;
    const args = ["ls-tree", "-r", "-z", "--full-tree", tree, "--", ...paths];
    for (const record of nulRecords((await runGit(args, this.call(timeoutMs))).stdout)) {
      const tab = record.indexOf("\t");
      const [mode = "", , object = ""] = record.slice(0, tab).split(" ");
      found.set(record.slice(tab + 1), { mode, object });
    }
    return found;
  }

  /** The contents of blobs, by object id. */
  async blobs(objects: readonly string[], timeoutMs: number): Promise<Map<string, Buffer>> {
    const contents = new Map<string, Buffer>();
    if (objects.length === 0) return contents;
    const { stdout } = await runGit(["cat-file", "--batch"], { ...this.call(timeoutMs), input: objects.map((object) => `${object}\n`).join("") });
    let at = 0;
    while (at < stdout.length) {
      const headerEnd = stdout.indexOf(0x0a, at);
      const [object = "", type = "", size = "0"] = stdout.subarray(at, headerEnd).toString("utf8").split(" ");
      if (type !== "blob") throw new GitError(`object ${object} is not in the checkpoint store (${type || "missing"})`);
      const start = headerEnd + 1;
      const end = start + Number(size);
      contents.set(object, stdout.subarray(start, end));
      at = end + 1;
    }
    return contents;
  }

  /** A unified diff from tree `before` to tree `after` (the CLI's `diff`). */
  async diff(before: string, after: string, timeoutMs: number): Promise<Buffer> {
    return (await runGit(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", before, after], this.call(timeoutMs))).stdout;
  }

  /** Settles once no snapshot of this repository is running or queued (one behind a skipped turn included), nor its stat record. */
  idle(): Promise<void> {
    return this.queue.then(() => this.recording);
  }

  /** Removes this process's index (at exit). */
  dispose(): void {
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.dropIndex();
  }

  /** The repository folder as the file system knows it: a folder put in its place is another. */
  private repositoryIdentity(): string {
    const stat = fs.statSync(this.gitDir, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.birthtimeNs}`;
  }

  private dropIndex(): void {
    this.indexTree = null;
    this.diskRecord = null;
    this.indexEpoch++;
    fs.rmSync(this.ownIndex, { force: true });
  }

  private async snapshotNow(timeoutMs: number): Promise<Snapshot> {
    try {
      return await this.snapshotInto(timeoutMs);
    } catch (error) {
      // A repository git no longer recognises (its HEAD or objects gone or garbled): set aside whole, never
      // deleted (its objects may still be read by hand), and a fresh one started, so later turns are recorded.
      if (!isDamagedRepository(error)) throw error;
      const aside = this.setAside();
      const snapshot = await this.snapshotInto(timeoutMs);
      return {
        ...snapshot,
        repaired: `the checkpoint store of ${this.options.workTree} was damaged; set aside as ${aside} and started afresh (earlier turns of this folder can no longer be undone)`,
      };
    }
  }

  /** Moves the damaged repository and the indexes that describe it out of the way; returns where it went. */
  private setAside(): string {
    const aside = `${this.gitDir}.damaged-${new Date().toISOString().replace(/[:.]/g, "")}-${process.pid}`;
    try {
      fs.renameSync(this.gitDir, aside);
    } catch (error) {
      // Another conversation's process set it aside first.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    this.dropIndex();
    fs.rmSync(path.join(this.options.home, SHARED_INDEX), { force: true });
    return aside;
  }

  private async snapshotInto(timeoutMs: number): Promise<Snapshot> {
    await this.ensureRepository(timeoutMs);
    this.seedIndex();
    try {
      return await this.stage(timeoutMs);
    } catch (error) {
      // A damaged index (or one naming objects gone from the store) is only a cache: start it afresh once.
      if (!(error instanceof GitError) || error.message.includes("took longer")) throw error;
      this.dropIndex();
      return this.stage(timeoutMs);
    }
  }

  /** Brings the index up to the work tree (files over the cap left out) and writes it as a tree. */
  private async stage(timeoutMs: number): Promise<Snapshot> {
    const call = this.call(timeoutMs);
    const listed = await runGit(["ls-files", "-z", "-t", "-m", "-o", "-d", "--exclude-standard"], call);
    const candidates = new Map<string, boolean>(); // path → tracked
    const unnamed: Buffer[] = []; // names that are not UTF-8, as listed (tag included)
    for (const bytes of nulRecordBytes(listed.stdout)) {
      const record = utf8OrNull(bytes);
      if (record === null) unnamed.push(bytes);
      else candidates.set(record.slice(2), !record.startsWith("?"));
    }
    // Every path the store hands on is text (records, diffs, restores): such a name is left out, and said why.
    const notUtf8 = unnamed.map((bytes): SkippedFile => ({ path: escapedName(bytes.subarray(2)), reason: NOT_UTF8_REASON }));
    const unnamedTracked = unnamed.filter((bytes) => bytes[0] !== 0x3f /* "?": untracked */);
    const skipped = [...(await this.oversized(candidates)), ...notUtf8];
    // Nothing for the index to take (no path listed, or only files over the cap that it does not hold): it is as
    // it was written, and so is its tree. `ls-files` finds changes by the index's stat data, re-reading a file
    // whose time is too close to the index's own to tell ("racily clean"), which is what every snapshot trusts.
    const untrackedBig = skipped.filter((file) => candidates.get(file.path) === false).length;
    const nothingToStage = untrackedBig === candidates.size && unnamedTracked.length === 0;
    if (this.indexTree !== null && nothingToStage && this.indexTreeRepo === this.repositoryIdentity()) {
      return { tree: this.indexTree, skipped, unchanged: true };
    }
    this.indexTree = null;
    await this.dropFromIndex(unnamedTracked, call);
    if (candidates.size > 0) {
      const trackedBig = skipped.filter((file) => candidates.get(file.path) === true).map((file) => `${file.path}\0`);
      if (trackedBig.length > 0) await runGit(["update-index", "-z", "--force-remove", "--stdin"], { ...call, input: trackedBig.join("") });
      const big = skipped.length - notUtf8.length;
      if (big < candidates.size) skipped.push(...(await this.update(candidates, skipped, unnamed, call)));
    }
    const tree = (await runGit(["write-tree"], call)).stdout.toString("utf8").trim();
    this.indexTree = tree;
    this.indexTreeRepo = this.repositoryIdentity();
    this.shareIndex();
    return { tree, skipped };
  }

  /**
   * Stages exactly the paths `ls-files` found (no second directory scan: at 100,000 files the scan is most of
   * the cost). A path git will not take that way (a file it cannot read, an odd nested repository) makes it
   * fall back to `add -A`, which scans again but leaves such a file out and says why.
   */
  private async update(candidates: Map<string, boolean>, skipped: SkippedFile[], unnamed: Buffer[], call: GitCall): Promise<SkippedFile[]> {
    const big = new Set(skipped.map((file) => file.path));
    // A nested repository is listed as "dir/"; git takes it as a gitlink by its name without the slash.
    const paths = [...candidates.keys()].filter((file) => !big.has(file)).map((file) => `${file.replace(/\/$/, "")}\0`);
    try {
      await runGit(["update-index", "-z", "--add", "--remove", "--stdin"], { ...call, input: paths.join("") });
      return [];
    } catch (error) {
      if (!(error instanceof GitError) || error.message.includes("took longer")) throw error;
      return this.addAll(skipped, unnamed, call);
    }
  }

  /** `git add -A`, with the files over the cap and the names not in UTF-8 excluded through an excludes file of this call's own. */
  private async addAll(skipped: SkippedFile[], unnamed: Buffer[], call: GitCall): Promise<SkippedFile[]> {
    const args = ["add", "-A", "--ignore-errors"];
    let excludes: string | null = null;
    // Patterns as bytes: latin1 maps each byte to one character and back, so a name not in UTF-8 is matched as it is.
    const patterns = [
      ...skipped.filter((file) => file.reason !== NOT_UTF8_REASON).map((file) => Buffer.from(`${ignorePattern(file.path)}\n`, "utf8")),
      ...unnamed.map((bytes) => Buffer.from(`${ignorePattern(bytes.subarray(2).toString("latin1"))}\n`, "latin1")),
    ];
    if (patterns.length > 0) {
      excludes = `${this.ownIndex}.exclude`;
      fs.writeFileSync(excludes, Buffer.concat(patterns), { mode: 0o600 });
      args.unshift("-c", `core.excludesFile=${excludes}`);
    }
    try {
      // A file it cannot read (permissions, a lock on Windows) is left out, and said why.
      const { stderr } = await runGit(args, { ...call, alsoSuccess: [1] });
      return [...stderr.matchAll(/unable to index file '(.+)'/g)].map((match) => ({ path: match[1]!, reason: "unreadable" }));
    } finally {
      if (excludes !== null) fs.rmSync(excludes, { force: true });
    }
  }

  /** Takes paths the index holds out of it (names not in UTF-8, as ls-files listed them: a tag, a space, the name). */
  private async dropFromIndex(listed: Buffer[], call: GitCall): Promise<void> {
    if (listed.length === 0) return;
    const input = Buffer.concat(listed.flatMap((bytes) => [bytes.subarray(2), Buffer.from([0])]));
    await runGit(["update-index", "-z", "--force-remove", "--stdin"], { ...call, input });
  }

  /** The candidates that are regular files over the size cap. */
  private async oversized(candidates: Map<string, boolean>): Promise<SkippedFile[]> {
    const skipped: SkippedFile[] = [];
    const paths = [...candidates.keys()];
    const BATCH = 256;
    for (let i = 0; i < paths.length; i += BATCH) {
      const batch = paths.slice(i, i + BATCH);
      const stats = await Promise.all(batch.map((file) => fs.promises.lstat(path.join(this.options.workTree, file)).catch(() => null)));
      stats.forEach((stat, j) => {
        if (stat?.isFile() && stat.size > this.options.maxFileBytes) {
          skipped.push({ path: batch[j]!, reason: `${stat.size} bytes, over the ${this.options.maxFileBytes}-byte cap` });
        }
      });
    }
    return skipped;
  }

  /** Creates the repository when it is missing (first use, or the store was deleted): made aside, then renamed in whole, so two processes never half-make it. */
  private async ensureRepository(timeoutMs: number): Promise<void> {
    fs.mkdirSync(path.join(this.options.home, INDEXES), { recursive: true, mode: 0o700 });
    if (fs.existsSync(path.join(this.gitDir, "HEAD"))) return;
    const aside = `${this.gitDir}.new-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    const call: GitCall = { gitDir: aside, timeoutMs };
    try {
      fs.mkdirSync(aside, { mode: 0o700 });
      await runGit(["init", "-q", "--bare", "--template="], call);
      await runGit(["config", "core.bare", "false"], call);
      fs.mkdirSync(path.join(aside, "info"), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(aside, "info", "attributes"), ATTRIBUTES, { mode: 0o600 });
      fs.writeFileSync(path.join(aside, "info", "exclude"), "/.git\n", { mode: 0o600 });
      fs.renameSync(aside, this.gitDir);
    } catch (error) {
      // Another process made it first: use theirs.
      if (!fs.existsSync(path.join(this.gitDir, "HEAD"))) throw error;
    } finally {
      fs.rmSync(aside, { recursive: true, force: true });
    }
  }

  /** The first snapshot of this process starts from the index the last one left (warm: unchanged files are not read again). */
  private seedIndex(): void {
    if (this.seeded) return;
    this.seeded = true;
    try {
      fs.copyFileSync(path.join(this.options.home, SHARED_INDEX), this.ownIndex);
    } catch {
      // none yet: the first snapshot reads every file
    }
  }

  /**
   * Leaves this index for the next process to start from (replaced whole, never half-written). A hard link,
   * not a copy (at 100,000 files the index is megabytes): git replaces its index by renaming a new file over
   * it, so the linked one stays as written. Copied where links are refused (some filesystems).
   */
  private shareIndex(): void {
    const shared = path.join(this.options.home, SHARED_INDEX);
    const temporary = `${shared}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
    try {
      try {
        fs.linkSync(this.ownIndex, temporary);
      } catch {
        fs.copyFileSync(this.ownIndex, temporary);
      }
      fs.renameSync(temporary, shared);
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  }

  private readLastSnapshotMs(): number | null {
    try {
      const ms = Number(fs.readFileSync(path.join(this.options.home, LAST_SNAPSHOT_MS), "utf8"));
      return Number.isFinite(ms) && ms >= 0 ? ms : null;
    } catch {
      return null;
    }
  }

  private recordSnapshotMs(ms: number): void {
    this.lastSnapshotMs = ms;
    try {
      fs.writeFileSync(path.join(this.options.home, LAST_SNAPSHOT_MS), `${ms}\n`, { mode: 0o600 });
    } catch {
      // only a hint for the next process
    }
  }

  private call(timeoutMs: number): GitCall {
    return { gitDir: this.gitDir, workTree: this.options.workTree, indexFile: this.ownIndex, timeoutMs };
  }
}

/** Whether git failed because the shadow repository itself is unusable (not a time limit, not a file of the project). */
export function isDamagedRepository(error: unknown): boolean {
  return (
    error instanceof GitError &&
    /not a git repository|bad object|not a tree object|unable to read tree|missing object|is not in the checkpoint store|object file .* is empty|loose object .* is corrupt/i.test(
      error.message,
    )
  );
}

/** Why a file whose name is not UTF-8 is not stored, and what to do. */
export const NOT_UTF8_REASON = "its name is not valid UTF-8, so it is not stored (bytes that are not shown as \\xHH); rename it to have it recorded";

/** A name not in UTF-8 as text: its valid parts as they are, each other byte as \xHH (for the user to find it). */
function escapedName(bytes: Buffer): string {
  let text = "";
  for (let at = 0; at < bytes.length;) {
    const length = utf8Length(bytes, at);
    const part = length > 0 ? utf8OrNull(bytes.subarray(at, at + length)) : null;
    if (part !== null) {
      text += part;
      at += length;
    } else {
      text += `\\x${bytes[at]!.toString(16).toUpperCase().padStart(2, "0")}`;
      at += 1;
    }
  }
  return text;
}

/** How many bytes the UTF-8 sequence starting at `at` claims (0 for a byte that cannot start one). */
function utf8Length(bytes: Buffer, at: number): number {
  const lead = bytes[at]!;
  const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
  return at + length <= bytes.length ? length : 0;
}

/** A .gitignore line matching exactly `file` (from the work tree's top). */
function ignorePattern(file: string): string {
  return `/${file.replace(/[\\*?[\]!# ]/g, (character) => `\\${character}`)}`;
}
