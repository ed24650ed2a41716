// "Symposium: Show Editor Context": the exact block the agent would receive
// now, computed by the proxy's own reader and formatter from the file the
// tracker wrote, in a read-only document beside the editor that follows every
// write while it is open. When there is no block it says why. A window reload
// restores it: VS Code activates this extension for its
// scheme (package.json: onFileSystem:symposium-context); and should its tab be
// gone all the same, leaving its editor group empty, the view is opened there
// again (the group it was in is remembered while it is open).

import * as vscode from "vscode";
import { formatEditorContext } from "../../../editor-context-proxy/src/context-block.js";
import { StateFileReader } from "../../../editor-context-proxy/src/state-file.js";
import { readConfig } from "../config.js";
import type { EditorStateTracker } from "./editor-state-tracker.js";
import type { PersistentState } from "../persistent-state.js";

const SCHEME = "symposium-context";
const URI = vscode.Uri.parse(`${SCHEME}:Editor%20Context.md`);

/** The text the view shows: the block, or the reason there is none. */
export function describeEditorContext(tracker: EditorStateTracker): string {
  const file = tracker.stateFilePath;
  if (file === undefined) {
    const off = !readConfig().editorContextEnabled;
    return `No editor context would be sent: ${off ? "context sharing is off (setting symposium.editorContext.enabled)" : "there is no private place for the state file (see Symposium: Show Log)"}.`;
  }
  const state = tracker.currentState;
  if (state?.activeFile === null && state.document === null) return "No editor context would be sent: no text editor is open.";
  const read = new StateFileReader(file).read();
  return read.ok ? formatEditorContext(read.state) : `No editor context would be sent: ${read.reason}.`;
}

class EditorContextDocument implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly tracker: EditorStateTracker) {}

  provideTextDocumentContent(): string {
    return describeEditorContext(this.tracker);
  }

  /** Re-reads the file, only while the view is open. */
  refresh(): void {
    if (vscode.workspace.textDocuments.some((document) => document.uri.toString() === URI.toString())) this.changed.fire(URI);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The view's document provider; `show` is the command "Symposium: Show Editor Context" (commands.ts). */
export function createEditorContextView(
  tracker: EditorStateTracker,
  log: vscode.LogOutputChannel,
  state: PersistentState,
): { show: () => Promise<void>; disposables: vscode.Disposable[] } {
  const view = new EditorContextDocument(tracker);
  const open = async (viewColumn: vscode.ViewColumn): Promise<void> => {
    const document = await vscode.workspace.openTextDocument(URI);
    const editor = await vscode.window.showTextDocument(document, { viewColumn, preserveFocus: true, preview: true });
    await state.setEditorContextColumn(editor.viewColumn);
    view.refresh();
  };
  // A remote window under load can take seconds to open the document: the status bar says it is coming at once.
  const show = async (): Promise<void> =>
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Symposium: opening the editor context" }, async () => {
      tracker.flush();
      log.info(`editor context: ${describeEditorContext(tracker).split("\n", 2).join(" ")}`);
      await open(vscode.ViewColumn.Beside);
    });
  const registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, view);
  void reopenInItsEmptyGroup(state, open).catch((error: Error) => log.warn(`could not reopen the editor context view: ${error.message}`));
  return {
    show,
    disposables: [
      view,
      registration,
      tracker.onDidWriteState(() => view.refresh()),
      tracker.onDidChangeStateFilePath(() => view.refresh()),
      // Closed by the user: nothing to reopen after a reload.
      vscode.window.tabGroups.onDidChangeTabs(() => {
        if (!viewTabOpen() && state.editorContextColumn !== undefined) void state.setEditorContextColumn(undefined);
      }),
    ],
  };
}

function viewTabOpen(): boolean {
  return vscode.window.tabGroups.all.some((group) =>
    group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === URI.toString()),
  );
}

/** The view was open when the window went (a reload) but its tab did not come back: open it again in its group, if that is empty. */
async function reopenInItsEmptyGroup(state: PersistentState, open: (column: vscode.ViewColumn) => Promise<void>): Promise<void> {
  const column = state.editorContextColumn;
  if (typeof column !== "number" || viewTabOpen()) return;
  const group = vscode.window.tabGroups.all.find((each) => Number(each.viewColumn) === column);
  if (group?.tabs.length === 0) await open(group.viewColumn);
  else await state.setEditorContextColumn(undefined);
}
