// The status bar item: whether the editor context is shared and for what
// (`main.rs:10-12`); its tooltip shows the start of the block the agent gets,
// and a click turns sharing on or off (the command is registered in commands.ts).

import * as vscode from "vscode";
import { formatEditorContext } from "../../editor-context-proxy/src/context-block.js";
import { editorTargetLabel, parseEditorState, type StateFile } from "../../editor-state/src/index.js";
import { COMMANDS } from "./commands.js";
import type { EditorStateTracker } from "./editor-state-tracker.js";

const TOOLTIP_LINES = 8;

export function createContextStatus(tracker: EditorStateTracker): vscode.Disposable {
  const item = vscode.window.createStatusBarItem("symposium.editorContext", vscode.StatusBarAlignment.Right, 100);
  item.name = "Symposium Editor Context";
  item.command = COMMANDS.toggleEditorContext;
  const update = (): void => render(item, tracker.stateFilePath !== undefined, tracker.currentState);
  update();
  item.show();
  return vscode.Disposable.from(item, tracker.onDidWriteState(update), tracker.onDidChangeStateFilePath(update));
}

function render(item: vscode.StatusBarItem, enabled: boolean, state: StateFile | undefined): void {
  if (!enabled) {
    item.text = "$(eye-closed) Context off";
    item.tooltip = "Symposium does not send your editor context to the agent. Click to turn it on.";
    return;
  }
  const parsed = state ? parseEditorState(state) : null;
  if (!state || !parsed) {
    item.text = "$(eye) No editor";
    item.tooltip = "Symposium shares your editor context with the agent; no editor is open now. Click to turn it off.";
    return;
  }
  item.text = `$(eye) ${editorTargetLabel(parsed)}`;
  const block = formatEditorContext(parsed).split("\n");
  const shown = block.slice(0, TOOLTIP_LINES).join("\n") + (block.length > TOOLTIP_LINES ? "\n…" : "");
  const tooltip = new vscode.MarkdownString("Symposium sends this with every prompt (click to turn it off):\n\n");
  tooltip.appendCodeblock(shown, "text");
  item.tooltip = tooltip;
}
