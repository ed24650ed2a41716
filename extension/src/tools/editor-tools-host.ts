// Runs this window's end of the editor's live channel (docs/editor-tools.md)
// while `symposium.editorTools.enabled` is on: a fresh secret, a socket in the
// private state directory (a named pipe on Windows), each tool's handler
// (editor-tools/src/tools/) over this window's editor (vscode-editor.ts); and
// tells the tracker what the state file says about it (`editorTools`). Off: no
// channel, and the file says the tools are off.

import * as vscode from "vscode";
import type { EditorToolsState } from "../../../editor-state/src/index.js";
import { onSettingChange, readConfig } from "../config.js";
import type { WindowTool } from "../../../editor-tools/src/tools/tool.js";
import type { Editor } from "../../../editor-tools/src/tools/editor.js";
import { WINDOW_TOOLS } from "../../../editor-tools/src/tools/window-tools.js";
import { ChannelServer, channelSecret, listenableChannelAddress, type ChannelHandler } from "../../../editor-tools/src/channel-server.js";
import { privateStateDirectory } from "../tracker/state-file-location.js";
import { VsCodeEditor, type VsCodeEditorDeps } from "./vscode-editor.js";

export interface EditorToolsDeps extends VsCodeEditorDeps {
  /** Handlers of tools the window answers elsewhere (present_walkthrough: walkthrough-view.ts). */
  moreHandlers?: Record<string, ChannelHandler>;
}

/** The channel's handlers: each tool's own over `editor` (a refusal is the channel's ChannelRefusal already); then `moreHandlers`. */
export function editorToolHandlers(editor: Editor, moreHandlers: Record<string, ChannelHandler> = {}): Record<string, ChannelHandler> {
  const handler =
    (tool: WindowTool): ChannelHandler =>
    (params) =>
      tool.handle(params, editor);
  return { ...Object.fromEntries(WINDOW_TOOLS.map((tool) => [tool.name, handler(tool)])), ...moreHandlers };
}

export class EditorToolsHost implements vscode.Disposable {
  private server: ChannelServer | undefined;
  private readonly setting: vscode.Disposable;
  /** Setting changes are applied one after the other: a quick off-on never runs two channels. */
  private applying: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly deps: EditorToolsDeps,
    private readonly log: vscode.LogOutputChannel,
    /** Told what the state file is to say about the tools, each time that changes. */
    private readonly publish: (state: EditorToolsState) => void,
  ) {
    this.setting = onSettingChange(["editorTools.enabled"], () => this.queueApply());
    this.queueApply();
  }

  dispose(): void {
    this.disposed = true;
    this.setting.dispose();
    void this.server?.close();
    this.server = undefined;
  }

  private queueApply(): void {
    this.applying = this.applying.then(() => this.apply()).catch((error: unknown) => this.log.error(`editor tools: ${(error as Error).message}`));
  }

  private async apply(): Promise<void> {
    if (this.disposed) return;
    const enabled = readConfig().editorToolsEnabled !== false;
    if (!enabled) {
      const server = this.server;
      this.server = undefined;
      this.publish({ enabled: false, socket: null, secret: null });
      if (server === undefined) return;
      await server.close();
      this.log.info("editor tools off: the channel is closed and agents get no editor MCP server");
      return;
    }
    if (this.server !== undefined) return;
    const address = this.address();
    if (address === undefined) return this.publish({ enabled: true, socket: null, secret: null });
    const secret = channelSecret();
    const server = new ChannelServer({
      address,
      secret,
      handlers: editorToolHandlers(new VsCodeEditor(this.deps), this.deps.moreHandlers),
      identity: () => ({ pid: process.pid, workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath) }),
      log: (message) => this.log.warn(message),
    });
    try {
      await server.listen();
    } catch (error) {
      this.log.error(`the editor tools' channel cannot listen at ${address}: ${(error as Error).message}; agents get the state-file tools only`);
      return this.publish({ enabled: true, socket: null, secret: null });
    }
    if (this.disposed) return void server.close();
    this.server = server;
    this.log.info(`editor tools: channel at ${address}`);
    this.publish({ enabled: true, socket: address, secret });
  }

  /** Where to listen: beside the state file; a short private directory in /tmp when that path is too long for a socket. */
  private address(): string | undefined {
    const directory = privateStateDirectory((message) => this.log.warn(message));
    if (directory === undefined) return undefined;
    try {
      return listenableChannelAddress(directory);
    } catch (error) {
      this.log.error(`no place for the editor tools' socket: ${(error as Error).message}`);
      return undefined;
    }
  }
}
