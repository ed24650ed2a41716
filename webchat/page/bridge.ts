// The chat page's half of the bridge to VS Code (webview/src/panel-messages.ts
// has the panel's half and the checks): while the chat has the keys, the
// chords the panel listed go back to it (VS Code runs each one's command from
// its fixed table); a tool call's diff and paths open in VS Code; the panel's
// mentions ("Add Selection to Chat") land in the composer. Only the parent
// frame is listened to, and requests go only to the origin it spoke from; in
// a plain browser tab (no parent) nothing here does anything.

import { h, revealBidi } from "./dom.js";
import { EDIT_RESULTS, type EditResult, type ServerMessage } from "./protocol.js";
import { mentionText, parseMentions } from "./mention-syntax.js";
import { shownPath } from "./project-path.js";

const REQUEST = "symposium/request";
const CHORDS = "symposium/chords";
const MENTION = "symposium/mention";
const EDIT_RESULT = "symposium/editResult";

let parentOrigin: string | undefined;
let chords = new Set<string>();
let input: HTMLTextAreaElement | undefined;
/** Sent again once the panel has spoken (the session may be reported before it does). */
let lastAgent: Record<string, unknown> | undefined;
/** Called once the panel has spoken: from then on the page is known to be in VS Code's panel. */
let onPanelSpoke: (() => void) | undefined;
/** Agents' writes sent to VS Code, by id, waiting for its answer. */
const pendingEdits = new Map<string, (result: EditResult) => void>();

/** Starts listening to the panel; `composer` receives mentions. */
export function startBridge(composer: HTMLTextAreaElement, onPanel?: () => void): void {
  input = composer;
  onPanelSpoke = onPanel;
  if (window.parent === window) return;
  window.addEventListener("message", onParentMessage);
  // Leaving (a reload, New chat, the panel closing): VS Code must not apply what this page can no longer answer for.
  window.addEventListener("pagehide", withdrawEdits);
  // Capture: the composer's own keys (Enter, arrows) never match a chord, and the chord must not also type.
  document.addEventListener("keydown", onKey, true);
}

/** Tells VS Code the agent's name and the conversation's state (the view's title). */
export function reportAgent(name: string, state: string): void {
  lastAgent = { kind: "agent", name: name.slice(0, 120), state };
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
    if (typeof location?.path !== "string" || location.path === "") return [];
    const line = typeof location.line === "number" && Number.isSafeInteger(location.line) && location.line >= 1 ? location.line : undefined;
    const suffix = line ? `:${line}` : "";
    const title = `${location.path}${suffix}${window.parent === window ? "" : " (open in VS Code)"}`;
    const link = h("a", { class: "tool-location", href: "#", title }, ...revealBidi(`${shownPath(location.path)}${suffix}`));
    link.addEventListener("click", (event) => {
      event.preventDefault();
      request({ kind: "openFile", path: location.path, ...(line ? { line } : {}) });
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
export function withdrawEdits(): void {
  // Not answered here: the server already counts them as refused ("pageLeft", docs/panel.md).
  for (const id of pendingEdits.keys()) request({ kind: "withdrawEdit", id });
  pendingEdits.clear();
}

function request(body: Record<string, unknown>): void {
  toPanel({ type: REQUEST, request: body });
}

/** A message for the panel page itself (kept-transcript.ts); only once the panel has spoken, only to its origin. */
export function toPanel(message: Record<string, unknown>): void {
  if (parentOrigin) window.parent.postMessage(message, parentOrigin);
}

function onParentMessage(event: MessageEvent): void {
  if (event.source !== window.parent) return;
  // The panel speaks first (chords on load, focus, theme): requests go to that origin only.
  if (parentOrigin === undefined) {
    parentOrigin = event.origin;
    if (lastAgent) request(lastAgent);
    onPanelSpoke?.();
  }
  if (event.origin !== parentOrigin) return;
  const data = event.data as { type?: unknown; chords?: unknown; text?: unknown } | null;
  if (data?.type === CHORDS && Array.isArray(data.chords)) chords = new Set(data.chords.filter((chord): chord is string => typeof chord === "string"));
  else if (data?.type === MENTION && typeof data.text === "string") insertMention(panelMention(data.text.slice(0, 4096)));
  else if (data?.type === EDIT_RESULT) settleEdit(data as { id?: unknown; result?: unknown });
}

function settleEdit(data: { id?: unknown; result?: unknown }): void {
  const settle = typeof data.id === "string" ? pendingEdits.get(data.id) : undefined;
  if (!settle || !EDIT_RESULTS.includes(data.result as EditResult)) return;
  pendingEdits.delete(data.id as string);
  settle(data.result as EditResult);
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

/**
 * The panel's mention (`@path:N-M`, extension/src/selection-mention.ts)
 * written so that it reads back whole: quoted when the path has a space or a
 * colon (mention-syntax.ts).
 */
export function panelMention(text: string): string {
  const read = parseMentions(text);
  if (read.length === 1 && read[0]!.length === text.length) return text;
  const match = /^@(.+?)(?::(\d+)(?:-(\d+))?)?$/s.exec(text);
  if (!match) return text;
  return mentionText(match[1]!, match[2] === undefined ? undefined : Number(match[2]), match[3] === undefined ? undefined : Number(match[3]));
}

function insertMention(text: string): void {
  if (!input) return;
  const { selectionStart, selectionEnd, value } = input;
  const before = value.slice(0, selectionStart);
  const spaced = `${before && !/\s$/.test(before) ? " " : ""}${text} `;
  input.value = before + spaced + value.slice(selectionEnd);
  const caret = before.length + spaced.length;
  input.setSelectionRange(caret, caret);
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus();
}
