// Entry point: wires the parts together and nothing else.

import * as vscode from "vscode";
import { BEFORE_SCHEME, BeforeDocuments } from "./turns/before-documents.js";
import { handleBridgeRequest } from "./panel/chat-bridge.js";
import { CHAT_EDITOR_TYPE, CHAT_VIEW_ID, ChatViewProvider } from "./panel/chat-view.js";
import { registerAgentTurns } from "./turns/agent-turns.js";
import { registerCommands } from "./commands.js";
import { onConfigChange, readConfig } from "./config.js";
import { createContextStatus } from "./tracker/context-status.js";
import { EditorStateTracker } from "./tracker/editor-state-tracker.js";
import { EditorToolsHost } from "./tools/editor-tools-host.js";
import { PROPOSAL_SCHEME, ProposalDocuments } from "./tools/proposal-documents.js";
import { registerLmProvider } from "./models/lm-provider.js";
import { hostRuntime } from "./panel/panel-host-client.js";
import { PanelHostController } from "./panel/panel-host-controller.js";
import { offerRestartOnSettingChange } from "./panel/panel-settings.js";
import { PersistentState } from "./persistent-state.js";
import { createEditorContextView } from "./tracker/show-editor-context.js";
import { Walkthroughs } from "./walkthroughs/walkthrough-view.js";
import type { PanelStatus } from "../../webview/src/panel-messages.js";

/** What `activate` returns (`vscode.extensions.getExtension(…).exports`): what the chat view shows, for tests. */
export interface SymposiumApi {
  readonly chatView: { readonly visible: boolean; readonly status: PanelStatus; readonly title: string };
  /** The file this window's editor state is written to (docs/state-file.md); undefined while context sharing is off. */
  readonly editorStateFile: string | undefined;
}

export function activate(context: vscode.ExtensionContext): SymposiumApi {
  const log = vscode.window.createOutputChannel("Symposium", { log: true });
  const config = readConfig();
  const manifest = context.extension.packageJSON as { version?: unknown };
  log.info(
    `Symposium ${typeof manifest.version === "string" ? manifest.version : "(no version)"} activated (toadCommand: ${config.toadCommand}, editor context ${config.editorContextEnabled ? "on" : "off"})`,
  );
  const state = PersistentState.of(context);
  const tracker = new EditorStateTracker(state, log);
  const documents = new BeforeDocuments();
  const view = new ChatViewProvider(context.extensionUri, log, (request, withdrawn) =>
    handleBridgeRequest(request, { documents, log }, withdrawn).catch((error: Error) => {
      log.warn(`the chat's ${request.kind} request failed: ${error.message}`);
      // An agent's edit that failed: nothing is written (never left to the server's disk write).
      return request.kind === "applyEdit" ? { type: "editResult" as const, id: request.id, result: "failed" as const } : undefined;
    }),
  );
  // The view shows what the chat's lifecycle says; the lifecycle hears the view's events.
  const chat = new PanelHostController({
    context,
    state,
    log,
    runtime: hostRuntime(context.extensionUri),
    stateFile: () => tracker.stateFilePath,
    view,
  });
  const editorContextView = createEditorContextView(tracker, log, state);
  const contextStatus = createContextStatus(tracker);
  const proposals = new ProposalDocuments();
  const walkthroughs = new Walkthroughs({ context, log, mention: (mention) => view.mention(mention) });
  const editorTools = new EditorToolsHost({ documents, proposals, contextEditor: () => tracker.editor(), moreHandlers: walkthroughs.handlers }, log, (tools) =>
    tracker.setEditorTools(tools),
  );
  context.subscriptions.push(
    log,
    tracker,
    editorTools,
    walkthroughs,
    contextStatus,
    ...editorContextView.disposables,
    view.onDidOpen(() => void chat.ensureStarted()),
    view.onDidAskRetry(() => void chat.restart()),
    view.onDidMoveConversation((id) => void chat.rememberConversation(id)),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    // The activity bar's Symposium view is its welcome text (package.json viewsWelcome): a way in, with no items of its own.
    vscode.window.registerTreeDataProvider<never>("symposium.start", { getChildren: () => [], getTreeItem: (item) => item }),
    // "Open Chat in Editor" tabs come back after a window reload (activation: onWebviewPanel:symposium.chatEditor).
    vscode.window.registerWebviewPanelSerializer(CHAT_EDITOR_TYPE, { deserializeWebviewPanel: async (panel) => view.restoreEditor(panel) }),
    view,
    chat,
    offerRestartOnSettingChange(chat, log),
    ...registerCommands({ log, chat, showEditorContext: editorContextView.show, toggleEditorContext: () => contextStatus.toggle(), chatView: view }),
    vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, documents),
    vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, proposals, { isCaseSensitive: true }),
    ...registerAgentTurns(log),
    onConfigChange((changed) => log.info(`settings changed: ${JSON.stringify(changed)}`)),
    registerLmProvider({
      log,
      runtime: hostRuntime(context.extensionUri),
      version: typeof manifest.version === "string" ? manifest.version : "0.0.0",
      stateFile: () => tracker.stateFilePath,
    }),
  );
  return {
    chatView: {
      get visible() {
        return view.visible;
      },
      get status() {
        return view.shownStatus;
      },
      get title() {
        return view.title;
      },
    },
    get editorStateFile() {
      return tracker.stateFilePath;
    },
  };
}

export function deactivate(): void {}
