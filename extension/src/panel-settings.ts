// What the user is told about the chat's settings: the one-time notice when
// Toad is not found, and the offer to restart when a setting the running host
// was started with changes.

import * as vscode from "vscode";
import { onSettingChange, type SettingName } from "./config.js";
import type { PanelHostController } from "./panel-host-controller.js";
import type { PersistentState } from "./persistent-state.js";

export function noticeToadMissing(state: PersistentState, log: vscode.LogOutputChannel, why: string): void {
  log.info(`${why}: using the built-in chat`);
  if (state.toadMissingNoticeShown) return;
  void state.setToadMissingNoticeShown();
  void vscode.window.showInformationMessage(
    `Symposium: ${why}, so the panel uses the built-in chat. For the full Toad experience, install Toad (https://github.com/batrachianai/toad; it needs Python 3.14) and restart the chat.`,
  );
}

/** The settings a running host was started with; changing one offers a restart. */
const RESTART_SETTINGS: readonly SettingName[] = ["toadCommand", "toadPort", "acpAgentPath", "editorContext.enabled", "chat.maxConversations"];

export function offerRestartOnSettingChange(controller: PanelHostController): vscode.Disposable {
  return onSettingChange(RESTART_SETTINGS, (changed) => void controller.offerRestart(`The setting symposium.${changed}`));
}
