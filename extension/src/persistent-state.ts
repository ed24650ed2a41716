// Everything the extension remembers across window loads, and under which
// key: per workspace (workspaceState), per user (globalState), and the panel
// host's secret in SecretStorage (never in plain state). Values are read back
// as `unknown` where a user or an older version may have left anything:
// the reader checks them.

import type * as vscode from "vscode";
import type { StateFileMemory } from "./tracker/state-file-location.js";

const KEYS = {
  /** workspaceState: the panel host this workspace's windows share (panel-record.ts). */
  panelHost: "symposium.panelHost",
  /** workspaceState: the state files this workspace's windows wrote lately, newest first. */
  editorStateFiles: "symposium.editorStateFiles",
  /** workspaceState: the editor group (view column) "Show Editor Context" is open in, while it is open. */
  editorContextColumn: "symposium.editorContextColumn",
  /** workspaceState: the user's answer to "give this workspace's .vscode/mcp.json servers to the agent?", with what it was asked of. */
  workspaceMcpConsent: "symposium.workspaceMcpConsent",
  /** globalState: the "Toad was not found" notice was shown once. */
  toadMissingNoticeShown: "symposium.toadMissingNoticeShown",
} as const;

/** SecretStorage: a .vscode/mcp.json `${input:id}` value, per workspace (its storage folder) and id. */
const mcpInputKey = (workspace: string, id: string): string => `symposium.mcpInput.${workspace}.${id}`;
const hostSecretKey = (launchId: string): string => `${KEYS.panelHost}.secret.${launchId}`;

export class PersistentState implements StateFileMemory {
  constructor(
    private readonly workspace: vscode.Memento,
    private readonly global: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  static of(context: vscode.ExtensionContext): PersistentState {
    return new PersistentState(context.workspaceState, context.globalState, context.secrets);
  }

  get panelHost(): unknown {
    return this.workspace.get<unknown>(KEYS.panelHost);
  }

  async setPanelHost(record: object | undefined): Promise<void> {
    await this.workspace.update(KEYS.panelHost, record);
  }

  hostSecret(launchId: string): Thenable<string | undefined> {
    return this.secrets.get(hostSecretKey(launchId));
  }

  async setHostSecret(launchId: string, secret: string | undefined): Promise<void> {
    if (secret === undefined) await this.secrets.delete(hostSecretKey(launchId));
    else await this.secrets.store(hostSecretKey(launchId), secret);
  }

  get editorStateFiles(): unknown {
    return this.workspace.get<unknown>(KEYS.editorStateFiles, []);
  }

  async setEditorStateFiles(files: string[]): Promise<void> {
    await this.workspace.update(KEYS.editorStateFiles, files);
  }

  get editorContextColumn(): unknown {
    return this.workspace.get<unknown>(KEYS.editorContextColumn);
  }

  async setEditorContextColumn(column: number | undefined): Promise<void> {
    await this.workspace.update(KEYS.editorContextColumn, column);
  }

  get toadMissingNoticeShown(): boolean {
    return this.global.get<boolean>(KEYS.toadMissingNoticeShown, false);
  }

  async setToadMissingNoticeShown(): Promise<void> {
    await this.global.update(KEYS.toadMissingNoticeShown, true);
  }

  get workspaceMcpConsent(): unknown {
    return this.workspace.get<unknown>(KEYS.workspaceMcpConsent);
  }

  async setWorkspaceMcpConsent(consent: object): Promise<void> {
    await this.workspace.update(KEYS.workspaceMcpConsent, consent);
  }

  mcpInput(workspace: string, id: string): Thenable<string | undefined> {
    return this.secrets.get(mcpInputKey(workspace, id));
  }

  async setMcpInput(workspace: string, id: string, value: string): Promise<void> {
    await this.secrets.store(mcpInputKey(workspace, id), value);
  }
}
