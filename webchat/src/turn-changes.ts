// After a turn of the built-in chat ends: the files it changed (or why they
// could not be recorded), from the
// checkpoint record the conductor writes once its after-turn snapshot is in
// (docs/checkpoints.md), so the page can offer Review and Undo turn. The record
// is finished after the answer has gone back, so this waits for it (a watcher
// on the project's records, at most WAIT_MS). Nothing when checkpoints are off
// or the agent is not behind our conductor: no record comes. A turn shown
// is then followed until it is undone (VS Code's Undo turn or Rewind, the
// command line's undo: the store marks its record), so the page stops
// offering what can no longer apply.

import * as fs from "node:fs";
import { CHECKPOINT_ENV, CheckpointStore, DEFAULT_SETTINGS, checkpointsDirectory, type TurnRecord } from "../../checkpoints/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import type { TranscriptEvent } from "../page/protocol.js";

/** How long a finished turn's record is waited for (the after-turn snapshot's own limit is longer; such a turn shows nothing). */
const WAIT_MS = 30_000;
/** The paths a page is sent (the count says how many there are). */
const SHOWN_FILES = 20;

export type TurnChangesEvent = Extract<TranscriptEvent, { kind: "turnChanges" }>;
export type TurnUndoneEvent = Extract<TranscriptEvent, { kind: "turnUndone" }>;

export class TurnChanges {
  private store: Promise<CheckpointStore | null> | undefined;
  /** The turns shown and not undone yet, each with what to call once it is. */
  private readonly followed = new Map<string, (event: TurnUndoneEvent) => void>();
  /** Watches the project's records while a turn is followed. */
  private undoWatcher: fs.FSWatcher | undefined;
  private closed = false;

  constructor(
    private readonly projectDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether the conductor records turns here (its hook runs when the editor-state file is set, and checkpoints are on). */
  get recorded(): boolean {
    const off = this.env[CHECKPOINT_ENV.off];
    return Boolean(this.env[STATE_FILE_ENV]) && off !== "0" && off !== "off";
  }

  /**
   * Each event the conversation records: a turn's changes shown are followed until its record says it was
   * undone (then `undone` is called, at once if it says so already); a turn the transcript already says
   * was undone is not followed again (a kept conversation reopened).
   */
  track(event: TranscriptEvent, undone: (event: TurnUndoneEvent) => void): void {
    if (event.kind === "turnChanges" && event.notRecorded === undefined) this.follow(event.turn, undone);
    if (event.kind === "turnUndone") this.followed.delete(event.turn);
  }

  private follow(turn: string, undone: (event: TurnUndoneEvent) => void): void {
    if (!this.recorded || this.closed) return;
    this.followed.set(turn, undone);
    void this.opened()
      .then((store) => {
        if (store === null || this.closed) return;
        this.undoWatcher ??= this.watch(store.turnsFolder(this.projectDir), () => this.checkUndone(store));
        this.checkUndone(store);
      })
      .catch((error: Error) => this.log(`an undone turn is not shown as undone: ${error.message}`));
  }

  /** The conversation ended: nothing is followed any more. */
  close(): void {
    this.closed = true;
    this.followed.clear();
    this.undoWatcher?.close();
    this.undoWatcher = undefined;
  }

  private checkUndone(store: CheckpointStore): void {
    if (this.followed.size === 0) return;
    for (const record of store.list(this.projectDir).records) {
      const undone = record.undoneAt === undefined ? undefined : this.followed.get(record.id);
      if (!undone) continue;
      this.followed.delete(record.id);
      undone({ kind: "turnUndone", turn: record.id });
    }
    if (this.followed.size > 0) return;
    this.undoWatcher?.close(); // a later turn shown starts another
    this.undoWatcher = undefined;
  }

  private opened(): Promise<CheckpointStore | null> {
    return (this.store ??= CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: checkpointsDirectory(this.env), log: this.log }));
  }

  /** A watcher on `folder` calling `changed`, or none on a filesystem that has none (then only the checks at follow time). */
  private watch(folder: string, changed: () => void): fs.FSWatcher | undefined {
    try {
      const watcher = fs.watch(folder, changed);
      watcher.on("error", () => {});
      return watcher;
    } catch {
      return undefined;
    }
  }

  /** Calls `changed` once the record of `sessionId`'s turn begun at `since` (ms) is finished, if that turn changed files. */
  async afterTurn(sessionId: string, since: number, changed: (event: TurnChangesEvent) => void): Promise<void> {
    if (!this.recorded) return;
    try {
      const store = await this.opened();
      if (store === null) return;
      const record = await this.finished(store, sessionId, since);
      const event = record && changesOf(store.list(this.projectDir).project, record);
      if (event) changed(event);
    } catch (error) {
      this.log(`the turn's changed files are not shown: ${(error as Error).message}`);
    }
  }

  /** The turn's record once it is no longer open, or null (none within WAIT_MS). */
  private finished(store: CheckpointStore, sessionId: string, since: number): Promise<TurnRecord | null> {
    const folder = store.turnsFolder(this.projectDir);
    return new Promise((resolve) => {
      let watcher: fs.FSWatcher | undefined;
      const done = (record: TurnRecord | null) => {
        watcher?.close();
        clearTimeout(timer);
        resolve(record);
      };
      const check = () => {
        const record = store
          .list(this.projectDir)
          .records.filter((candidate) => candidate.sessionId === sessionId && Date.parse(candidate.startedAt) >= since)
          .at(-1);
        if (record !== undefined && record.state !== "open") done(record);
      };
      const timer = setTimeout(() => done(null), WAIT_MS);
      watcher = this.watch(folder, check); // none on some filesystems: the check below and the timeout only
      check();
    });
  }
}

function changesOf(project: string, record: TurnRecord): TurnChangesEvent | null {
  // A turn that could not be recorded (a project too big for the snapshot's time budget, a
  // damaged store) says so, so the user knows Review and Undo are not there for it.
  if (record.state === "skipped" || record.state === "failed") {
    const notRecorded = record.notes.map((note) => note.replace(/^not recorded: /, "")).join("; ") || record.state;
    return { kind: "turnChanges", project, turn: record.id, count: 0, files: [], notRecorded };
  }
  if (record.state !== "done") return null;
  const files = record.roots.flatMap((root, index) => root.files.map((file) => (index === 0 ? file.path : `${root.dir}/${file.path}`)));
  if (files.length === 0) return null;
  return { kind: "turnChanges", project, turn: record.id, count: files.length, files: files.slice(0, SHOWN_FILES) };
}
