// The extension's commands. Toad's start and stop arrive with the panel
// issue; until then those two say so instead of doing nothing silently.

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import type { BundledClis } from "./cli-paths.js";
import { TOAD_VIEW_ID } from "./toad-view.js";

export const COMMANDS = {
  openChat: "symposium.openChat",
  restartToad: "symposium.restartToad",
  stopToad: "symposium.stopToad",
  showEditorContext: "symposium.showEditorContext",
  showLog: "symposium.showLog",
} as const;

export interface CommandDeps {
  log: vscode.LogOutputChannel;
  clis: BundledClis;
  /** The state file the tracker writes, once there is one. */
  stateFile: () => string | undefined;
}

/** A read-only document for "Show Editor Context": nothing to save when it is closed. */
class EditorContextDocument implements vscode.TextDocumentContentProvider {
  static readonly uri = vscode.Uri.parse("symposium-context:Editor%20Context.md");
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private text = "";

  provideTextDocumentContent(): string {
    return this.text;
  }

  update(text: string): void {
    this.text = text;
    this.changed.fire(EditorContextDocument.uri);
  }
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const contextDocument = new EditorContextDocument();
  const notYet = (what: string) => () => {
    deps.log.info(`${what}: Toad is not managed by this version yet`);
    void vscode.window.showInformationMessage(`Symposium: ${what} is not available in this version yet.`);
  };
  return [
    vscode.commands.registerCommand(COMMANDS.openChat, () => vscode.commands.executeCommand(`${TOAD_VIEW_ID}.focus`)),
    vscode.commands.registerCommand(COMMANDS.restartToad, notYet("Restart Toad")),
    vscode.commands.registerCommand(COMMANDS.stopToad, notYet("Stop Toad")),
    vscode.workspace.registerTextDocumentContentProvider("symposium-context", contextDocument),
    vscode.commands.registerCommand(COMMANDS.showEditorContext, () => showEditorContext(deps, contextDocument)),
    vscode.commands.registerCommand(COMMANDS.showLog, () => deps.log.show()),
  ];
}

/** Asks the proxy itself (`symposium-editor-context show`) what it would inject now. */
async function showEditorContext(deps: CommandDeps, view: EditorContextDocument): Promise<void> {
  const text = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      [deps.clis.proxy, "show"],
      { env: { ...process.env, SYMPOSIUM_EDITOR_STATE_FILE: deps.stateFile() ?? "", ELECTRON_RUN_AS_NODE: "1" }, timeout: 10_000 },
      (error, stdout, stderr) => resolve(error ? `symposium-editor-context show failed: ${stderr || error.message}` : stdout),
    );
  });
  deps.log.info(`editor context: ${text.split("\n", 1)[0]}`);
  view.update(text);
  const document = await vscode.workspace.openTextDocument(EditorContextDocument.uri);
  await vscode.window.showTextDocument(document, { preview: true });
}
