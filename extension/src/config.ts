// Typed access to the extension's settings: the only module that reads them.

import * as vscode from "vscode";

export interface SymposiumConfig {
  /** Program that starts Toad; run directly, never through a shell. */
  toadCommand: string;
  /** 0: pick a free port. */
  toadPort: number;
  /** Conductor to run Toad's agent through; empty: this extension's own. */
  acpAgentPath: string;
  editorContextEnabled: boolean;
}

export function readConfig(): SymposiumConfig {
  const config = vscode.workspace.getConfiguration("symposium");
  return {
    toadCommand: config.get<string>("toadCommand", "toad").trim() || "toad",
    toadPort: clampPort(config.get<number>("toadPort", 0)),
    acpAgentPath: config.get<string>("acpAgentPath", "").trim(),
    editorContextEnabled: config.get<boolean>("editorContext.enabled", true),
  };
}

function clampPort(value: number): number {
  return Number.isInteger(value) && value > 0 && value < 65536 ? value : 0;
}

/** Fires `listener` when any Symposium setting changes. */
export function onConfigChange(listener: (config: SymposiumConfig) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration("symposium")) listener(readConfig());
  });
}
