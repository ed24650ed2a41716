// Entry point: wires the parts together and nothing else.

import * as vscode from "vscode";
import { bundledClis } from "./cli-paths.js";
import { registerCommands } from "./commands.js";
import { onConfigChange, readConfig } from "./config.js";
import { createContextStatus } from "./context-status.js";
import { EditorStateTracker } from "./editor-state-tracker.js";
import { registerShowEditorContext } from "./show-editor-context.js";
import { TOAD_VIEW_ID, ToadViewProvider } from "./toad-view.js";
import { hostRuntime } from "./panel-host-client.js";
import { PanelHostController } from "./panel-host-controller.js";
import { offerRestartOnSettingChange } from "./panel-settings.js";

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Symposium", { log: true });
  const config = readConfig();
  log.info(`Symposium ${context.extension.packageJSON.version as string} activated (toadCommand: ${config.toadCommand}, editor context ${config.editorContextEnabled ? "on" : "off"})`);
  const tracker = new EditorStateTracker(context, log);
  let chat: PanelHostController | undefined;
  const view = new ToadViewProvider(context.extensionUri, log, {
    opened: () => void chat?.ensureStarted(),
    retry: () => void chat?.restart(),
    conversation: (id) => void chat?.rememberConversation(id),
  });
  chat = new PanelHostController({ context, log, runtime: hostRuntime(context.extensionUri), stateFile: () => tracker.stateFilePath, show: (status, url) => view.show(status, url) });
  context.subscriptions.push(
    log,
    tracker,
    createContextStatus(tracker),
    ...registerShowEditorContext(tracker, log),
    vscode.window.registerWebviewViewProvider(TOAD_VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    view,
    chat,
    offerRestartOnSettingChange(chat),
    ...registerCommands({ log, clis: bundledClis(context.extensionUri), stateFile: () => tracker.stateFilePath, chat }),
    onConfigChange((changed) => log.info(`settings changed: ${JSON.stringify(changed)}`)),
  );
}

export function deactivate(): void {}
