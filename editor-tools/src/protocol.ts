// The live channel between the editor's MCP server (this folder) and the VS
// Code window (editor-tools/src/channel-server.ts): newline-delimited
// JSON-RPC 2.0 over a Unix domain socket or a Windows named pipe
// (docs/editor-tools.md). A connection's first request is `authenticate` with
// the window's secret; every other method is a tool's name with the tool's
// arguments as params, answered with the tool's result object. Types and
// limits only, no I/O: both sides import this one definition.

export const AUTHENTICATE = "authenticate";

/** The tools, by name: each is also the channel method that answers it. Each tool's definition: tools/<tool>.ts. */
export const TOOL = {
  editorState: "editor_state",
  readFile: "read_file",
  diagnostics: "diagnostics",
  findDefinitions: "find_definitions",
  findReferences: "find_references",
  hover: "hover",
  documentSymbols: "document_symbols",
  workspaceSymbols: "workspace_symbols",
  proposeEdit: "propose_edit",
  presentWalkthrough: "present_walkthrough",
} as const;

export type ToolName = (typeof TOOL)[keyof typeof TOOL];

export const TOOL_NAMES: readonly ToolName[] = Object.values(TOOL);

/** Limits both sides keep (docs/editor-tools.md, "Bounds"). */
export const LIMITS = {
  /** One channel message, in bytes: a larger line is refused unread. */
  maxMessageBytes: 16 * 1024 * 1024,
  /** A proposal's text (new text, or all edits' texts together), in UTF-8 bytes. */
  maxProposalBytes: 4 * 1024 * 1024,
  /** A proposal's edits. */
  maxEdits: 1000,
  /**
   * Characters a proposal's edits may scan in all: edits × the file's length (each oldText is looked for over the
   * whole text; ~1 s at the slowest search seen, 2-byte text and a repetitive oldText, tens of ms in practice).
   */
  maxEditScanChars: 32 * 1024 * 1024,
  /** A file read_file, propose_edit or a symbol search opens, in bytes. */
  maxFileBytes: 10 * 1024 * 1024,
  /** Text in one answer (a page of read_file, a hover), in characters. */
  maxAnswerChars: 100_000,
  /** What one answer's locations (find_references, find_definitions) read from the disk for their lines' text, in bytes. */
  maxLineTextBytes: 4 * 1024 * 1024,
  /** read_file's lines per page when no limit is asked. */
  defaultLines: 2000,
  /** Entries of a list answer (diagnostics, references, symbols) per page. */
  pageSize: 100,
  /** One selection's text in editor_state, in characters. */
  maxSelectionChars: 16 * 1024,
  /** Open editors listed by editor_state. */
  maxOpenEditors: 200,
  /** Symbols a by-name lookup follows. */
  maxNamedSymbols: 10,
  /** Requests the window works on at once (all connections); more wait. */
  maxRunning: 16,
  /** Requests waiting for their turn; more are refused at once ("busy"). */
  maxWaiting: 2048,
  /**
   * Answers waiting in one connection's socket for its client to read, in bytes: over it the window stops reading
   * that connection until the client has read them ('drain').
   */
  connectionBufferBytes: 1024 * 1024,
  /** One connection's requests the window holds unanswered; more stay unread until one is answered. */
  maxPendingPerConnection: 16,
  /** Connections the window accepts at once. */
  maxConnections: 64,
  /** How long a connection may take to authenticate. */
  authenticateMs: 5_000,
  /** How long the MCP server waits for an answer (propose_edit: the review's time, plus this). */
  requestMs: 30_000,
} as const;

/** Error codes the window answers with (JSON-RPC's own, and ours in the server range). */
export const CHANNEL_ERROR = {
  invalidParams: -32602,
  methodNotFound: -32601,
  /** The secret was wrong or missing: the connection is closed. */
  unauthorized: -32001,
  /** Too many requests waiting. */
  busy: -32002,
  /** The path is outside the window's workspace folders. */
  outsideWorkspace: -32003,
  /** The request is well formed but cannot be done (no such file, no symbol, too large…). */
  failed: -32004,
} as const;

/** How a position or symbol is named: by name alone, or by file and line (and column or name on that line). */
export interface SymbolTarget {
  symbol?: string;
  path?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  character?: number;
}

export interface AuthenticateParams {
  secret: string;
}

export interface AuthenticateResult {
  /** The extension host's pid. */
  pid: number;
  workspaceFolders: string[];
}

export interface ReadFileParams {
  path: string;
  line?: number;
  limit?: number;
}

export interface ReadFileResult {
  path: string;
  /** "editor": an open document's text, unsaved changes included; "disk": the file as saved; "snapshot": the tracker's copy of unsaved text. */
  source: "editor" | "disk" | "snapshot";
  unsaved: boolean;
  /** 1-based first line given, and the last. */
  startLine: number;
  endLine: number;
  totalLines: number;
  text: string;
  /** The line to ask for next when the answer stopped before the end. */
  nextLine?: number;
}

export interface ProposeEditParams {
  path: string;
  newText?: string;
  edits?: Array<{ oldText: string; newText: string }>;
  title?: string;
}

export interface ProposeEditResult {
  path: string;
  /**
   * What the user decided; "applied" when the edits setting applies at once; "unsaved" when the editor
   * holds unsaved changes to the file (nothing changed: editor-state/src/agent-writes.ts).
   */
  decision: "accepted" | "applied" | "rejected" | "unanswered" | "conflict" | "unsaved";
  /** The file's text as it now is in the editor (when accepted or applied; the user may have changed the proposal). */
  finalText?: string;
  message: string;
}

/** A list answer's page: `offset` of `total`, and where the next starts. */
export interface Page {
  total: number;
  offset: number;
  nextOffset?: number;
}

/** Entries `offset`.. of `all`, one page of them, and the page's bounds. */
export function pageOf<T>(all: readonly T[], offset = 0, size: number = LIMITS.pageSize): { items: T[]; page: Page } {
  const start = Math.min(Math.max(0, offset), all.length);
  const items = all.slice(start, start + size);
  const next = start + items.length;
  return { items, page: { total: all.length, offset: start, ...(next < all.length ? { nextOffset: next } : {}) } };
}

/** Lines `line`.. (1-based) of `text`, at most `limit` of them and LIMITS.maxAnswerChars characters. */
export function linesOf(text: string, line = 1, limit: number = LIMITS.defaultLines): Omit<ReadFileResult, "path" | "source" | "unsaved"> {
  const lines = text.split(/\r?\n/);
  const totalLines = lines.length;
  const start = Math.min(Math.max(1, line), totalLines + 1);
  const taken: string[] = [];
  let chars = 0;
  for (let index = start - 1; index < totalLines && taken.length < limit; index++) {
    const next = lines[index]!;
    if (taken.length > 0 && chars + next.length + 1 > LIMITS.maxAnswerChars) break;
    taken.push(next.length > LIMITS.maxAnswerChars ? `${next.slice(0, LIMITS.maxAnswerChars)}… (line cut at ${LIMITS.maxAnswerChars} characters)` : next);
    chars += next.length + 1;
  }
  const endLine = start + taken.length - 1;
  return { startLine: start, endLine, totalLines, text: taken.join("\n"), ...(endLine < totalLines ? { nextLine: endLine + 1 } : {}) };
}

/** A refusal with the channel's error code: a handler throws it, the channel answers it as such, and its message reaches the agent as the tool's error. */
export class ChannelRefusal extends Error {
  override name = "ChannelRefusal";
  constructor(
    message: string,
    readonly code: number = CHANNEL_ERROR.failed,
  ) {
    super(message);
  }
}
