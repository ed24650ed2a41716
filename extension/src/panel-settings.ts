// What the user is told about the chat's settings: the one-time note (in the
// log) when Toad is not found, and the offer to restart when a setting the
// running host was started with changes.

import * as vscode from "vscode";
import { onSettingChange, type SettingName } from "./config.js";
import type { PanelHostController } from "./panel-host-controller.js";
import type { PersistentState } from "./persistent-state.js";

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

export function offerRestartOnSettingChange(controller: PanelHostController): vscode.Disposable {
  return vscode.Disposable.from(
    onSettingChange(RESTART_SETTINGS, (changed) => void controller.offerRestart(`The setting symposium.${changed}`)),
    onSettingChange(["editorContext.enabled"], () => void controller.editorContextChanged()),
  );
}
