// The chat page: a strip of tabs (tabs.ts), each one conversation with its
// own websocket to the server (conversation-tab.ts); the bridge to VS Code's
// panel and the theme the panel asks for are the page's, shared by the tabs.

import "./style.css"; // bundled into page.css beside page.js
import "./tabs.css";
import { h, warmUpMarkdown } from "./dom.js";
import { QUERY } from "./protocol.js";
import { CHAT_MESSAGE, isTheme, type ChatTheme } from "../../webview/src/panel-messages.js";
import { mentionTarget, startBridge, toPanel } from "./bridge.js";
import { openConversationTab, type ConversationTab, type TabInit } from "./conversation-tab.js";
import { TabStrip } from "./tabs.js";

const params = new URLSearchParams(location.search);
const app = document.getElementById("app")!;
/** The page was opened on a named conversation (VS Code's panel): its tabs are named too, so a reload comes back to them. */
const named = params.has(QUERY.conversation);
/** The open tabs and their drafts, kept across a reload of this frame (sessionStorage, this frame only). */
const TABS_KEY = "symposium/tabs";
/** The conversation VS Code's panel knows this page by. */
let panelConversation = params.get(QUERY.conversation) ?? undefined;

interface KeptTab {
  conversation?: string;
  draft?: string;
  fork?: boolean;
}

const strip: TabStrip = new TabStrip({
  open: (init): ConversationTab =>
    openConversationTab(init, {
      token: params.get(QUERY.token) ?? "",
      isActive: (tab): boolean => strip.isActive(tab),
      replace: (tab, next) => strip.replace(tab, next),
      changed: () => strip.render(),
      serverLimit: (max) => strip.setLimit(max),
      newId: randomId,
      openBeside: (next) => strip.openTab(next),
    }),
  blank: () => (named ? { conversation: randomId() } : {}),
  activated: tabShown,
  listChanged: () => {
    keepTabs();
    keepPanelOnATab();
  },
});
app.append(strip.element, strip.panes);
openFirstTabs();
window.addEventListener("pagehide", keepTabs); // a reload keeps the tabs and their text

applyTheme(params.get(QUERY.theme));
window.addEventListener("focus", () => strip.active?.focusComposer());
// The panel's messages (bridge.ts): VS Code's chords, Open diff, mentions, agents' writes, the theme and focus;
// mentions go to the tab on screen.
startBridge(h("textarea"), {
  panelSpoke: () => strip.tabs.forEach((tab) => tab.panelSpoke()),
  theme: applyTheme,
  focus: () => strip.active?.focusComposer(),
});
if (strip.active) mentionTarget(strip.active.input);
// While the agent starts: the first answer then renders warm.
setTimeout(warmUpMarkdown, 0);
// Only when the page has the keys already: inside VS Code's panel, focusing on
// load would take them from the editor the user went back to while we loaded.
if (document.hasFocus()) strip.active?.focusComposer();

/** The tabs kept before a reload when they include the conversation the URL names; else one tab from the URL. */
function openFirstTabs(): void {
  const first: TabInit = {
    ...(named ? { conversation: params.get(QUERY.conversation)! } : {}),
    ...optional("reopen", params.get(QUERY.reopen)),
    ...optional("reopenAgent", params.get(QUERY.reopenAgent)),
    ...optional("newAgent", params.get(QUERY.newAgent)),
  };
  if (params.has(QUERY.newAgent)) {
    params.delete(QUERY.newAgent); // said once: a reload does not say it again
    window.history.replaceState(null, "", `?${params.toString()}`);
  }
  const kept = keptTabs();
  const here = kept.findIndex((tab) => tab.conversation === first.conversation);
  if (here < 0) {
    strip.add(first);
    return;
  }
  kept.forEach((tab, index) =>
    strip.add(index === here ? { ...first, ...optional("draft", tab.draft), ...(tab.fork ? { fork: true } : {}) } : tabInit(tab), false),
  );
  strip.show(strip.tabs[here]!);
}

function tabInit(tab: KeptTab): TabInit {
  // A named conversation is attached again; an unnamed one ended with the page: a new one takes its text.
  return { ...(named ? { conversation: tab.conversation ?? randomId() } : {}), ...optional("draft", tab.draft), ...(tab.fork ? { fork: true } : {}) };
}

function keptTabs(): KeptTab[] {
  try {
    const kept: unknown = JSON.parse(sessionStorage.getItem(TABS_KEY) ?? "[]");
    if (!Array.isArray(kept)) return [];
    return kept.flatMap((each: { conversation?: unknown; draft?: unknown; fork?: unknown }) => [
      {
        ...optional("conversation", typeof each?.conversation === "string" ? each.conversation : null),
        ...optional("draft", typeof each?.draft === "string" ? each.draft : null),
        ...(each?.fork === true ? { fork: true } : {}),
      },
    ]);
  } catch {
    return []; // no storage (a sandboxed frame) or a damaged entry: one tab, as before tabs
  }
}

function keepTabs(): void {
  const kept: KeptTab[] = strip.tabs.map((tab) => ({
    ...optional("conversation", tab.conversationId ?? null),
    ...optional("draft", tab.draft().trim() ? tab.draft() : null),
    ...(tab.init.fork ? { fork: true } : {}),
  }));
  try {
    sessionStorage.setItem(TABS_KEY, JSON.stringify(kept));
  } catch {
    // As above: the tabs are not kept across a reload.
  }
}

/** The tab on screen: the URL names its conversation (a reload opens it again), VS Code's panel returns to it after a reload, mentions go to its composer. */
function tabShown(tab: ConversationTab): void {
  mentionTarget(tab.input);
  const before = params.toString();
  const { conversation, reopen, reopenAgent } = tab.init;
  for (const [key, value] of [
    [QUERY.conversation, conversation],
    [QUERY.reopen, reopen],
    [QUERY.reopenAgent, reopenAgent],
  ] as const) {
    if (value === undefined) params.delete(key);
    else params.set(key, value);
  }
  if (params.toString() !== before) window.history.replaceState(null, "", `?${params.toString()}`);
  keepTabs();
}

/**
 * VS Code's panel opens the conversation it was last told of after a window
 * reload (and shows it in its other surface, reloading that one): it is told
 * only when that conversation is no longer among the tabs, not at each switch.
 */
function keepPanelOnATab(): void {
  const open = strip.tabs.map((tab) => tab.conversationId);
  const shown = strip.active?.conversationId;
  if (panelConversation !== undefined && open.includes(panelConversation)) return;
  if (shown === undefined) return;
  panelConversation = shown;
  toPanel({ type: CHAT_MESSAGE.conversation, conversation: shown });
}

function optional<K extends string>(key: K, value: string | null | undefined): Partial<Record<K, string>> {
  return (value ? { [key]: value } : {}) as Partial<Record<K, string>>;
}

function applyTheme(theme: unknown): void {
  const chosen: ChatTheme = isTheme(theme) ? theme : matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.body.dataset.theme = chosen;
  // New tabs and a reload build their URL from params: they keep this theme.
  if (isTheme(theme) && params.get(QUERY.theme) !== theme) {
    params.set(QUERY.theme, chosen);
    window.history.replaceState(null, "", `?${params.toString()}`);
  }
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
