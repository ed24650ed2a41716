// The read-only "before" side of the diffs an agent's edit is reviewed in
// (chat-bridge.ts shows them, agent-edits.ts fills them): a module of its own so
// that the two share it without importing each other.

import * as path from "node:path";
import * as vscode from "vscode";

export const BEFORE_SCHEME = "symposium-before";
/** Virtual documents kept at once: old ones are forgotten (a diff editor still open on one shows it empty). */
const MAX_DOCUMENTS = 32;

/** Read-only documents holding a diff's texts, by an id in the URI's query. */
export class BeforeDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  /** A URI whose document is `text`, named like `file` (so the editor picks its language). */
  add(file: string, text: string, label: string): vscode.Uri {
    const id = String(++this.next);
    this.texts.set(id, text);
    for (const old of this.texts.keys()) {
      if (this.texts.size <= MAX_DOCUMENTS) break;
      this.texts.delete(old);
    }
    return vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${label}/${path.basename(file)}`, query: id });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? "";
  }
}
