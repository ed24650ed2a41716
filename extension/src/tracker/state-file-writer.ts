// The writing half of the editor-state tracker (docs/state-file.md), without
// VS Code: given a way to read the editor's facts, it builds the state file,
// debounced (100 ms, trailing), skipped when nothing changed, atomic
// (write-file-atomic, 0600) and synchronous so a write can never land after
// the file was removed. `refresh` touches the file's time so an idle window's
// context never goes stale. On Windows a reader or an antivirus scanner that
// has the file open makes the rename fail for a moment (EPERM, EBUSY): that
// write is tried again a few times, soon, without blocking the window. Any
// other failed write is logged once and retried on the next change. Kept free
// of `vscode` so the benchmarks (bench/) drive the very code the tracker runs.

import * as fs from "node:fs";
import debounce from "lodash.debounce";
import writeFileAtomic from "write-file-atomic";
import {
  buildStateFile,
  serializeStateFile,
  type EditorFacts,
  type EditorToolsState,
  type StateFile,
  type UnsavedDocumentState,
} from "../../../editor-state/src/index.js";
import { privateStateDirectory } from "./state-file-location.js";

const DEBOUNCE_MS = 100;
/** After a write failed because the file was held open: wait this long, doubling, this many times. */
export const BUSY_RETRY = { firstDelayMs: 20, attempts: 5 } as const;
const BUSY_CODES = new Set(["EPERM", "EBUSY", "EACCES"]);

export interface StateFileWriterOptions {
  /** The editor the context is about, read when a write happens (null when none is open). */
  editorFacts(): EditorFacts | null;
  workspaceFolders(): string[];
  /** The window's unsaved files, their snapshots written first (unsaved-snapshots.ts); none when absent. */
  unsavedDocuments?(file: string): UnsavedDocumentState[];
  /** The editor's tools and the window's live channel (editor-tools-host.ts); absent: not written. */
  editorTools?(): EditorToolsState | undefined;
  log: { info(message: string): void; warn(message: string): void; error(message: string): void };
  /** Called after each write or refresh of the file. */
  written(): void;
  /** Writes the file atomically (write-file-atomic; replaced in tests). */
  writeFile?: (file: string, text: string) => void;
}

export class StateFileWriter {
  /** Where to write; undefined while context sharing is off. */
  path: string | undefined;
  private writtenKey: string | undefined;
  private current: StateFile | undefined;
  private failing = false;
  private busyRetry: { timer: NodeJS.Timeout; attempt: number } | undefined;
  private readonly debounced = debounce(() => this.writeNow(), DEBOUNCE_MS);

  constructor(private readonly options: StateFileWriterOptions) {}

  /** What was last written (undefined when nothing is). */
  get currentState(): StateFile | undefined {
    return this.current;
  }

  /** Something the file shows may have changed: write within 100 ms of the last such call. */
  schedule(): void {
    this.debounced();
  }

  flush(): void {
    this.debounced.flush();
  }

  /** Drops a pending write and forgets what was written (the file is being removed). */
  reset(): void {
    this.debounced.cancel();
    this.cancelBusyRetry();
    this.writtenKey = undefined;
    this.current = undefined;
  }

  /**
   * The file as a write now would make it, from the editor's facts (the unsaved snapshots are left out:
   * listing them writes them). Nothing is written: what the window shows follows the editor at once
   * while the file's write waits for the debounce.
   */
  preview(): StateFile {
    return buildStateFile({
      editor: this.options.editorFacts(),
      workspaceFolders: this.options.workspaceFolders(),
      editorTools: this.options.editorTools?.(),
      writerPid: process.pid,
      now: new Date(),
    });
  }

  /** Builds the file from the current facts and writes it if its content changed. */
  writeNow(): void {
    if (!this.path) return;
    try {
      const state = buildStateFile({
        editor: this.options.editorFacts(),
        workspaceFolders: this.options.workspaceFolders(),
        unsavedDocuments: this.options.unsavedDocuments?.(this.path),
        editorTools: this.options.editorTools?.(),
        writerPid: process.pid,
        now: new Date(),
      });
      const { key, text } = serializeStateFile(state);
      if (key === this.writtenKey) return;
      this.write(state, key, text);
    } catch (error) {
      this.failed(error);
    }
  }

  /** Keeps the file younger than the reader's limit while nothing changes. */
  refresh(): void {
    if (!this.path || this.writtenKey === undefined) return this.writeNow();
    try {
      const now = new Date();
      fs.utimesSync(this.path, now, now);
      this.options.written();
    } catch {
      // Removed under us (or never written): write it whole.
      this.writtenKey = undefined;
      this.writeNow();
    }
  }

  private write(state: StateFile, key: string, text: string): void {
    const log = this.options.log;
    if (this.failing) privateStateDirectory((message) => log.warn(message)); // the directory may have been removed
    const writeFile = this.options.writeFile ?? ((file, data) => writeFileAtomic.sync(file, data, { mode: 0o600, fsync: false }));
    try {
      writeFile(this.path!, text);
    } catch (error) {
      if (this.retryWhenBusy(error)) return;
      throw error;
    }
    this.cancelBusyRetry();
    this.writtenKey = key;
    this.current = state;
    if (this.failing) log.info(`editor state file written again: ${this.path}`);
    this.failing = false;
    this.options.written();
  }

  /** Schedules another try of a write the file's being held open refused; false when retries are used up (or it is another error). */
  private retryWhenBusy(error: unknown): boolean {
    const attempt = (this.busyRetry?.attempt ?? 0) + 1;
    if (!BUSY_CODES.has((error as NodeJS.ErrnoException).code ?? "") || attempt > BUSY_RETRY.attempts) {
      this.busyRetry = undefined;
      return false;
    }
    clearTimeout(this.busyRetry?.timer);
    const timer = setTimeout(() => this.writeNow(), BUSY_RETRY.firstDelayMs * 2 ** (attempt - 1));
    timer.unref();
    this.busyRetry = { timer, attempt };
    return true;
  }

  private cancelBusyRetry(): void {
    clearTimeout(this.busyRetry?.timer);
    this.busyRetry = undefined;
  }

  private failed(error: unknown): void {
    this.writtenKey = undefined; // retried on the next change or refresh
    if (this.failing) return;
    this.failing = true;
    this.options.log.error(`cannot write the editor state file ${this.path}: ${(error as Error).message} (retrying on the next change)`);
  }
}
