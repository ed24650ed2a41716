// Reads the plain facts the state file is built from (editor-state/src/build.ts)
// off a VS Code text editor. Nothing here copies the document's text: the
// builder asks for the selected text through `textBetween`, within its cap.

import * as path from "node:path";
import * as vscode from "vscode";
import type { EditorFacts } from "../../../editor-state/src/index.js";
import type { UnsavedDocumentFacts } from "./unsaved-snapshots.js";

export function editorFacts(editor: vscode.TextEditor): EditorFacts {
  const document = editor.document;
  return {
    uri: document.uri.toString(),
    scheme: document.uri.scheme,
    fsPath: document.uri.fsPath,
    label: document.isUntitled ? document.fileName : path.posix.basename(document.uri.path) || document.uri.toString(),
    languageId: document.languageId,
    isDirty: document.isDirty,
    selections: editor.selections.map((selection) => ({
      start: selection.start,
      end: selection.end,
      active: selection.active,
      startOffset: document.offsetAt(selection.start),
      endOffset: document.offsetAt(selection.end),
    })),
    textBetween: (from, to) => document.getText(new vscode.Range(document.positionAt(from), document.positionAt(to))),
    diagnostics: vscode.languages.getDiagnostics(document.uri).map((diagnostic) => ({
      startLine: diagnostic.range.start.line,
      endLine: diagnostic.range.end.line,
      severity: diagnostic.severity,
      source: diagnostic.source,
      message: diagnostic.message,
    })),
  };
}

/** Schemes of text editors that are not where the user edits: the output view, our own context view, input boxes. */
const NOT_AN_EDITING_PLACE = new Set(["output", "symposium-context", "vscode-scm", "comment", "vscode-chat-input", "debug-console"]);

/**
 * True for an editor in the editor area. Focus moving to the output view, a
 * terminal, the Symposium panel or an input box must not replace the context.
 */
export function isEditingPlace(editor: vscode.TextEditor): boolean {
  return editor.viewColumn !== undefined && !NOT_AN_EDITING_PLACE.has(editor.document.uri.scheme);
}

/** True while `document` is open in some editor tab (closing all editors ends the context). */
export function isOpenInTab(document: vscode.TextDocument): boolean {
  if (document.isClosed) return false;
  const uri = document.uri.toString();
  return vscode.window.tabGroups.all.some((group) =>
    group.tabs.some((tab) => {
      const input = tab.input;
      if (input instanceof vscode.TabInputText) return input.uri.toString() === uri;
      if (input instanceof vscode.TabInputTextDiff) return input.modified.toString() === uri || input.original.toString() === uri;
      return false;
    }),
  );
}

/** The window's file documents with unsaved changes, for their snapshots (unsaved-snapshots.ts). */
export function unsavedDocumentFacts(): UnsavedDocumentFacts[] {
  return vscode.workspace.textDocuments
    .filter((document) => document.isDirty && !document.isClosed && document.uri.scheme === "file")
    .map((document) => ({
      path: document.uri.fsPath,
      version: document.version,
      // A position past the end is clamped to it: the length without copying the text.
      length: document.offsetAt(new vscode.Position(document.lineCount, 0)),
      text: () => document.getText(),
    }));
}
