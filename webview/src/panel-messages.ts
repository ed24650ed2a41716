// The messages between the extension and the panel's page (media/panel.js),
// and the bridge requests the chat page (in the panel's iframe) may make
// through it. Pure types, and the checks of what the pages send: the chat page
// can ask for a fixed set of things only (a chord from a fixed table, a diff,
// a workspace file, its agent's name and state), never an arbitrary command.

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

export type ToPanel =
  /** `seq` orders statuses: a message queued before the page was re-rendered must not undo it. */
  | { type: "status"; status: PanelStatus; seq: number }
  | { type: "focus" }
  | { type: "theme"; theme: ChatTheme }
  /** Insert this mention ("Add Selection to Chat") into the chat's composer. */
  | { type: "mention"; text: string }
  /** The answer to an `applyEdit` request (agent-edits.ts), back to the chat page. */
  | { type: "editResult"; id: string; result: EditResult };

/**
 * What became of an agent's write sent to VS Code: applied, rejected by the user, not answered in
 * the review's time (nothing written), not for VS Code (the server writes to disk), `changed` (the
 * user edited the same lines during the review: nothing written), `unsaved` (the editor holds unsaved
 * changes to the file: refused, nothing written; editor-state/src/agent-writes.ts), or `failed` (VS Code could not
 * apply it, or it was too large to review: nothing written, never left to the disk).
 */
export type EditResult = "applied" | "rejected" | "notOpen" | "unanswered" | "changed" | "unsaved" | "failed";

/** Every EditResult, for the checks of what a page answers. */
export const EDIT_RESULTS: readonly EditResult[] = ["applied", "rejected", "notOpen", "unanswered", "changed", "unsaved", "failed"];

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

/** The bridge's message type on the chat page's side of the panel (iframe ⇄ panel page). */
export const BRIDGE_MESSAGE = "symposium/request";

/** The largest diff text the bridge carries (each side): the chat server's own message limit. */
export const MAX_BRIDGE_TEXT = 4 * 1024 * 1024;
const MAX_PATH = 4096;
const MAX_LABEL = 120;
/** A checkpoint turn's id (checkpoints/src/turn-record.ts). */
const TURN_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;

/** `conversation`: the chat page started a new conversation ("New chat"); a reload should return to it. */
export type FromPanel = { type: "retry" } | { type: "conversation"; conversation: string } | { type: "request"; request: BridgeRequest };

/** A message from the page as a FromPanel, or null when it is not one (the page's messages are checked, not trusted). */
export function parseFromPanel(data: unknown): FromPanel | null {
  if (!isObject(data)) return null;
  if (data.type === "retry") return { type: "retry" };
  if (data.type === "conversation" && typeof data.conversation === "string") return { type: "conversation", conversation: data.conversation };
  if (data.type === "request") {
    const request = parseBridgeRequest(data.request);
    return request ? { type: "request", request } : null;
  }
  return null;
}

/** A bridge request, rebuilt from its known fields only, or null when anything is off. */
export function parseBridgeRequest(data: unknown): BridgeRequest | null {
  if (!isObject(data)) return null;
  switch (data.kind) {
    case "chord":
      return typeof data.chord === "string" && Object.hasOwn(CHORD_COMMANDS, data.chord) ? { kind: "chord", chord: data.chord } : null;
    case "openDiff":
      return isPath(data.path) && isText(data.oldText) && isText(data.newText)
        ? { kind: "openDiff", path: data.path, oldText: data.oldText, newText: data.newText }
        : null;
    case "openFile":
      if (!isPath(data.path)) return null;
      if (data.line === undefined || data.line === null) return { kind: "openFile", path: data.path };
      return Number.isSafeInteger(data.line) && (data.line as number) >= 1 ? { kind: "openFile", path: data.path, line: data.line as number } : null;
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

/** An http or https address (never `javascript:`, `file:`, `command:` …), of a sane length. */
function isWebUrl(value: unknown): value is string {
  return typeof value === "string" && value.length <= 8192 && URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
}

/** The VS Code command a chord runs, or undefined when it is not in the table. */
export function chordCommand(chord: string): string | undefined {
  return Object.hasOwn(CHORD_COMMANDS, chord) ? CHORD_COMMANDS[chord] : undefined;
}

function isObject(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

function isPath(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_PATH && !value.includes("\0");
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
