// Entry point: wires the parts together and nothing else.

import * as vscode from "vscode";
import { bundledClis } from "./cli-paths.js";
import { registerCommands } from "./commands.js";
import { onConfigChange, readConfig } from "./config.js";
import { TOAD_VIEW_ID, ToadViewProvider } from "./toad-view.js";

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Symposium", { log: true });
  const config = readConfig();
  log.info(`Symposium ${context.extension.packageJSON.version as string} activated (toadCommand: ${config.toadCommand}, editor context ${config.editorContextEnabled ? "on" : "off"})`);
  const view = new ToadViewProvider(context.extensionUri, log);
  context.subscriptions.push(
    log,
    vscode.window.registerWebviewViewProvider(TOAD_VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    ...registerCommands({ log, clis: bundledClis(context.extensionUri), stateFile: () => undefined }),
    onConfigChange((changed) => log.info(`settings changed: ${JSON.stringify(changed)}`)),
  );
}

export function deactivate(): void {}
