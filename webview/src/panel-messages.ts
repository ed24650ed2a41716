// The one protocol between the chat panel's three frames (docs/panel.md, "The
// chat and VS Code"):
//
//   extension ──ToPanel──▶ panel page (webview/page/) ──ToChat──▶ chat page (webchat/page/bridge.ts)
//   extension ◀─FromPanel── panel page ◀──────FromChat────────── chat page
//
// Message names, themes, edit results, the status, mentions, limits, and the
// checks each hop runs on what it receives: every frame imports this module,
// none keeps a copy (the lint refuses the names spelled anywhere else). Pure:
// no DOM, no Node, no VS Code. The chat page may ask for a fixed set of things
// only (a chord from a fixed table, a diff, a workspace file, its agent's name
// and state), never an arbitrary command.

export type PanelStatus =
  /** `keepChat`: a restart; the chat that is there stays on screen, under the message, until the new one is ready. */
  | { kind: "starting"; message: string; keepChat?: boolean }
  /** `notice`: a line shown above the chat for a while ("a new conversation started"). */
  | { kind: "ready"; notice?: string }
  /** The user stopped the chat (or it may not start yet): the panel says so and offers Start, or `button`'s label. */
  | { kind: "stopped"; message: string; button?: string }
  | { kind: "error"; message: string; detail?: string; retry?: boolean };

/** VS Code's theme kind, as the chat is told it (`theme` query parameter and message). */
export type ChatTheme = "light" | "dark" | "high-contrast";
export const THEMES: readonly ChatTheme[] = ["light", "dark", "high-contrast"];

/**
 * What became of an agent's write sent to VS Code: applied, rejected by the user, not answered in
 * the review's time (nothing written), not for VS Code (the server writes to disk), `changed` (the
 * user edited the same lines during the review: nothing written), `unsaved` (the editor holds unsaved
 * changes to the file: refused, nothing written; editor-state/src/agent-writes.ts), or `failed` (VS Code could not
 * apply it, or it was too large to review: nothing written, never left to the disk).
 */
export type EditResult = "applied" | "rejected" | "notOpen" | "unanswered" | "changed" | "unsaved" | "failed";
export const EDIT_RESULTS: readonly EditResult[] = ["applied", "rejected", "notOpen", "unanswered", "changed", "unsaved", "failed"];

/**
 * "Add Selection to Chat": a file (relative to its workspace folder, `/`-separated) and its lines,
 * 1-based, inclusive. Sent as these fields, never as text: the chat page writes the mention
 * (webchat/page/mention-syntax.ts), quoting the path when it needs it.
 */
export interface SelectionMention {
  path: string;
  startLine: number;
  endLine: number;
  /**
   * "Reply in chat" on a walkthrough's comment (docs/walkthroughs.md): the comment's text, which the chat page
   * quotes after the mention, as the reply's reference (at most MAX_REPLY_QUOTE characters).
   */
  inReplyTo?: string;
}

/** The longest comment a reply quotes: a walkthrough comment's own bound (editor-tools/src/walkthrough-format.ts). */
export const MAX_REPLY_QUOTE = 8192;

/** One entry of the chat page's copy of its conversation, which the panel keeps across window reloads. */
export interface KeptEntry {
  role: "user" | "agent" | "other";
  text: string;
}
const KEPT_ROLES: ReadonlyArray<KeptEntry["role"]> = ["user", "agent", "other"];

/** The largest diff text the bridge carries (each side): the chat server's own message limit. */
export const MAX_BRIDGE_TEXT = 4 * 1024 * 1024;
/** The longest path a message may name. */
export const MAX_PATH = 4096;
/** The longest agent name or state shown in the view's title. */
export const MAX_LABEL = 120;
/** The kept copy: its last entries only, each cut, so that the panel's state stays small. */
export const MAX_KEPT_ENTRIES = 60;
export const MAX_KEPT_ENTRY_CHARS = 4_000;
/** Conversation ids a chat URL may name (webchat/page/protocol.ts: QUERY.conversation). */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A checkpoint turn's id (checkpoints/src/turn-record.ts). */
const TURN_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;

/** The extension → the panel page (webview.postMessage). */
export type ToPanel =
  /** `seq` orders statuses: a message queued before the page was re-rendered must not undo it. */
  | { type: "status"; status: PanelStatus; seq: number }
  | { type: "focus" }
  | { type: "theme"; theme: ChatTheme }
  /** Insert this mention ("Add Selection to Chat") into the chat's composer. */
  | ({ type: "mention" } & SelectionMention)
  /** The answer to an `applyEdit` request (agent-edits.ts), back to the chat page. */
  | { type: "editResult"; id: string; result: EditResult };

/** The panel page → the extension (acquireVsCodeApi().postMessage). `conversation`: the chat page started a new one ("New chat"); a reload should return to it. */
export type FromPanel =
  | { type: "retry" }
  | { type: "conversation"; conversation: string }
  | { type: "request"; request: BridgeRequest }
  /** The page's script runs: it shows the render whose status sequence number is `seq` (the extension renders again if that is not its latest). */
  | { type: "rendered"; seq: number };

/**
 * The names of the messages between the panel page and the chat page (window.postMessage across
 * origins): prefixed, because a page in a frame hears other senders too.
 */
export const CHAT_MESSAGE = {
  // The panel page → the chat page.
  /** VS Code's chords the chat hands back while it has the keys. */
  chords: "symposium/chords",
  mention: "symposium/mention",
  theme: "symposium/theme",
  /** The panel hands the keyboard to the chat (it was opened or clicked). */
  focus: "symposium/focus",
  editResult: "symposium/editResult",
  // The chat page → the panel page.
  /** A BridgeRequest for VS Code. */
  request: "symposium/request",
  /** "New chat" (or History, another agent) moved the page to another conversation. */
  conversation: "symposium/conversation",
  /** The chat page's copy of its conversation (text only), kept by the panel across window reloads. */
  transcript: "symposium/transcript",
} as const;

/** The panel page → the chat page. */
export type ToChat =
  | { type: typeof CHAT_MESSAGE.chords; chords: string[] }
  | ({ type: typeof CHAT_MESSAGE.mention } & SelectionMention)
  | { type: typeof CHAT_MESSAGE.theme; theme: ChatTheme }
  | { type: typeof CHAT_MESSAGE.focus }
  | { type: typeof CHAT_MESSAGE.editResult; id: string; result: EditResult };

/** The chat page → the panel page. */
export type FromChat =
  | { type: typeof CHAT_MESSAGE.request; request: BridgeRequest }
  | { type: typeof CHAT_MESSAGE.conversation; conversation: string }
  | { type: typeof CHAT_MESSAGE.transcript; entries: KeptEntry[] };

/** What the chat page may ask of VS Code, through the panel (webchat/page/bridge.ts). */
export type BridgeRequest =
  | { kind: "chord"; chord: string }
  /** A tool call's diff: `path` as the agent named it (absolute), the texts before and after. */
  | { kind: "openDiff"; path: string; oldText: string; newText: string }
  /** A path in a tool call (its locations): opened at `line` (1-based) when inside the workspace. */
  | { kind: "openFile"; path: string; line?: number }
  /** The agent's name and the conversation's state, for the view's title. */
  | { kind: "agent"; name: string; state: string }
  /**
   * An agent's fs/write_text_file (`path` absolute): applied to the document when it is open in VS Code; `id` names the
   * answer. `tooLarge`: the content was over the bridge's limit and is not here (`content` is empty): refused when the
   * file is open (it cannot be reviewed), "notOpen" otherwise.
   */
  | { kind: "applyEdit"; id: string; path: string; content: string; tooLarge?: boolean }
  /** The chat page lost its server (closed, reloaded, disconnected) while VS Code had this edit: it may no longer be applied. */
  | { kind: "withdrawEdit"; id: string }
  /** An agent's elicitation asked the user to open this address (http or https only): opened in the system's browser. */
  | { kind: "openUrl"; url: string }
  /** A recorded agent turn (docs/checkpoints.md) of the project `project` (a workspace folder): reviewed in a diff, or undone. */
  | { kind: "reviewTurn" | "undoTurn" | "rewindTurn"; project: string; turn: string }
  /** The agent finished its turn or waits for the user (webchat/page/attention.ts); `key` names the occasion once. */
  | { kind: "attention"; reason: AttentionReason; key?: string };

/** Why the agent wants the user: its turn ended, or it asks for a permission, an answer or a sign-in. */
export type AttentionReason = "turnEnded" | "permission" | "question" | "signIn";
const ATTENTION_REASONS: readonly AttentionReason[] = ["turnEnded", "permission", "question", "signIn"];

const CHORDS: ReadonlyArray<readonly [string, string]> = [
  ["shift+p", "workbench.action.showCommands"],
  ["p", "workbench.action.quickOpen"],
  ["`", "workbench.action.terminal.toggleTerminal"],
  ["b", "workbench.action.toggleSidebarVisibility"],
  ["j", "workbench.action.togglePanel"],
  ["shift+e", "workbench.view.explorer"],
  ["shift+f", "workbench.action.findInFiles"],
  ["shift+g", "workbench.view.scm"],
  ["shift+x", "workbench.view.extensions"],
  [",", "workbench.action.openSettings"],
  ["alt+b", "workbench.action.toggleAuxiliaryBar"],
];

/**
 * VS Code's chords the chat page hands back while it has the keys, and the
 * command each runs: the whole list (in the chat's iframe the workbench never
 * sees a key; nothing outside this table is forwarded). A chord: `ctrl+` or
 * `cmd+`, then `alt+`, `shift+` when held, then `KeyboardEvent.key` in lower case.
 * (F1 needs no modifier.)
 */
export const CHORD_COMMANDS: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(
    CHORDS.flatMap(([chord, command]) => [
      [`ctrl+${chord}`, command],
      [`cmd+${chord}`, command],
    ]),
  ),
  f1: "workbench.action.showCommands",
});

/** The VS Code command a chord runs, or undefined when it is not in the table. */
export function chordCommand(chord: string): string | undefined {
  return Object.hasOwn(CHORD_COMMANDS, chord) ? CHORD_COMMANDS[chord] : undefined;
}

// The checks: each hop rebuilds what it receives from the known fields only, or drops it (null).

/** The extension's message, as the panel page takes it. */
export function parseToPanel(data: unknown): ToPanel | null {
  if (!isObject(data)) return null;
  switch (data.type) {
    case "status": {
      const status = parseStatus(data.status);
      return status ? { type: "status", status, seq: Number.isSafeInteger(data.seq) ? (data.seq as number) : 0 } : null;
    }
    case "focus":
      return { type: "focus" };
    case "theme":
      return isTheme(data.theme) ? { type: "theme", theme: data.theme } : null;
    case "mention": {
      const mention = parseMention(data);
      return mention ? { type: "mention", ...mention } : null;
    }
    case "editResult":
      return isEditId(data.id) && isEditResult(data.result) ? { type: "editResult", id: data.id, result: data.result } : null;
    default:
      return null;
  }
}

/** A message from the panel page, as the extension takes it. */
export function parseFromPanel(data: unknown): FromPanel | null {
  if (!isObject(data)) return null;
  if (data.type === "retry") return { type: "retry" };
  if (data.type === "rendered") return Number.isSafeInteger(data.seq) && (data.seq as number) >= 0 ? { type: "rendered", seq: data.seq as number } : null;
  if (data.type === "conversation" && isConversationId(data.conversation)) return { type: "conversation", conversation: data.conversation };
  if (data.type === "request") {
    const request = parseBridgeRequest(data.request);
    return request ? { type: "request", request } : null;
  }
  return null;
}

/** The panel page's message, as the chat page takes it. */
export function parseToChat(data: unknown): ToChat | null {
  if (!isObject(data)) return null;
  switch (data.type) {
    case CHAT_MESSAGE.chords:
      return Array.isArray(data.chords)
        ? { type: data.type, chords: data.chords.filter((chord): chord is string => chordCommand(String(chord)) !== undefined) }
        : null;
    case CHAT_MESSAGE.mention: {
      const mention = parseMention(data);
      return mention ? { type: data.type, ...mention } : null;
    }
    case CHAT_MESSAGE.theme:
      return isTheme(data.theme) ? { type: data.type, theme: data.theme } : null;
    case CHAT_MESSAGE.focus:
      return { type: data.type };
    case CHAT_MESSAGE.editResult:
      return isEditId(data.id) && isEditResult(data.result) ? { type: data.type, id: data.id, result: data.result } : null;
    default:
      return null;
  }
}

/** The chat page's message, as the panel page takes it (the extension checks a request again: parseFromPanel). */
export function parseFromChat(data: unknown): FromChat | null {
  if (!isObject(data)) return null;
  switch (data.type) {
    case CHAT_MESSAGE.request: {
      const request = parseBridgeRequest(data.request);
      return request ? { type: data.type, request } : null;
    }
    case CHAT_MESSAGE.conversation:
      return isConversationId(data.conversation) ? { type: data.type, conversation: data.conversation } : null;
    case CHAT_MESSAGE.transcript:
      return { type: data.type, entries: keptEntries(data.entries) };
    default:
      return null;
  }
}

/** A status, or null when it is not one. */
export function parseStatus(value: unknown): PanelStatus | null {
  if (!isObject(value)) return null;
  const text = (field: unknown) => (typeof field === "string" ? field : undefined);
  switch (value.kind) {
    case "starting":
      return { kind: "starting", message: text(value.message) ?? "", keepChat: value.keepChat === true };
    case "ready":
      return { kind: "ready", notice: text(value.notice) };
    case "stopped":
      return { kind: "stopped", message: text(value.message) ?? "", button: text(value.button) };
    case "error":
      return { kind: "error", message: text(value.message) ?? "", detail: text(value.detail), retry: value.retry === true };
    default:
      return null;
  }
}

/** A kept copy's entries, those of a known shape only, cut to the bounds (the panel's state may hold anything a page left there). */
export function keptEntries(value: unknown): KeptEntry[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(-MAX_KEPT_ENTRIES)
    .flatMap((entry: unknown) =>
      isObject(entry) && typeof entry.text === "string" && KEPT_ROLES.includes(entry.role as KeptEntry["role"])
        ? [{ role: entry.role as KeptEntry["role"], text: entry.text.slice(0, MAX_KEPT_ENTRY_CHARS) }]
        : [],
    );
}

/** A bridge request, rebuilt from its known fields only, or null when anything is off. */
export function parseBridgeRequest(data: unknown): BridgeRequest | null {
  if (!isObject(data)) return null;
  switch (data.kind) {
    case "chord":
      return typeof data.chord === "string" && chordCommand(data.chord) !== undefined ? { kind: "chord", chord: data.chord } : null;
    case "openDiff":
      return isPath(data.path) && isText(data.oldText) && isText(data.newText)
        ? { kind: "openDiff", path: data.path, oldText: data.oldText, newText: data.newText }
        : null;
    case "openFile":
      if (!isPath(data.path)) return null;
      if (data.line === undefined || data.line === null) return { kind: "openFile", path: data.path };
      return isLine(data.line) ? { kind: "openFile", path: data.path, line: data.line } : null;
    case "agent":
      return isLabel(data.name) && isLabel(data.state) ? { kind: "agent", name: data.name, state: data.state } : null;
    case "applyEdit":
      if (!isEditId(data.id) || !isPath(data.path) || !isText(data.content)) return null;
      return data.tooLarge === true
        ? { kind: "applyEdit", id: data.id, path: data.path, content: "", tooLarge: true }
        : { kind: "applyEdit", id: data.id, path: data.path, content: data.content };
    case "withdrawEdit":
      return isEditId(data.id) ? { kind: "withdrawEdit", id: data.id } : null;
    case "openUrl":
      return isWebUrl(data.url) ? { kind: "openUrl", url: data.url } : null;
    case "reviewTurn":
    case "undoTurn":
    case "rewindTurn":
      return isPath(data.project) && typeof data.turn === "string" && TURN_ID.test(data.turn)
        ? { kind: data.kind, project: data.project, turn: data.turn }
        : null;
    case "attention":
      if (!ATTENTION_REASONS.includes(data.reason as AttentionReason)) return null;
      if (data.key === undefined) return { kind: "attention", reason: data.reason as AttentionReason };
      return typeof data.key === "string" && /^[A-Za-z0-9_:/.-]{1,200}$/.test(data.key)
        ? { kind: "attention", reason: data.reason as AttentionReason, key: data.key }
        : null;
    default:
      return null;
  }
}

/** A mention's fields: a path (no line break: no mention can name it) and a line range, 1-based. */
function parseMention(data: Record<string, unknown>): SelectionMention | null {
  const { path, startLine, endLine, inReplyTo } = data;
  if (!isPath(path) || /[\r\n]/.test(path) || !isLine(startLine) || !isLine(endLine) || endLine < startLine) return null;
  if (inReplyTo !== undefined && (typeof inReplyTo !== "string" || inReplyTo.length > MAX_REPLY_QUOTE)) return null;
  return { path, startLine, endLine, ...(inReplyTo !== undefined ? { inReplyTo } : {}) };
}

export function isTheme(value: unknown): value is ChatTheme {
  return THEMES.includes(value as ChatTheme);
}

export function isEditResult(value: unknown): value is EditResult {
  return EDIT_RESULTS.includes(value as EditResult);
}

function isConversationId(value: unknown): value is string {
  return typeof value === "string" && CONVERSATION_ID_PATTERN.test(value);
}

/** An http or https address (never `javascript:`, `file:`, `command:` …), of a sane length. */
function isWebUrl(value: unknown): value is string {
  return typeof value === "string" && value.length <= 8192 && URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
}

function isObject(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

function isPath(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_PATH && !value.includes("\0");
}

function isLine(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_BRIDGE_TEXT;
}

function isEditId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(value);
}

function isLabel(value: unknown): value is string {
  // eslint-disable-next-line no-control-regex
  return typeof value === "string" && value.length <= MAX_LABEL && !/[\u0000-\u001f\u007f]/.test(value);
}
