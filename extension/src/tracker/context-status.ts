// The status bar item: whether the editor context is shared and for what
// (`main.rs:10-12`); its tooltip shows the start of the block the agent gets,
// and a click turns sharing on or off (the command is registered in commands.ts).
// A click shows the new state at once: the setting's write and
// the tracker's answer to it can take seconds under load; so does a move in
// the editor, from the editor's facts, before the file's debounced write.

import * as vscode from "vscode";
import { formatEditorContext } from "../../../editor-context-proxy/src/context-block.js";
import { editorTargetLabel, parseEditorState, type StateFile } from "../../../editor-state/src/index.js";
import { COMMANDS } from "../commands.js";
import { readConfig, toggleEditorContext } from "../config.js";
import type { EditorStateTracker } from "./editor-state-tracker.js";

const TOOLTIP_LINES = 8;

export interface ContextStatus extends vscode.Disposable {
  /** Turns sharing on or off (the status bar item's click), showing the new state at once. */
  toggle(): Promise<void>;
}

export function createContextStatus(tracker: EditorStateTracker): ContextStatus {
  const item = vscode.window.createStatusBarItem("symposium.editorContext", vscode.StatusBarAlignment.Right, 100);
  item.name = "Symposium Editor Context";
  item.command = COMMANDS.toggleEditorContext;
  /** The state the user clicked to, shown until the tracker has followed the setting. */
  let clicked: boolean | undefined;
  const update = (): void => render(item, clicked ?? tracker.stateFilePath !== undefined, tracker.currentState);
  // A move in the editor shows at once, without waiting for the file's debounced write.
  const moved = (): void => render(item, clicked ?? tracker.stateFilePath !== undefined, tracker.previewState());
  const followed = (): void => {
    clicked = undefined;
    update();
  };
  update();
  item.show();
  const disposable = vscode.Disposable.from(
    item,
    tracker.onDidWriteState(update),
    tracker.onDidMoveInEditor(moved),
    tracker.onDidChangeStateFilePath(followed),
  );
  return {
    dispose: () => void disposable.dispose(),
    toggle: async () => {
      clicked = !readConfig().editorContextEnabled;
      update();
      try {
        await toggleEditorContext();
      } finally {
        // Still waiting only while the setting is as clicked and the tracker has not followed it yet
        // (it fires onDidChangeStateFilePath when it does); otherwise show what is true now.
        const waiting = clicked !== undefined && clicked === readConfig().editorContextEnabled && (tracker.stateFilePath !== undefined) !== clicked;
        if (!waiting) followed();
      }
    },
  };
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
