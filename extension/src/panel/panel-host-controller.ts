// The panel host's lifecycle (panel-lifecycle.ts) in VS Code: the window's
// trust and its grant, the restart question, the `symposium.chatState`
// context key, the host's address as the webview reaches it, the theme, and
// what a new host runs from the settings. Everything else is the lifecycle's.

import * as path from "node:path";
import * as vscode from "vscode";
import { currentTheme } from "./chat-view.js";
import { readConfig } from "../config.js";
import { panelHostClient, type HostRuntime } from "./panel-host-client.js";
import { newLaunch } from "./panel-launch.js";
import { workspaceMcpServers } from "../agents/workspace-mcp-consent.js";
import { NOTICE_SENTENCE_MAX, noticeText } from "../notice-text.js";
import { PanelLifecycle, systemClock, type HostState, type PanelView, type PanelWindow } from "./panel-lifecycle.js";
import { PanelRecord } from "./panel-record.js";
import { noticeToadMissing } from "./panel-settings.js";
import type { PersistentState } from "../persistent-state.js";

export const STATE_CONTEXT_KEY = "symposium.chatState";

export interface PanelHostDeps {
  context: vscode.ExtensionContext;
  state: PersistentState;
  log: vscode.LogOutputChannel;
  runtime: HostRuntime;
  /** The state file the tracker writes (undefined: none, or context sharing off). */
  stateFile: () => string | undefined;
  /** Where the chat shows. */
  view: PanelView;
}

/** The lifecycle with VS Code's window around it; disposing it leaves the host running (a reload reconnects). */
export class PanelHostController extends PanelLifecycle implements vscode.Disposable {
  private readonly trustGrants: vscode.Disposable;

  constructor(deps: PanelHostDeps) {
    super({
      client: panelHostClient(deps.runtime),
      clock: systemClock,
      view: deps.view,
      window: vscodeWindow(deps),
      records: new PanelRecord(deps.state, hostSecretDir(deps.context)),
      log: deps.log,
    });
    this.trustGrants = vscode.workspace.onDidGrantWorkspaceTrust(() => void this.trustGranted());
  }

  override dispose(): void {
    super.dispose();
    this.trustGrants.dispose();
  }
}

function vscodeWindow(deps: PanelHostDeps): PanelWindow {
  const wantedStateFile = (): string | undefined => (readConfig().editorContextEnabled ? deps.stateFile() : undefined);
  return {
    isTrusted: () => vscode.workspace.isTrusted,
    manageTrust: async () => {
      await vscode.commands.executeCommand("workbench.trust.manage");
    },
    confirmRestart: async (question) => (await vscode.window.showInformationMessage(noticeText(question, NOTICE_SENTENCE_MAX), "Restart")) === "Restart",
    stateChanged: async (state: HostState) => {
      await vscode.commands.executeCommand("setContext", STATE_CONTEXT_KEY, state);
    },
    chatAddress: async (port) => (await externalAddress(port)).toString(true),
    theme: currentTheme,
    wantedStateFile,
    newLaunch: async () => {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const config = readConfig();
      const fromWorkspace = await workspaceMcpServers({ state: deps.state, log: deps.log });
      return newLaunch({
        config: { ...config, userMcpServers: [...(config.userMcpServers ?? []), ...fromWorkspace] },
        runtime: deps.runtime,
        extensionPath: deps.context.extensionUri.fsPath,
        cwd: folders[0]?.uri.fsPath,
        // Local folders only (a virtual one has no path the chat could confine the agent to).
        additionalFolders: folders.slice(1).flatMap((folder) => (folder.uri.scheme === "file" ? [folder.uri.fsPath] : [])),
        noticeToadMissing: (why) => noticeToadMissing(deps.state, deps.log, why),
        stateFile: wantedStateFile(),
        storageDir: (deps.context.storageUri ?? deps.context.globalStorageUri).fsPath,
      });
    },
  };
}

/** Where the hosts' secrets are kept: the extension's storage on the machine the hosts run on (panel-record.ts). */
function hostSecretDir(context: vscode.ExtensionContext): string {
  return path.join((context.storageUri ?? context.globalStorageUri).fsPath, "chat-hosts");
}

/** The host's address as the webview reaches it (code-server forwards it); asExternalUri maps the address only (code-server's drops the query), so the query is added after. */
function externalAddress(port: number): Thenable<vscode.Uri> {
  return vscode.env.asExternalUri(vscode.Uri.parse(`http://127.0.0.1:${port}/`));
}
