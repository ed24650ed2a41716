// The extension's commands. Restart and Stop act on the chat's process host
// (panel-host-controller.ts); Show Log shows this channel and the host's log.
// "Show Editor Context" lives beside the tracker it shows (show-editor-context.ts).

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
  chat: ChatCommands;
}

export interface ChatCommands {
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** The chat host's log file, once one was started or found. */
  readonly logFile: string | undefined;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.openChat, () => vscode.commands.executeCommand(`${TOAD_VIEW_ID}.focus`)),
    vscode.commands.registerCommand(COMMANDS.restartToad, async () => {
      await vscode.commands.executeCommand(`${TOAD_VIEW_ID}.focus`);
      await deps.chat.restart();
    }),
    vscode.commands.registerCommand(COMMANDS.stopToad, () => deps.chat.stop()),
    vscode.commands.registerCommand(COMMANDS.showLog, async () => {
      deps.log.show();
      const logFile = deps.chat.logFile;
      if (logFile) await vscode.window.showTextDocument(vscode.Uri.file(logFile), { preview: true, preserveFocus: true });
    }),
  ];
}
