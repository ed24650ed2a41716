// Where the CLIs this extension carries live inside it.

import * as vscode from "vscode";

export interface BundledClis {
  proxy: string;
  conductor: string;
}

export function bundledClis(extensionUri: vscode.Uri): BundledClis {
  return {
    proxy: vscode.Uri.joinPath(extensionUri, "dist", "symposium-editor-context.mjs").fsPath,
    conductor: vscode.Uri.joinPath(extensionUri, "dist", "symposium-conductor.mjs").fsPath,
  };
}
