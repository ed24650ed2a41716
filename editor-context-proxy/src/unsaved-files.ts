// The agent sees what the user sees (docs/proxy.md, "Unsaved changes"): the
// agent's `fs/read_text_file` of a file the editor holds unsaved changes to is
// answered here from the tracker's snapshot, and its `fs/write_text_file` to
// such a file is refused, so the user's work is never overwritten. Every other
// request, and these for any other file, go to the client unchanged. The
// conductor's editor-context component asks this one module, however it runs.

import * as fs from "node:fs";
import * as path from "node:path";
import { errorResponse, idJson, isObject, isRequest, rpcError, type ErrorResponse, type IdLike, type WireMessage } from "../../acp-wire/src/index.js";
import { MAX_SNAPSHOT_BYTES, decideAgentWrite, isSnapshotName, unsavedChangesMessage, type UnsavedDocumentState } from "../../editor-state/src/index.js";
import type { StateReadResult } from "./state-file.js";

export const READ_TEXT_FILE = "fs/read_text_file";
export const WRITE_TEXT_FILE = "fs/write_text_file";
/** The agent→client methods this module may answer: messages with any other method pass unparsed. */
export const FILE_METHODS: ReadonlySet<string> = new Set([READ_TEXT_FILE, WRITE_TEXT_FILE]);

/** The code of the refusal of a write over unsaved changes (the request failed; the message says why). */
export const UNSAVED_CHANGES_CODE = -32603;

export type FileAnswer = { result: unknown } | { error: ErrorResponse };

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows; the name is checked to be a bare one anyway.
const SNAPSHOT_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const CASE_INSENSITIVE = process.platform === "win32" || process.platform === "darwin";

function ignore(): void {
  // No log wanted.
}

export class UnsavedFiles {
  constructor(
    /** The state file's path (its directory holds the snapshots). */
    private readonly stateFile: string | undefined,
    /** Reads the state file (fresh or not, per the 30 s rule). */
    private readonly readState: () => StateReadResult,
    private readonly log: (message: string) => void = ignore,
  ) {}

  /** The answer to an agent→client request, or null to forward it to the client unchanged. */
  answer(message: WireMessage): FileAnswer | null {
    if (!isRequest(message) || !FILE_METHODS.has(message.method) || !this.stateFile) return null;
    const params = message.params;
    if (!isObject(params) || typeof params.path !== "string" || params.path === "") return null;
    const read = this.readState();
    const document = findDocument(read.ok ? read.unsaved : (read.unsaved ?? []), params.path);
    if (document === null) return null;
    // A listed document is open with unsaved changes: the one policy (agent-writes.ts) refuses the write.
    if (message.method === WRITE_TEXT_FILE && decideAgentWrite({ open: true, unsaved: true, setting: "apply" }) === "refuseUnsaved") {
      return { error: unsavedChangesError(params.path, read.ok ? read.state.workspaceFolders : []) };
    }
    return this.fromSnapshot(document, params);
  }

  private fromSnapshot(document: UnsavedDocumentState, params: Record<string, unknown>): FileAnswer | null {
    const range = lineRange(params.path as string, params.line, params.limit);
    if ("error" in range) return range;
    if (document.snapshot === null || !isSnapshotName(document.snapshot)) {
      this.log(`${document.path} has unsaved changes too large to share; the client reads it`);
      return null;
    }
    const text = readSnapshot(path.join(path.dirname(this.stateFile!), document.snapshot));
    if (typeof text !== "string") {
      this.log(`the snapshot of ${document.path} cannot be read (${text.reason}); the client reads it`);
      return null;
    }
    return { result: { content: selectLines(text, range.start, range.limit) } };
  }
}

/** "src/x.rs has unsaved changes in the editor; save or revert it first", the path relative to its workspace folder. */
export function unsavedChangesError(file: string, workspaceFolders: string[]): ErrorResponse {
  const shown = displayPath(file, workspaceFolders);
  return {
    code: UNSAVED_CHANGES_CODE,
    message: unsavedChangesMessage(shown),
    data: { path: file, reason: "unsavedChanges" },
  };
}

function displayPath(file: string, workspaceFolders: string[]): string {
  for (const folder of workspaceFolders) {
    const relative = path.relative(folder, file);
    if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
  }
  return file;
}

/**
 * The unsaved document that is the file `requested` names, whatever names
 * either: both are compared as real paths (links followed, as the extension
 * compares them: editor-tools/src/workspace-paths.ts), so a link inside the
 * project to an unsaved file, or the project reached through a linked folder,
 * is the same file.
 */
function findDocument(documents: UnsavedDocumentState[], requested: string): UnsavedDocumentState | null {
  if (!path.isAbsolute(requested)) return null;
  const key = samePathKey(requested);
  return documents.find((document) => samePathKey(document.path) === key) ?? null;
}

function samePathKey(file: string): string {
  const real = realPath(path.resolve(file));
  return CASE_INSENSITIVE ? real.toLowerCase() : real;
}

/** `file` with every link followed; a name that does not exist (yet) keeps its name, under its folder's real path. */
function realPath(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    const folder = path.dirname(file);
    return folder === file ? file : path.join(realPath(folder), path.basename(file));
  }
}

/** `line` (1-based; 0 is taken as 1) and `limit` as webchat/src/project-files.ts reads them. */
function lineRange(file: string, line: unknown, limit: unknown): { start: number; limit: number | undefined } | { error: ErrorResponse } {
  for (const [name, value] of [
    ["line", line],
    ["limit", limit],
  ] as const) {
    if (value != null && (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)) {
      return { error: rpcError("invalidParams", `cannot read ${file}: ${name} must be an integer of at least 0, not ${JSON.stringify(value)}`) };
    }
  }
  return { start: Math.max(0, ((line as number | null | undefined) ?? 1) - 1), limit: (limit as number | null | undefined) ?? undefined };
}

/** Lines start.. (0-based), at most `limit` of them; the last one taken without its newline, as project-files.ts gives them. */
export function selectLines(text: string, start: number, limit: number | undefined): string {
  if (limit === 0) return "";
  let from = 0;
  for (let skipped = 0; skipped < start; skipped++) {
    const newline = text.indexOf("\n", from);
    if (newline === -1) return "";
    from = newline + 1;
  }
  if (limit === undefined) return text.slice(from);
  let to = from;
  for (let taken = 0; taken < limit; taken++) {
    const newline = text.indexOf("\n", to);
    if (newline === -1) return text.slice(from);
    to = newline + 1;
  }
  return text.slice(from, to - 1);
}

/** The snapshot's text, read with its size capped, or why not. */
function readSnapshot(file: string): string | { reason: string } {
  let fd: number;
  try {
    fd = fs.openSync(file, SNAPSHOT_FLAGS);
  } catch (error) {
    return { reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { reason: "not a regular file" };
    if (stat.size > MAX_SNAPSHOT_BYTES) return { reason: `${stat.size} bytes, over the ${MAX_SNAPSHOT_BYTES}-byte limit` };
    // One byte more than fstat says: the tracker replaces snapshots by rename, so an open one never grows.
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let total = 0;
    for (let read = -1; read !== 0 && total < buffer.length; total += read) read = fs.readSync(fd, buffer, total, buffer.length - total, null);
    if (total > stat.size) return { reason: "it grew while it was read" };
    return buffer.toString("utf8", 0, total);
  } catch (error) {
    return { reason: (error as Error).message };
  } finally {
    fs.closeSync(fd);
  }
}

/** The JSON-RPC line answering request `id` with `answer`. */
export function answerLine(id: IdLike, answer: FileAnswer): string {
  return "error" in answer ? errorResponse(id, answer.error) : `{"jsonrpc":"2.0","id":${idJson(id)},"result":${JSON.stringify(answer.result)}}`;
}
