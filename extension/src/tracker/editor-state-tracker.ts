// Writes what the user is looking at to the state file (docs/state-file.md)
// that the editor-context proxy reads on every prompt; the panel passes the
// file's path to the chat it starts (Toad or the built-in one) as
// SYMPOSIUM_EDITOR_STATE_FILE (STATE_FILE_ENV).
//
// - Context is the last text editor the user was in while it is still open:
//   focus moving to a panel, terminal or output view keeps it; closing every
//   editor clears it.
// - Writing (debounced 100 ms, skipped when nothing changed, atomic, 0600) is
//   `StateFileWriter` (state-file-writer.ts); the file's time is touched every
//   10 s so an idle window's context never goes stale (the reader's limit is 30 s).
// - A failed write is logged once and retried on the next change; nothing
//   here throws into VS Code.
// - The window's unsaved files are snapshotted next to the file and listed in
//   it (unsaved-snapshots.ts), so the agent reads what the user sees.

import * as vscode from "vscode";
import type { EditorToolsState, StateFile } from "../../../editor-state/src/index.js";
import { onSettingChange, readConfig } from "../config.js";
import { editorFacts, isEditingPlace, isOpenInTab, unsavedDocumentFacts } from "./editor-facts.js";
import { claimStateFilePath, privateStateDirectory, removeStateFile, sweepEndedWindows, type StateFileMemory } from "./state-file-location.js";
import { StateFileWriter } from "./state-file-writer.js";
import { UnsavedSnapshots } from "./unsaved-snapshots.js";

/** Well within the reader's 30 s (MAX_STATE_AGE_MS). */
const REFRESH_MS = 10_000;

export class EditorStateTracker implements vscode.Disposable {
  /** This window's path, kept while the setting is toggled: a running chat keeps the one it was started with. */
  private claimedPath: string | undefined;
  private lastEditor: vscode.TextEditor | undefined;
  private readonly pathChanged = new vscode.EventEmitter<string | undefined>();
  private readonly stateWritten = new vscode.EventEmitter<void>();
  private readonly editorMoved = new vscode.EventEmitter<void>();
  private readonly writer: StateFileWriter;
  private readonly snapshots: UnsavedSnapshots;
  private readonly refreshTimer: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[] = [];
  private editorToolsState: EditorToolsState | undefined;

  /** Fires with the new path (undefined when context sharing is turned off). */
  readonly onDidChangeStateFilePath: vscode.Event<string | undefined> = this.pathChanged.event;
  /** Fires after each write or refresh of the file (and when it is removed). */
  readonly onDidWriteState: vscode.Event<void> = this.stateWritten.event;
  /** Fires at once when the user moves to another editor or selection (the file's write follows within 100 ms of the last). */
  readonly onDidMoveInEditor: vscode.Event<void> = this.editorMoved.event;

  constructor(
    /** Where this workspace remembers its recent state files (PersistentState). */
    private readonly memory: StateFileMemory,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.lastEditor = this.editingPlace(vscode.window.activeTextEditor);
    this.snapshots = new UnsavedSnapshots(log);
    this.writer = new StateFileWriter({
      editorFacts: () => {
        const editor = this.contextEditor();
        return editor ? editorFacts(editor) : null;
      },
      workspaceFolders: () => (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
      unsavedDocuments: (file) => this.snapshots.sync(file, unsavedDocumentFacts()),
      editorTools: () => this.editorToolsState,
      log,
      written: () => {
        if (this.writer.path) this.snapshots.removeObsolete(this.writer.path);
        this.stateWritten.fire();
      },
    });
    const changed = (): void => this.writer.schedule();
    const moved = (): void => {
      changed();
      this.editorMoved.fire();
    };
    // A save, revert or close changes which files have unsaved text, which an agent's write must not go over
    // (editor-state/src/agent-writes.ts): written at once rather than after the typing debounce.
    const changedNow = (): void => {
      this.writer.schedule();
      this.writer.flush();
    };
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.lastEditor = this.editingPlace(editor) ?? this.lastEditor;
        moved();
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => this.ifTracked(event.textEditor.document, moved)),
      // Any file's edit, save or revert may change the unsaved files listed.
      vscode.workspace.onDidChangeTextDocument((event) => this.ifFile(event.document, event.document.isDirty ? changed : changedNow)),
      vscode.workspace.onDidSaveTextDocument((document) => this.ifFile(document, changedNow)),
      vscode.workspace.onDidCloseTextDocument(changedNow),
      vscode.window.tabGroups.onDidChangeTabs(changed),
      vscode.languages.onDidChangeDiagnostics((event) => {
        const document = this.lastEditor?.document;
        if (document && event.uris.some((uri) => uri.toString() === document.uri.toString())) changed();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(changed),
      onSettingChange(["editorContext.enabled"], () => this.applySetting()),
    );
    this.refreshTimer = setInterval(() => this.writer.refresh(), REFRESH_MS);
    this.refreshTimer.unref?.();
    this.applySetting();
  }

  /** The file this window writes, or undefined when context sharing is off (or no private place exists). */
  get stateFilePath(): string | undefined {
    return this.writer.path;
  }

  /** What was last written (undefined when nothing is). */
  get currentState(): StateFile | undefined {
    return this.writer.currentState;
  }

  /** What the file will say once the pending write happens (undefined while sharing is off): see StateFileWriter.preview. */
  previewState(): StateFile | undefined {
    return this.writer.path ? this.writer.preview() : undefined;
  }

  /** The editor's tools and their live channel, as the file is to say (editor-tools-host.ts); written soon. */
  setEditorTools(state: EditorToolsState): void {
    this.editorToolsState = state;
    this.writer.schedule();
  }

  /** The editor the context is about: the last text editor the user was in, while it is open. */
  editor(): vscode.TextEditor | undefined {
    return this.contextEditor();
  }

  /** Writes a pending change now. */
  flush(): void {
    this.writer.flush();
  }

  dispose(): void {
    this.flush();
    clearInterval(this.refreshTimer);
    for (const subscription of this.subscriptions) subscription.dispose();
    // A closed window shares no context; a reloaded one writes the same path again.
    if (this.writer.path) this.removeFiles(this.writer.path);
    this.writer.path = undefined;
    this.pathChanged.dispose();
    this.stateWritten.dispose();
    this.editorMoved.dispose();
  }

  private applySetting(): void {
    const enabled = readConfig().editorContextEnabled;
    const writer = this.writer;
    if (enabled === (writer.path !== undefined)) return;
    if (enabled) {
      this.claimedPath ??= this.claimPath();
      writer.path = this.claimedPath;
      if (writer.path) this.log.info(`editor context on: writing ${writer.path}`);
      writer.writeNow();
    } else {
      writer.reset();
      this.removeFiles(writer.path!);
      this.log.info(`editor context off: removed ${writer.path}`);
      writer.path = undefined;
      this.stateWritten.fire();
    }
    this.pathChanged.fire(writer.path);
  }

  /** The state file first (then nothing lists the snapshots), then the snapshots. */
  private removeFiles(file: string): void {
    removeStateFile(file, (message) => this.log.warn(message));
    this.snapshots.removeAll(file);
  }

  private claimPath(): string | undefined {
    const warn = (message: string): void => this.log.warn(message);
    const dir = privateStateDirectory(warn);
    if (!dir) return undefined;
    sweepEndedWindows(dir, (message) => this.log.info(message));
    return claimStateFilePath(dir, this.memory, (message) => this.log.info(message));
  }

  private editingPlace(editor: vscode.TextEditor | undefined): vscode.TextEditor | undefined {
    return editor && isEditingPlace(editor) ? editor : undefined;
  }

  private ifTracked(document: vscode.TextDocument, then: () => void): void {
    if (document === this.lastEditor?.document) then();
  }

  private ifFile(document: vscode.TextDocument, then: () => void): void {
    if (document === this.lastEditor?.document || document.uri.scheme === "file") then();
  }

  /** The editor the context is about: the last one the user was in, while its document is open in a tab. */
  private contextEditor(): vscode.TextEditor | undefined {
    const active = this.editingPlace(vscode.window.activeTextEditor);
    if (active) this.lastEditor = active;
    if (this.lastEditor && !isOpenInTab(this.lastEditor.document)) this.lastEditor = undefined;
    return this.lastEditor;
  }
}
