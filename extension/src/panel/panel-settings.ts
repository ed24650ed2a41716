// What the user is told about the chat's settings: the one-time note (in the
// log) when Toad is not found, and the offer to restart when a setting the
// running host was started with changes.

import * as vscode from "vscode";
import { MACHINE_SETTINGS, onSettingChange, onSettingEdit, type SettingName } from "../config.js";
import type { PersistentState } from "../persistent-state.js";

/** Said once, quietly (the log, not a toast): the built-in chat is the usual case, not a fault. */
export function noticeToadMissing(state: PersistentState, log: vscode.LogOutputChannel, why: string): void {
  if (state.toadMissingNoticeShown) return log.debug(`${why}: using the built-in chat`);
  void state.setToadMissingNoticeShown();
  log.info(
    `${why}, so the panel uses the built-in chat. For Toad, install it (https://github.com/batrachianai/toad; it needs Python 3.14) and restart the chat.`,
  );
}

/** The settings a running host was started with; changing one offers a restart. (Editor context applies live.) */
const RESTART_SETTINGS: readonly SettingName[] = [
  "toadCommand",
  "toadPort",
  "acpAgentPath",
  "chat.maxConversations",
  "checkpoints.enabled",
  "checkpoints.maxTurns",
  // The chat's conductors list symposium.agents, and give symposium.mcpServers, from the environment they were started with.
  "agents",
  "mcpServers",
];

/** What a settings change asks of the chat's host (PanelHostController; named here so the two do not import each other). */
export interface SettingsListener {
  offerRestart(reason: string): unknown;
  editorContextChanged(): unknown;
}

export function offerRestartOnSettingChange(controller: SettingsListener, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    onSettingEdit(RESTART_SETTINGS, (changed, applies) => {
      if (applies) return void controller.offerRestart(`The setting symposium.${changed}`);
      log.info(`symposium.${changed} was changed in a settings file VS Code does not read here: its value stays as it was`);
      // Only a machine setting in a remote window is left unread this way: say where it goes instead.
      if (vscode.env.remoteName && MACHINE_SETTINGS.includes(changed)) void sayRemoteSettings(changed);
    }),
    onSettingChange(["editorContext.enabled"], () => void controller.editorContextChanged()),
  );
}

const OPEN_REMOTE_SETTINGS = "Open Remote Settings";

/** A machine setting changed in User settings of a remote window, where it does not apply: no restart, but where it must go. */
async function sayRemoteSettings(name: SettingName): Promise<void> {
  const choice = await vscode.window.showWarningMessage(
    `Symposium: symposium.${name} in User settings does not apply in a remote window (SSH, WSL, a container, code-server): VS Code reads this setting only from Remote settings. Move it there; the chat then offers a restart.`,
    OPEN_REMOTE_SETTINGS,
  );
  if (choice === OPEN_REMOTE_SETTINGS) await vscode.commands.executeCommand("workbench.action.openRemoteSettings");
}
