// Every command the extension registers, in one place. Restart and Stop act
// on the chat's process host (panel-host-controller.ts); Show Log shows this
// channel and the host's log; Show Editor Context opens the view
// show-editor-context.ts provides; Toggle flips the setting (config.ts).

import * as vscode from "vscode";
import { CHAT_VIEW_ID } from "./panel/chat-view.js";
import { chooseAgent } from "./agents/agent-picker.js";
import { manageExtensions } from "./agents/extensions-command.js";
import { selectionMention } from "./panel/selection-mention.js";
import type { SelectionMention } from "../../webview/src/panel-messages.js";

/** The commands package.json contributes; the extension-host test checks each is registered. */
export const COMMANDS = {
  openChat: "symposium.openChat",
  restartChat: "symposium.restartChat",
  stopChat: "symposium.stopChat",
  showEditorContext: "symposium.showEditorContext",
  showLog: "symposium.showLog",
  toggleEditorContext: "symposium.toggleEditorContext",
  chooseAgent: "symposium.chooseAgent",
  manageExtensions: "symposium.manageExtensions",
  addSelectionToChat: "symposium.addSelectionToChat",
  openChatInEditor: "symposium.openChatInEditor",
} as const;

/** Ids from before the rename, still registered for keybindings users made with them (not in the palette). */
export const LEGACY_ALIASES = {
  "symposium.restartToad": COMMANDS.restartChat,
  "symposium.stopToad": COMMANDS.stopChat,
} as const;

export interface CommandDeps {
  log: vscode.LogOutputChannel;
  chat: ChatCommands;
  /** Opens the editor-context view beside the editor. */
  showEditorContext: () => Promise<void>;
  /** Turns sharing on or off; the status bar shows the new state at once (context-status.ts). */
  toggleEditorContext: () => Promise<void>;
  /** Where the chat shows (chat-view.ts). */
  chatView: { mention(mention: SelectionMention): Promise<void>; openInEditor(): void };
}

export interface ChatCommands {
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** The chat host's log file, once one was started or found. */
  readonly logFile: string | undefined;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const handlers: Record<(typeof COMMANDS)[keyof typeof COMMANDS], () => unknown> = {
    [COMMANDS.openChat]: focusChatView,
    [COMMANDS.restartChat]: async () => {
      await focusChatView();
      await deps.chat.restart();
    },
    [COMMANDS.stopChat]: () => deps.chat.stop(),
    [COMMANDS.showEditorContext]: deps.showEditorContext,
    [COMMANDS.showLog]: () => showLog(deps),
    [COMMANDS.toggleEditorContext]: deps.toggleEditorContext,
    // A new conversation with the chosen agent: the chat's restart.
    [COMMANDS.chooseAgent]: () =>
      chooseAgent({
        log: deps.log,
        restart: async () => {
          await focusChatView();
          await deps.chat.restart();
        },
      }),
    [COMMANDS.manageExtensions]: () => manageExtensions(deps.log),
    [COMMANDS.addSelectionToChat]: () => addSelectionToChat(deps),
    [COMMANDS.openChatInEditor]: () => deps.chatView.openInEditor(),
  };
  return [
    ...Object.entries(handlers).map(([id, handler]) => vscode.commands.registerCommand(id, handler)),
    ...Object.entries(LEGACY_ALIASES).map(([alias, id]) => vscode.commands.registerCommand(alias, handlers[id])),
  ];
}

function focusChatView(): Thenable<unknown> {
  return vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
}

async function showLog(deps: CommandDeps): Promise<void> {
  deps.log.show();
  const logFile = deps.chat.logFile;
  // Not a preview: it must not replace the preview tab the user has open.
  if (logFile) await vscode.window.showTextDocument(vscode.Uri.file(logFile), { preview: false, preserveFocus: true });
}

async function addSelectionToChat(deps: CommandDeps): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return void vscode.window.showInformationMessage("Symposium: open a file and select some lines to add them to the chat.");
  const { start, end } = editor.selection;
  const file = vscode.workspace.asRelativePath(editor.document.uri, false);
  await deps.chatView.mention(selectionMention(file, { startLine: start.line, endLine: end.line, endCharacter: end.character }));
}
