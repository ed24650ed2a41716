// The right side of propose_edit's diff (docs/editor-tools.md): an editable
// document held in memory, so the user may change the agent's proposal before
// accepting it. A tiny FileSystemProvider of its own scheme: each proposal is
// one file; saving it (done before the diff closes, so closing never asks)
// writes here, never to disk; the text is taken after the answer, then dropped.

import * as path from "node:path";
import * as vscode from "vscode";

export const PROPOSAL_SCHEME = "symposium-proposal";

export class ProposalDocuments implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private next = 0;
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  /** A document holding `text`, named like `file` (so the editor picks its language). */
  add(file: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${++this.next}/${path.basename(file)}` });
    this.files.set(uri.path, { data: Buffer.from(text, "utf8"), mtime: Date.now() });
    return uri;
  }

  /** The proposal's text as the user left it (saved into this provider), and forgets it. */
  take(uri: vscode.Uri): string | undefined {
    const entry = this.files.get(uri.path);
    this.files.delete(uri.path);
    return entry === undefined ? undefined : Buffer.from(entry.data).toString("utf8");
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const entry = this.files.get(uri.path);
    if (entry === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: entry.mtime, mtime: entry.mtime, size: entry.data.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const entry = this.files.get(uri.path);
    if (entry === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    return entry.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.path)) throw vscode.FileSystemError.NoPermissions(uri);
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }

  readDirectory(): Array<[string, vscode.FileType]> {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}
