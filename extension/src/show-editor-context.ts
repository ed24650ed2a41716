// "Symposium: Show Editor Context": the exact block the agent would receive
// now, computed by the proxy's own reader and formatter from the file the
// tracker wrote, in a read-only document beside the editor that follows every
// write while it is open. When there is no block it says why. A window reload
// restores it: VS Code activates this extension for its scheme
// (package.json: onFileSystem:symposium-context), so no empty editor group is
// left where it was (issue 32, item 11).

import * as vscode from "vscode";
import { formatEditorContext } from "../../editor-context-proxy/src/context-block.js";
import { StateFileReader } from "../../editor-context-proxy/src/state-file.js";
import { readConfig } from "./config.js";
import type { EditorStateTracker } from "./editor-state-tracker.js";

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
): { show: () => Promise<void>; disposables: vscode.Disposable[] } {
  const view = new EditorContextDocument(tracker);
  const show = async (): Promise<void> => {
    tracker.flush();
    log.info(`editor context: ${describeEditorContext(tracker).split("\n", 2).join(" ")}`);
    const document = await vscode.workspace.openTextDocument(URI);
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: true });
    view.refresh();
  };
  return {
    show,
    disposables: [
      view,
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, view),
      tracker.onDidWriteState(() => view.refresh()),
      tracker.onDidChangeStateFilePath(() => view.refresh()),
    ],
  };
}
