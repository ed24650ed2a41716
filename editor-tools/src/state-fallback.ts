// What the tools learn from the state file (docs/state-file.md) alone: where
// the window's live channel is, and the answers editor_state, read_file and
// diagnostics give when no window is connected (a CLI conductor run beside a
// closed VS Code). Read with the proxy's own reader (fresh files only, 30 s)
// and, for unsaved files, the proxy's own snapshot reader.

import { READ_TEXT_FILE, StateFileReader, UnsavedFiles, type StateReadResult } from "../../editor-context-proxy/src/index.js";
import type { ChannelAddress } from "./channel-client.js";
import { linesOf, type ReadFileParams, type ReadFileResult } from "./protocol.js";
import { readDisk } from "./read-disk.js";
import { insideFolders } from "./workspace-paths.js";

/** Tool answers from the state file carry this note, so the agent knows how much to trust them. */
export const FROM_STATE_FILE = "No live VS Code window is connected: this answer comes from the editor's state file (its last known state).";

export class StateFallback {
  private readonly reader: StateFileReader;
  private readonly unsaved: UnsavedFiles;

  constructor(readonly stateFile: string | undefined) {
    this.reader = new StateFileReader(stateFile);
    this.unsaved = new UnsavedFiles(stateFile, () => this.reader.read());
  }

  read(): StateReadResult {
    return this.reader.read();
  }

  /** The window's channel, or why there is none. */
  address(): ChannelAddress | { reason: string } {
    if (!this.stateFile) return { reason: "SYMPOSIUM_EDITOR_STATE_FILE is not set" };
    const read = this.reader.read();
    const tools = read.editorTools;
    if (tools?.socket && tools.secret) return { socket: tools.socket, secret: tools.secret };
    if (!read.ok && tools === undefined) return { reason: read.reason };
    return { reason: "the state file names no live channel (the window runs none, or the editor's tools are off)" };
  }

  /** editor_state from the file: the active file, its selections and the diagnostics near them, the folders, the unsaved files. */
  editorState(): Record<string, unknown> {
    const read = this.reader.read();
    if (!read.ok && read.editorTools === undefined) throw new Error(`No live VS Code window is connected, and the state file cannot be used: ${read.reason}.`);
    const state = read.ok ? read.state : null;
    return {
      note: FROM_STATE_FILE,
      activeFile: state?.activeFile ?? null,
      languageId: state?.languageId ?? null,
      isDirty: state?.isDirty ?? false,
      selections: state?.selections ?? [],
      cursor: state?.cursor ?? null,
      workspaceFolders: state?.workspaceFolders ?? [],
      unsavedFiles: (read.unsaved ?? []).map((document) => document.path),
      ageSeconds: read.ok ? Math.round(read.ageMs / 1000) : null,
    };
  }

  /** diagnostics from the file: only those near the active file's selection or cursor (all it records). */
  diagnostics(): Record<string, unknown> {
    const read = this.reader.read();
    if (!read.ok) throw new Error(`No live VS Code window is connected, and the state file cannot be used: ${read.reason}.`);
    return {
      note: `${FROM_STATE_FILE} It records only the problems on the active file's selected lines or the cursor's line.`,
      path: read.state.activeFile,
      diagnostics: read.state.diagnostics,
      omitted: read.state.omittedDiagnostics,
    };
  }

  /** read_file from the file's unsaved snapshot, else the disk; inside the file's workspace folders only. */
  readFile(params: ReadFileParams): ReadFileResult & { note: string } {
    const read = this.reader.read();
    if (!read.ok) throw new Error(`No live VS Code window is connected, and the state file cannot be used: ${read.reason}.`);
    const real = insideFolders(params.path, read.state.workspaceFolders);
    if (real === undefined) throw new Error(`${params.path} is outside the workspace folders (${read.state.workspaceFolders.join(", ") || "none"}); refused.`);
    const snapshot = this.unsaved.answer({ jsonrpc: "2.0", id: 0, method: READ_TEXT_FILE, params: { path: real } });
    const fromSnapshot = snapshot !== null && "result" in snapshot ? (snapshot.result as { content: string }).content : null;
    const text = fromSnapshot ?? readDisk(real, read.state.workspaceFolders);
    return {
      note: FROM_STATE_FILE,
      path: real,
      source: fromSnapshot !== null ? "snapshot" : "disk",
      unsaved: fromSnapshot !== null,
      ...linesOf(text, params.line, params.limit),
    };
  }
}
