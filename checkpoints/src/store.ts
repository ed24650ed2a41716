// The checkpoint store: one folder per project in the private state
// directory (0700), holding the shadow repository of each directory a turn
// touched and the turn records (0600). `beginTurn` snapshots a session's
// directories before its prompt goes on, `finish` after its answer came back;
// `list`, `diff` and `restore` read what was recorded (the CLI, VS Code).

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gitVersion } from "./git.js";
import { restorePaths, whyUnwritable, type RestoreOutcome } from "./restore.js";
import type { CheckpointSettings } from "./settings.js";
import { ShadowRepo, isDamagedRepository, type SkippedFile, type Snapshot, type SnapshotOptions } from "./shadow-repo.js";
import {
  PROMPT_CHARS,
  RECORD_VERSION,
  isRelativePath,
  isTurnId,
  newTurnId,
  readRecord,
  readRecords,
  writeRecord,
  type TurnRecord,
  type TurnRoot,
} from "./turn-record.js";

/** The note on a turn whose prompt never got its answer. */
export const UNANSWERED_NOTE = "the prompt got no answer before the conversation ended: the after-turn snapshot was taken then";

export class CheckpointError extends Error {
  override name = "CheckpointError";
}

/** A turn being recorded: `ready` settles when the prompt may go on; `finish` once its answer passed back. */
export interface TurnInProgress {
  readonly id: string;
  readonly ready: Promise<void>;
  finish(note?: string): Promise<void>;
}

export interface TurnRequest {
  sessionId: string;
  /** The prompt's text (cut to PROMPT_CHARS here). */
  prompt: string;
  /** The session's `cwd` first, then its additional directories. */
  dirs: readonly string[];
}

export interface ProjectTurns {
  project: string;
  records: TurnRecord[];
  damaged: string[];
}

export interface RestoreReport extends RestoreOutcome {
  turn: TurnRecord;
  /** Files never stored (over the size cap, a name not in UTF-8), so never written or removed, and why. */
  skipped: SkippedFile[];
}

export class CheckpointStore {
  private readonly repos = new Map<string, ShadowRepo>();
  /** Turns whose prompt has not been answered yet. */
  private readonly unanswered = new Set<TurnInProgress>();
  /** Directories known to be too big to snapshot within the budget (see isTooBig). */
  private readonly tooBig = new Set<ShadowRepo>();
  /** Turns whose after-turn snapshot is being taken. */
  private readonly finishing = new Set<Promise<void>>();

  private constructor(private readonly settings: CheckpointSettings) {}

  /** The store, or null (after one log line) when git is not on PATH. */
  static async create(settings: CheckpointSettings): Promise<CheckpointStore | null> {
    const version = await gitVersion();
    if (version === null) {
      settings.log("checkpoints are off: no `git` on PATH (install git to have each turn's file changes recorded and undoable)");
      return null;
    }
    return new CheckpointStore(settings);
  }

  /**
   * Snapshots `dirs` ahead of their first prompt (a session opened), in the background: that prompt's own
   * snapshot then only has to find that nothing changed since (as the one after a turn does for the next).
   * Nothing is recorded; what fails here fails again, and is reported, at the prompt.
   */
  prepare(dirs: readonly string[]): void {
    for (const dir of dirs) {
      let repo: ShadowRepo;
      try {
        repo = this.repo(realProject(dir));
      } catch {
        continue;
      }
      if (repo.pending === 0) repo.snapshot(this.settings.hardLimitMs).catch(() => {});
    }
  }

  /** Snapshots `request.dirs` now; the prompt waits for `ready`, at most the budget. */
  beginTurn(request: TurnRequest): TurnInProgress {
    const id = newTurnId();
    const record: TurnRecord = {
      version: RECORD_VERSION,
      id,
      sessionId: request.sessionId,
      prompt: request.prompt.length > PROMPT_CHARS ? `${request.prompt.slice(0, PROMPT_CHARS - 1)}…` : request.prompt,
      startedAt: new Date().toISOString(),
      endedAt: null,
      state: "open",
      roots: [],
      notes: [],
    };
    const project = this.projectOf(request.dirs[0] ?? "", record);
    const roots = project === null ? [] : this.rootsOf(request.dirs, record);
    const tooBig = roots.find(({ repo }) => this.isTooBig(repo));
    const ready = (
      tooBig
        ? this.skipTooBig(tooBig.repo, roots)
        : withinBudget(roots.length === 0 ? Promise.resolve(null) : this.snapshotAll(roots, { beforeTurn: true }), this.settings.budgetMs)
    ).then((snapshots) => this.started(project, record, roots, snapshots));
    let finished: Promise<void> | null = null;
    const turn: TurnInProgress = {
      id,
      ready: ready.then(() => undefined),
      finish: (note?: string): Promise<void> => {
        this.unanswered.delete(turn);
        if (finished === null) {
          const finishing = ready
            .then(async (recorded) => {
              if (note !== undefined) record.notes.push(note);
              if (recorded) await this.finished(project!, record, roots);
            })
            .catch((error: Error) => this.settings.log(`turn ${id}: ${error.message}`))
            .finally(() => this.finishing.delete(finishing));
          this.finishing.add(finishing);
          finished = finishing;
        }
        return finished;
      },
    };
    this.unanswered.add(turn);
    return turn;
  }

  /** The turns recorded for `dir`'s project, oldest first. */
  list(dir: string): ProjectTurns {
    const project = this.projectFolder(realProject(dir));
    const { records, damaged } = readRecords(path.join(project, "turns"));
    return { project: realProject(dir), records, damaged };
  }

  /** The folder `dir`'s project keeps its turn records in (a watcher waits there for a turn to be finished). */
  turnsFolder(dir: string): string {
    const folder = path.join(this.projectFolder(realProject(dir)), "turns");
    privateDirectory(folder);
    return folder;
  }

  /** The unified diff of one turn: its before and after trees, per directory. */
  async diff(dir: string, turnId: string): Promise<string> {
    const turn = this.turn(dir, turnId);
    return this.fromSnapshots(turn, () => this.diffOf(turn));
  }

  private async diffOf(turn: TurnRecord): Promise<string> {
    const parts: string[] = [];
    for (const root of turn.roots) {
      if (root.before === null || root.after === null) continue;
      const diff = await this.repo(root.dir).diff(root.before, root.after, this.settings.hardLimitMs);
      if (turn.roots.length > 1 && diff.length > 0) parts.push(`# ${root.dir}\n`);
      parts.push(diff.toString("utf8"));
    }
    return parts.join("");
  }

  /**
   * Puts the turn's files back as they were before it; files changed since are conflicts, left alone,
   * and so are those `keep` gives a reason for (by absolute path: the editor's unsaved ones).
   */
  async restore(dir: string, turnId: string, keep: (file: string) => string | null = () => null): Promise<RestoreReport> {
    const turn = this.turn(dir, turnId);
    if (turn.state !== "done") throw new CheckpointError(`turn ${turn.id} cannot be undone: ${describeState(turn)}`);
    const report = await this.fromSnapshots(turn, () => this.restoreTurn(turn, keep));
    // The record says so: a chat showing the turn stops offering its Undo (webchat/src/turn-changes.ts watches).
    this.save(this.projectFolder(realProject(dir)), { ...turn, undoneAt: new Date().toISOString() });
    return report;
  }

  private async restoreTurn(turn: TurnRecord, keep: (file: string) => string | null): Promise<RestoreReport> {
    const report: RestoreReport = { turn, restored: [], conflicts: [], skipped: [] };
    // Every directory's paths are checked before any file is written: a store whose trees name one no undo may
    // write was changed by something else, and none of it is trusted.
    const plans: Array<{ root: TurnRoot; repo: ShadowRepo; paths: string[] }> = [];
    for (const root of turn.roots) {
      if (root.before === null || root.after === null) continue;
      refuseUnwritableRoot(turn, root);
      const repo = this.repo(root.dir);
      const paths = (await repo.changes(root.before, root.after, false, this.settings.hardLimitMs)).map((file) => file.path);
      refuseUnwritablePaths(turn, root, paths, repo);
      // A file the turn's record lists as skipped was never stored on one side at least: never written or removed.
      const skipped = new Set(root.skipped.map((file) => file.path));
      plans.push({ root, repo, paths: paths.filter((file) => !skipped.has(file)) });
    }
    for (const { root, repo, paths } of plans) {
      const outcome = await restorePaths(repo, paths, root.before!, root.after!, this.settings.hardLimitMs, (file) => keep(path.join(root.dir, file)));
      const prefix = turn.roots.length > 1 && root !== turn.roots[0] ? `${root.dir}${path.sep}` : "";
      report.restored.push(...outcome.restored.map((file) => prefix + file));
      report.conflicts.push(...outcome.conflicts.map((conflict) => ({ ...conflict, path: prefix + conflict.path })));
      report.skipped.push(...root.skipped.map((file) => ({ ...file, path: prefix + file.path })));
    }
    return report;
  }

  /**
   * Rewinds `turnId`'s conversation to just after it: the same session's later turns that changed files (and are
   * not undone already) are undone, newest first, each with `restore`'s rules (a file changed since is a conflict, left alone).
   */
  async rewind(dir: string, turnId: string, keep: (file: string) => string | null = () => null): Promise<RestoreReport[]> {
    const turn = this.turn(dir, turnId);
    const later = this.list(dir)
      .records.filter((record) => record.sessionId === turn.sessionId && record.id > turn.id && record.state === "done" && record.undoneAt === undefined)
      .reverse();
    const reports: RestoreReport[] = [];
    for (const record of later) reports.push(await this.restore(dir, record.id, keep));
    return reports;
  }

  /**
   * A file of a turn as it was before the turn (`side` "before") or after it: its bytes, or null when it
   * did not exist then (or was over the size cap). For VS Code's review, whose left side reads this.
   */
  async fileAt(dir: string, turnId: string, rootDir: string, relative: string, side: "before" | "after"): Promise<Buffer | null> {
    return (await this.filesAt(dir, turnId, rootDir, [relative], side)).get(relative) ?? null;
  }

  /** `fileAt` for many files of one directory at once: two git calls whatever their number (a review of 50 files). */
  async filesAt(dir: string, turnId: string, rootDir: string, relatives: readonly string[], side: "before" | "after"): Promise<Map<string, Buffer | null>> {
    const turn = this.turn(dir, turnId);
    const root = turn.roots.find((candidate) => candidate.dir === rootDir);
    const tree = side === "before" ? root?.before : root?.after;
    const wanted = relatives.filter(isRelativePath);
    const found = new Map<string, Buffer | null>(relatives.map((relative) => [relative, null]));
    if (!root || !tree || wanted.length === 0) return found;
    const repo = this.repo(root.dir);
    return this.fromSnapshots(turn, async () => {
      const entries = [...(await repo.entries(tree, wanted, this.settings.hardLimitMs))].filter(([, entry]) => entry.mode !== "160000");
      const blobs = await repo.blobs([...new Set(entries.map(([, entry]) => entry.object))], this.settings.hardLimitMs);
      for (const [relative, entry] of entries) found.set(relative, blobs.get(entry.object) ?? null);
      return found;
    });
  }

  /** Runs `read` on a turn's snapshots; their trees gone from the store (damaged, set aside, deleted) is said plainly. */
  private async fromSnapshots<T>(turn: TurnRecord, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!isDamagedRepository(error)) throw error;
      throw new CheckpointError(
        `turn ${turn.id} cannot be read: its snapshots are no longer in the checkpoint store (damaged or deleted since; git said: ${(error as Error).message.trim()})`,
      );
    }
  }

  /** Settles once no snapshot is running or queued (a late one behind a skipped turn included): for benchmarks and tests. */
  async idle(): Promise<void> {
    await Promise.all([...this.finishing]);
    await Promise.all([...this.repos.values()].map((repo) => repo.idle()));
  }

  /** Finishes every turn still waiting for its answer (the conversation ended): its after-state is the project now. */
  async close(): Promise<void> {
    await Promise.all([...this.unanswered].map((turn) => turn.finish(UNANSWERED_NOTE)));
    await Promise.all([...this.finishing]);
    // A snapshot still running behind a skipped turn uses this process's index: it ends before the index goes.
    await Promise.all([...this.repos.values()].map((repo) => repo.idle()));
    for (const repo of this.repos.values()) repo.dispose();
  }

  private turn(dir: string, turnId: string): TurnRecord {
    if (!isTurnId(turnId)) throw new CheckpointError(`'${turnId}' is not a turn id (\`checkpoints list\` shows them)`);
    const project = realProject(dir);
    const file = path.join(this.projectFolder(project), "turns", `${turnId}.json`);
    if (!fs.existsSync(file)) throw new CheckpointError(`no turn ${turnId} recorded for ${project}`);
    const record = readRecord(file);
    if (record === null) throw new CheckpointError(`the record of turn ${turnId} is damaged (${file})`);
    return record;
  }

  /** The turn's project folder, created; null (noted in the record) when the directory cannot be a project. */
  private projectOf(dir: string, record: TurnRecord): string | null {
    try {
      const project = realProject(dir);
      const folder = this.projectFolder(project);
      privateDirectory(path.join(folder, "turns"));
      return folder;
    } catch (error) {
      record.notes.push(`not recorded: ${(error as Error).message}`);
      return null;
    }
  }

  private rootsOf(dirs: readonly string[], record: TurnRecord): Array<{ dir: string; repo: ShadowRepo }> {
    const roots: Array<{ dir: string; repo: ShadowRepo }> = [];
    for (const dir of dirs) {
      try {
        const real = realProject(dir);
        if (!roots.some((root) => root.dir === real)) roots.push({ dir: real, repo: this.repo(real) });
      } catch (error) {
        record.notes.push(`${dir} not recorded: ${(error as Error).message}`);
      }
    }
    return roots;
  }

  private repo(dir: string): ShadowRepo {
    let repo = this.repos.get(dir);
    if (repo === undefined) {
      const home = this.projectFolder(dir);
      privateDirectory(home);
      fs.writeFileSync(path.join(home, "project.json"), `${JSON.stringify({ dir })}\n`, { mode: 0o600 });
      repo = new ShadowRepo({ workTree: dir, home, maxFileBytes: this.settings.maxFileBytes });
      this.repos.set(dir, repo);
    }
    return repo;
  }

  private projectFolder(project: string): string {
    const key = crypto.createHash("sha256").update(project).digest("hex").slice(0, 24);
    privateDirectory(this.settings.directory);
    return path.join(this.settings.directory, "projects", key);
  }

  /**
   * A directory whose last snapshot took longer than the budget: the prompt does not wait at all (it would
   * wait the whole budget every turn). A snapshot still runs behind it when none is running, so the store
   * sees when the project has become small (or its index warm) enough again.
   */
  private skipTooBig(repo: ShadowRepo, roots: ReadonlyArray<{ repo: ShadowRepo }>): Promise<BudgetOutcome<Snapshot[] | null>> {
    if (repo.pending === 0) this.snapshotAll(roots).catch(() => {});
    return Promise.resolve({ kind: "late" });
  }

  /**
   * Whether prompts on `repo` go on without waiting. Past the budget once, a directory stays too big until a
   * snapshot takes under half the budget: near the budget, trying again would wait the whole budget on about
   * every other prompt.
   */
  private isTooBig(repo: ShadowRepo): boolean {
    // A snapshot already running longer than the budget (a cold index at 100,000 files): too big, whatever came before.
    if (repo.runningForMs() > this.settings.budgetMs) return true;
    const ms = repo.lastSnapshotMs;
    if (ms === null) return false;
    if (ms > this.settings.budgetMs) this.tooBig.add(repo);
    else if (ms <= this.settings.budgetMs / 2) this.tooBig.delete(repo);
    return this.tooBig.has(repo);
  }

  private snapshotAll(roots: ReadonlyArray<{ repo: ShadowRepo }>, options: SnapshotOptions = {}): Promise<Snapshot[]> {
    return Promise.all(roots.map(({ repo }) => repo.snapshot(this.settings.hardLimitMs, options)));
  }

  /** Writes the open record once the before-trees are in; false when the turn is not recorded (over budget, or failed). */
  private started(
    project: string | null,
    record: TurnRecord,
    roots: ReadonlyArray<{ dir: string; repo: ShadowRepo }>,
    outcome: BudgetOutcome<Snapshot[] | null>,
  ): boolean {
    if (project === null || roots.length === 0) return false;
    if (outcome.kind === "late") {
      record.state = "skipped";
      record.notes.push(`not recorded: the snapshot took longer than the ${this.settings.budgetMs} ms budget (a project this big is skipped)`);
      this.settings.log(`turn ${record.id} not recorded: ${roots[0]!.dir} took longer than ${this.settings.budgetMs} ms to snapshot`);
    } else if (outcome.kind === "failed") {
      record.state = "failed";
      record.notes.push(`not recorded: ${outcome.error.message}`);
      this.settings.log(`turn ${record.id} not recorded: ${outcome.error.message}`);
    } else {
      for (const snapshot of outcome.value!) {
        if (snapshot.repaired === undefined) continue;
        record.notes.push(snapshot.repaired);
        this.settings.log(`turn ${record.id}: ${snapshot.repaired}`);
      }
      record.roots = roots.map(({ dir }, index) => ({
        dir,
        before: outcome.value![index]!.tree,
        after: null,
        files: [],
        skipped: outcome.value![index]!.skipped,
      }));
    }
    this.save(project, record);
    return record.state === "open";
  }

  private async finished(project: string, record: TurnRecord, roots: ReadonlyArray<{ dir: string; repo: ShadowRepo }>): Promise<void> {
    try {
      const after = await this.snapshotAll(roots);
      for (const [index, root] of record.roots.entries()) await this.completeRoot(root, roots[index]!.repo, record.id, after[index]!);
      record.state = "done";
    } catch (error) {
      record.state = "failed";
      record.notes.push(`after-turn snapshot failed: ${(error as Error).message}`);
    }
    record.endedAt = new Date().toISOString();
    this.save(project, record);
    this.prune(project);
  }

  private async completeRoot(root: TurnRoot, repo: ShadowRepo, id: string, after: Snapshot): Promise<void> {
    root.after = after.tree;
    const skippedNow = new Set(after.skipped.map((file) => file.path));
    for (const file of after.skipped) if (!root.skipped.some((known) => known.path === file.path)) root.skipped.push(file);
    const skipped = new Set([...root.skipped.map((file) => file.path), ...skippedNow]);
    const changes = await repo.changes(root.before!, after.tree, true, this.settings.hardLimitMs);
    root.files = changes.filter((file) => !skipped.has(file.path) && !(file.from !== undefined && skipped.has(file.from)));
    await repo.keep(
      [
        { ref: `refs/turns/${id}/before`, tree: root.before! },
        { ref: `refs/turns/${id}/after`, tree: after.tree },
      ],
      this.settings.hardLimitMs,
    );
  }

  private save(project: string, record: TurnRecord): void {
    try {
      writeRecord(path.join(project, "turns"), record);
    } catch (error) {
      this.settings.log(`turn ${record.id}: its record could not be written: ${(error as Error).message}`);
    }
  }

  /** Keeps the newest `maxTurns` records of the project; the others go, with their refs. */
  private prune(project: string): void {
    const folder = path.join(project, "turns");
    const { records } = readRecords(folder);
    const excess = records.slice(0, Math.max(0, records.length - this.settings.maxTurns));
    for (const record of excess) {
      fs.rmSync(path.join(folder, `${record.id}.json`), { force: true });
      for (const root of record.roots) {
        if (!this.repos.has(root.dir) && !fs.existsSync(root.dir)) continue;
        this.repo(root.dir)
          .forget(`refs/turns/${record.id}/`, this.settings.hardLimitMs)
          .catch((error: Error) => this.settings.log(`pruning turn ${record.id}: ${error.message}`));
      }
    }
  }
}

/** Throws when `root` names a folder no turn is ever recorded for (the filesystem root, the home folder, a path through a symlink). */
function refuseUnwritableRoot(turn: TurnRecord, root: TurnRoot): void {
  let why: string | null = null;
  try {
    if (realProject(root.dir) !== root.dir) why = "it is reached through a symlink";
  } catch (error) {
    why = (error as Error).message;
  }
  if (why !== null)
    throw new CheckpointError(`turn ${turn.id} was not undone, and nothing was written: it names the folder ${root.dir}, which no undo writes in (${why})`);
}

/** Throws, naming the first path of `paths` no undo may write, when there is one (see whyUnwritable). */
function refuseUnwritablePaths(turn: TurnRecord, root: TurnRoot, paths: readonly string[], repo: ShadowRepo): void {
  for (const file of paths) {
    const why = whyUnwritable(file);
    if (why === null) continue;
    throw new CheckpointError(
      `turn ${turn.id} was not undone, and nothing was written: its snapshots of ${root.dir} name ${JSON.stringify(file.slice(0, 200))} (${why}), ` +
        `which no undo writes. Symposium never records such a path: the checkpoint store was changed by something else. ` +
        `Set ${path.dirname(repo.gitDir)} aside (or delete it) and later turns are recorded afresh.`,
    );
  }
}

type BudgetOutcome<T> = { kind: "ok"; value: T } | { kind: "late" } | { kind: "failed"; error: Error };

/** What `work` gave within `ms`; it goes on after (a late snapshot still warms the index for the next one). */
function withinBudget<T>(work: Promise<T>, ms: number): Promise<BudgetOutcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<BudgetOutcome<T>>((resolve) => (timer = setTimeout(() => resolve({ kind: "late" }), ms)));
  const done = work.then(
    (value): BudgetOutcome<T> => ({ kind: "ok", value }),
    (error: Error): BudgetOutcome<T> => ({ kind: "failed", error }),
  );
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

/** A directory's real path, refused when it cannot be a project (missing, the filesystem root, the home folder). */
export function realProject(dir: string): string {
  if (!path.isAbsolute(dir)) throw new CheckpointError(`${JSON.stringify(dir)} is not an absolute path`);
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    throw new CheckpointError(`${dir} does not exist`);
  }
  if (!fs.statSync(real).isDirectory()) throw new CheckpointError(`${dir} is not a folder`);
  if (path.dirname(real) === real) throw new CheckpointError(`${real} is a filesystem root, not a project`);
  if (real === safeRealpath(os.homedir())) throw new CheckpointError(`${real} is the home folder, not a project`);
  return real;
}

function safeRealpath(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Creates `dir` (0700) and tightens it if it was looser. */
function privateDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== "win32") {
    const stat = fs.statSync(dir);
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  }
}

export function describeState(turn: TurnRecord): string {
  switch (turn.state) {
    case "open":
      return "its prompt has not been answered yet (no after-turn snapshot)";
    case "done": {
      const changed = `${turn.roots.reduce((sum, root) => sum + root.files.length, 0)} files changed`;
      const notStored = turn.roots.reduce((sum, root) => sum + root.skipped.length, 0);
      if (notStored === 0) return changed;
      return `${changed}; ${notStored} not stored (too big, or a name not in UTF-8), which undo leaves as ${notStored === 1 ? "it is" : "they are"}`;
    }
    default:
      return turn.notes.join("; ") || turn.state;
  }
}
