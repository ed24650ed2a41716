// What the user is told about the chat's settings: the one-time notice when
// Toad is not found, and the offer to restart when a setting the running host
// was started with changes.

import * as vscode from "vscode";
import type { PanelHostController } from "./panel-host-controller.js";

export function noticeToadMissing(globalState: vscode.Memento, log: vscode.LogOutputChannel, why: string): void {
  const key = "symposium.toadMissingNoticeShown";
  log.info(`${why}: using the built-in chat`);
  if (globalState.get<boolean>(key)) return;
  void globalState.update(key, true);
  void vscode.window.showInformationMessage(
    `Symposium: ${why}, so the panel uses the built-in chat. For the full Toad experience, install Toad (https://github.com/batrachianai/toad; it needs Python 3.14) and restart the chat.`,
  );
}

/** The settings a running host was started with; changing one offers a restart. */
const RESTART_SETTINGS = ["toadCommand", "toadPort", "acpAgentPath", "editorContext.enabled"] as const;

export function offerRestartOnSettingChange(controller: PanelHostController): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    const changed = RESTART_SETTINGS.find((setting) => event.affectsConfiguration(`symposium.${setting}`));
    if (changed) void controller.offerRestart(`The setting symposium.${changed}`);
  });
}
