// The chat page's half of the bridge to VS Code (the protocol and its checks:
// webview/src/panel-messages.ts): while the chat has the keys, the chords the
// panel listed go back to it (VS Code runs each one's command from its fixed
// table); a tool call's diff and paths open in VS Code; the panel's mentions
// ("Add Selection to Chat": a path and lines) are written into the composer.
// Only the parent frame is listened to, and requests go only to the origin it
// spoke from; in a plain browser tab (no parent) nothing here does anything.

import { h, revealBidi } from "./dom.js";
import type { ServerMessage } from "./protocol.js";
import { mentionText } from "./mention-syntax.js";
import { shownPath } from "./project-path.js";
import {
  CHAT_MESSAGE,
  MAX_LABEL,
  parseToChat,
  type BridgeRequest,
  type ChatTheme,
  type EditResult,
  type FromChat,
  type SelectionMention,
} from "../../webview/src/panel-messages.js";

let parentOrigin: string | undefined;
let chords = new Set<string>();
let input: HTMLTextAreaElement | undefined;
/** Sent again once the panel has spoken (the session may be reported before it does). */
let lastAgent: BridgeRequest | undefined;
/** What the page does with the panel's messages that are not the bridge's own. */
export interface PanelHandlers {
  /** Called once the panel has spoken: from then on the page is known to be in VS Code's panel. */
  panelSpoke(): void;
  /** VS Code's theme changed (in a plain browser tab, the page's own message: the tests' way to set it). */
  theme(theme: ChatTheme): void;
  /** The panel was focused: the composer takes the keys. */
  focus(): void;
}

let handlers: PanelHandlers | undefined;
/** Agents' writes sent to VS Code, by id, waiting for its answer. */
const pendingEdits = new Map<string, (result: EditResult) => void>();

/** Starts listening to the panel, the page's one listener for its messages; `composer` receives mentions. */
export function startBridge(composer: HTMLTextAreaElement, panel: PanelHandlers): void {
  input = composer;
  handlers = panel;
  window.addEventListener("message", onParentMessage);
  if (window.parent === window) return;
  // Leaving (a reload, New chat, the panel closing): VS Code must not apply what this page can no longer answer for.
  window.addEventListener("pagehide", () => withdrawEdits());
  // Capture: the composer's own keys (Enter, arrows) never match a chord, and the chord must not also type.
  document.addEventListener("keydown", onKey, true);
}

/** The composer the panel's mentions go to from now on (the tab on screen). */
export function mentionTarget(composer: HTMLTextAreaElement): void {
  input = composer;
}

/** Tells VS Code the agent's name and the conversation's state (the view's title). */
export function reportAgent(name: string, state: string): void {
  lastAgent = { kind: "agent", name: name.slice(0, MAX_LABEL), state: state.slice(0, MAX_LABEL) };
  request(lastAgent);
}

/** The "Open diff" button of a tool call's diff (only inside VS Code's panel). */
export function openDiffButton(path: string, oldText: string, newText: string): HTMLElement[] {
  if (window.parent === window || !path) return [];
  const button = h("button", { class: "open-diff", title: "Open this change in VS Code's diff editor" }, "Open diff");
  button.addEventListener("click", () => request({ kind: "openDiff", path, oldText, newText }));
  return [button];
}

/** A tool call's locations as links (project-relative; the full path in the tooltip) that open the file at the line in VS Code. */
export function locationLinks(locations: unknown): HTMLElement[] {
  if (!Array.isArray(locations)) return [];
  return locations.flatMap((location: { path?: unknown; line?: unknown }) => {
    const path = location?.path;
    if (typeof path !== "string" || path === "") return [];
    const line = typeof location.line === "number" && Number.isSafeInteger(location.line) && location.line >= 1 ? location.line : undefined;
    const suffix = line ? `:${line}` : "";
    const title = `${path}${suffix}${window.parent === window ? "" : " (open in VS Code)"}`;
    const link = h("a", { class: "tool-location", href: "#", title }, ...revealBidi(`${shownPath(path)}${suffix}`));
    link.addEventListener("click", (event) => {
      event.preventDefault();
      request({ kind: "openFile", path, ...(line ? { line } : {}) });
    });
    return [link];
  });
}

/** Opens an http(s) address outside the frame: through VS Code in its panel, else a new browser tab (never with our URL as referrer). */
export function openOutside(url: string): void {
  if (parentOrigin) request({ kind: "openUrl", url });
  else window.open(url, "_blank", "noopener,noreferrer");
}

/** Asks VS Code to review or undo one recorded turn (turn-changes.ts; agent-turns.ts there). */
export function turnRequest(kind: "reviewTurn" | "undoTurn" | "rewindTurn", project: string, turn: string): void {
  request({ kind, project, turn });
}

/** Whether this page is in VS Code's panel (its parent has spoken): it can take agents' writes. */
export function inEditor(): boolean {
  return parentOrigin !== undefined;
}

/** Hands an agent's write to VS Code (agent-edits.ts there); outside VS Code's panel: "notOpen" (the server writes to disk). */
export function applyEdit(edit: Extract<ServerMessage, { type: "applyEdit" }>): Promise<EditResult> {
  const { id, path, content, tooLarge } = edit;
  if (!parentOrigin || pendingEdits.has(id)) return Promise.resolve("notOpen");
  return new Promise((resolve) => {
    pendingEdits.set(id, resolve);
    request({ kind: "applyEdit", id, path, content, ...(tooLarge === true ? { tooLarge: true } : {}) });
  });
}

/**
 * The connection to the chat server is gone (or the page is): the server has refused the writes
 * it offered here ("pageLeft"), so VS Code is told to drop them, a review still on screen included.
 */
export function withdrawEdits(ids: Iterable<string> = [...pendingEdits.keys()]): void {
  // Not answered here: the server already counts them as refused ("pageLeft", docs/panel.md).
  for (const id of ids) {
    if (pendingEdits.delete(id)) request({ kind: "withdrawEdit", id });
  }
}

function request(body: BridgeRequest): void {
  toPanel({ type: CHAT_MESSAGE.request, request: body });
}

/** A message for the panel page (kept-transcript.ts, main.ts); only once the panel has spoken, only to its origin. */
export function toPanel(message: FromChat): void {
  if (parentOrigin) window.parent.postMessage(message, parentOrigin);
}

function onParentMessage(event: MessageEvent): void {
  if (event.source !== window.parent) return;
  const inPanel = window.parent !== window;
  // The panel speaks first (chords on load, focus, theme): requests go to that origin only.
  if (inPanel && parentOrigin === undefined) {
    parentOrigin = event.origin;
    if (lastAgent) request(lastAgent);
    handlers?.panelSpoke();
  }
  if (inPanel && event.origin !== parentOrigin) return;
  const message = parseToChat(event.data);
  switch (message?.type) {
    // The theme and focus reach a page outside the panel too.
    case CHAT_MESSAGE.theme:
      return handlers?.theme(message.theme);
    case CHAT_MESSAGE.focus:
      return handlers?.focus();
  }
  if (!inPanel) return;
  switch (message?.type) {
    case CHAT_MESSAGE.chords:
      chords = new Set(message.chords);
      return;
    case CHAT_MESSAGE.mention:
      return message.inReplyTo === undefined ? insertMention(selectionText(message)) : insertMention(replyText(message, message.inReplyTo), true);
    case CHAT_MESSAGE.editResult:
      return settleEdit(message.id, message.result);
  }
}

function settleEdit(id: string, result: EditResult): void {
  const settle = pendingEdits.get(id);
  if (!settle) return;
  pendingEdits.delete(id);
  settle(result);
}

function onKey(event: KeyboardEvent): void {
  if (event.isComposing) return;
  const chord = chordOf(event);
  if (!chords.has(chord)) return;
  event.preventDefault();
  event.stopPropagation();
  request({ kind: "chord", chord });
}

/** The chord's name as the panel's table spells it (panel-messages.ts: CHORD_COMMANDS). */
export function chordOf(event: KeyboardEvent): string {
  const parts = [event.ctrlKey ? "ctrl" : "", event.metaKey ? "cmd" : "", event.altKey ? "alt" : "", event.shiftKey ? "shift" : ""].filter(Boolean);
  return [...parts, keyName(event)].join("+");
}

/** The key without Shift's effect on it (Shift+P gives "P"; on a US layout Ctrl+` is "`"). */
function keyName(event: KeyboardEvent): string {
  if (/^Key[A-Z]$/.test(event.code)) return event.code.slice(3).toLowerCase();
  if (event.code === "Backquote") return "`";
  if (event.code === "Comma") return ",";
  return event.key.toLowerCase();
}

/** The panel's mention (extension/src/panel/selection-mention.ts) as the composer writes every mention (mention-syntax.ts). */
export function selectionText(mention: SelectionMention): string {
  return mentionText(mention.path, mention.startLine, mention.endLine);
}

/**
 * "Reply in chat" on a walkthrough's comment: the mention of its place and the comment quoted, for the user to
 * type the reply under (the older Symposium's in-reply-to-comment-at: file, lines, the comment's text).
 */
export function replyText(mention: SelectionMention, comment: string): string {
  const quoted = comment
    .trim()
    .split(/\r?\n/)
    .map((line) => `> ${line}`.trimEnd())
    .join("\n");
  return `In reply to your comment at ${selectionText(mention)}:\n${quoted}`;
}

/** Puts `text` at the caret, spaced from the text around it; `lines`: on lines of its own (a reply's quote). */
function insertMention(text: string, lines = false): void {
  if (!input) return;
  const { selectionStart, selectionEnd, value } = input;
  const before = value.slice(0, selectionStart);
  const gap = lines ? "\n" : " ";
  const spaced = `${before && !/\s$/.test(before) ? gap : ""}${text}${gap}`;
  input.value = before + spaced + value.slice(selectionEnd);
  const caret = before.length + spaced.length;
  input.setSelectionRange(caret, caret);
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus();
}
