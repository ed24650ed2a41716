// The chat page: one websocket to the server (relative URL, so it works
// behind a path prefix), the conversation view, the toolbar (mode, cancel,
// new chat), the editor-context chip, and the theme the panel asks for.

import "./style.css"; // bundled into page.css beside page.js
import { Composer } from "./composer.js";
import { h, warmUpMarkdown } from "./dom.js";
import {
  MAX_PAGE_MESSAGE_BYTES,
  QUERY,
  type AgentChoice,
  type ContextChip,
  type EndedInfo,
  type PageMessage,
  type ServerMessage,
  type SessionInfo,
} from "./protocol.js";
import { CHAT_MESSAGE, isTheme, parseToChat, type ChatTheme, type FromChat } from "../../webview/src/panel-messages.js";
import { TranscriptView } from "./render.js";
import { ConfigPickers } from "./pickers.js";
import { HistoryPanel } from "./history-panel.js";
import { applyEdit, inEditor, reportAgent, startBridge, toPanel, withdrawEdits } from "./bridge.js";
import { AgentPicker } from "./agent-picker.js";
import { setProjectDir } from "./project-path.js";
import { KeptTranscript } from "./kept-transcript.js";
import { ElicitationCards } from "./elicitation-card.js";
import { UsageMeter } from "./usage-meter.js";
import { MessageQueue } from "./message-queue.js";
import { attentionRequest } from "./attention.js";
import { ImageAttachments } from "./image-attachments.js";
import { AgentSessionList } from "./agent-session-list.js";

const params = new URLSearchParams(location.search);
const app = document.getElementById("app")!;
let session: SessionInfo = { state: "starting", modes: [], commands: [] };
let socket: WebSocket | undefined;
let chip: ContextChip | null = null;
let named = params.has(QUERY.conversation);
/** The agent the picker just switched to: said once this new conversation is shown. */
let newAgentNotice = params.get(QUERY.newAgent);
if (newAgentNotice !== null) {
  params.delete(QUERY.newAgent); // said once: a reload does not say it again
  window.history.replaceState(null, "", `?${params.toString()}`);
}
/** The last agent list the server sent (the picker shows it again when the running agent's name arrives). */
let agentList: { agents: AgentChoice[]; current?: string } | undefined;
/** Set once this page is leaving for another conversation: its socket's close is no lost connection. */
let leaving = false;
/** Where the composer's text waits while the page loads another conversation (sessionStorage, per conversation). */
const DRAFT_KEY = "symposium/draft/";

const status = h("span", { id: "status", role: "status" }, "Connecting…");
const modeSelect = h("select", { id: "mode", "aria-label": "Mode", hidden: "" });
const cancelButton = h("button", { id: "cancel", title: "Cancel the turn (Escape)", hidden: "" }, "Cancel");
const newChatButton = h("button", { id: "new-chat", title: "Start a new conversation" }, "New chat");
const signOutButton = h("button", { id: "sign-out", title: "Sign out of the agent (it forgets its sign-in)", hidden: "" }, "Sign out");
const sendButton = h("button", { id: "send", class: "primary", title: "Send (Enter)" }, "Send");
const transcriptElement = h("main", { id: "transcript", "aria-live": "polite" });
const banner = h("div", { id: "banner", role: "alert", hidden: "" });
const chipLabel = h("span", { class: "chip-label", tabindex: "0" });
const chipBlock = h("pre", { class: "chip-block", role: "tooltip" });
const chipToggle = h("input", { type: "checkbox", id: "context-toggle", checked: "" });
const chipRow = h(
  "div",
  { id: "context-chip", hidden: "" },
  h("span", { class: "chip" }, chipLabel, chipBlock),
  h("label", { for: "context-toggle", title: "Attach the editor context to the next prompt" }, chipToggle, " attach"),
);
/** The panel keeps a copy to show at once after a window reload (kept-transcript.ts). */
const kept = new KeptTranscript(transcriptElement);
const view = new TranscriptView(transcriptElement, (id, optionId) => send({ type: "permission", id, optionId }), {
  authenticate: (signInId, methodId) => send({ type: "authenticate", signInId, methodId }),
  resend: (text) => void sendPrompt(text),
  retry: newChat,
});
const elicitations = new ElicitationCards(transcriptElement, (answer) => send({ type: "elicitation", ...answer }));
const usageMeter = new UsageMeter();
const queue = new MessageQueue((text) => sendPrompt(text) === null);
const pickers = new ConfigPickers((configId, value) => send({ type: "setConfigOption", configId, value }));
const agentSessions = new AgentSessionList(
  { list: (cursor) => send({ type: "listAgentSessions", ...(cursor ? { cursor } : {}) }), open: reopenAgentSession },
  () => session.agentSessionId,
);
const history = new HistoryPanel(
  {
    list: () => {
      send({ type: "listHistory" });
      agentSessions.start(session.agentSessions === true);
    },
    open: reopen,
    remove: (id) => send({ type: "deleteHistory", id }),
  },
  () => session.historyId,
  agentSessions.element,
);
const composer = new Composer({ send: sendPrompt, listFiles: () => send({ type: "listFiles" }) });
const attachments = new ImageAttachments((message) => composer.showNotice(message));
restoreDraft();
window.addEventListener("pagehide", () => keepDraft(params.get(QUERY.conversation))); // a reload keeps the text too
const agentPicker = new AgentPicker((agent) => {
  setStatus(`Switching to ${agent.name}…`);
  send({ type: "chooseAgent", id: agent.id });
});

app.append(
  h(
    "header",
    {},
    h("strong", { id: "title" }, app.dataset.title ?? "Symposium"),
    status,
    usageMeter.element,
    h("span", { class: "spacer" }),
    agentPicker.element,
    modeSelect,
    pickers.element,
    history.button,
    signOutButton,
    newChatButton,
  ),
  banner,
  history.element,
  transcriptElement,
  h(
    "footer",
    {},
    chipRow,
    composer.menu,
    composer.notice,
    h("div", { class: "composer" }, composer.input, h("div", { class: "actions" }, sendButton, cancelButton)),
    attachments.element,
    queue.element,
  ),
);

sendButton.addEventListener("click", () => composer.submit());
cancelButton.addEventListener("click", () => {
  queue.hold();
  send({ type: "cancel" });
});
newChatButton.addEventListener("click", newChat);
signOutButton.addEventListener("click", () => send({ type: "logout" }));
modeSelect.addEventListener("change", () => send({ type: "setMode", modeId: modeSelect.value }));
chipToggle.addEventListener("change", () => chipRow.classList.toggle("skipped", !chipToggle.checked));

applyTheme(params.get(QUERY.theme));
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const message = parseToChat(event.data);
  if (message?.type === CHAT_MESSAGE.theme) applyTheme(message.theme);
  else if (message?.type === CHAT_MESSAGE.focus) composer.input.focus();
});
window.addEventListener("focus", () => composer.input.focus());
startBridge(composer.input, () => {
  announceEditor();
  kept.panelSpoke();
}); // VS Code's chords, Open diff, mentions, agents' writes (bridge.ts)
// Escape cancels the turn wherever the focus is (a permission button, say).
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !event.defaultPrevented && session.state === "prompting") {
    queue.hold();
    send({ type: "cancel" });
  }
});
connect();
// While the agent starts: the first answer then renders warm.
setTimeout(warmUpMarkdown, 0);
// Only when the page has the keys already: inside VS Code's panel, focusing on
// load would take them from the editor the user went back to while we loaded.
if (document.hasFocus()) composer.input.focus();

function connect(): void {
  const url = new URL(`ws?${wsQuery()}`, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  socket = ws;
  ws.addEventListener("open", announceEditor);
  ws.addEventListener("message", (event) => receive(String(event.data)));
  ws.addEventListener("close", () => {
    if (socket !== ws) return;
    withdrawEdits(); // the server refused what it offered here: VS Code must not apply it later
    if (leaving) return; // leaving for another conversation: no red banner flashing meanwhile
    showBanner(session.state === "ended" ? null : "The connection to the chat server was lost.", "reconnect");
    showSession(); // Send goes off, saying why
    setStatus("Disconnected");
  });
}

function wsQuery(): string {
  const query = new URLSearchParams({ [QUERY.token]: params.get(QUERY.token) ?? "" });
  const conversation = params.get(QUERY.conversation);
  if (conversation) query.set(QUERY.conversation, conversation);
  const reopening = params.get(QUERY.reopen);
  if (reopening) query.set(QUERY.reopen, reopening);
  const reopeningAgent = params.get(QUERY.reopenAgent);
  if (reopeningAgent) query.set(QUERY.reopenAgent, reopeningAgent);
  return query.toString();
}

function receive(data: string): void {
  let message: ServerMessage;
  try {
    message = JSON.parse(data) as ServerMessage;
  } catch (error) {
    return console.error("symposium: a frame from the chat server is not JSON:", error);
  }
  apply(message);
}

/** One server message; one that fails is logged and the messages after it still apply. */
function apply(message: ServerMessage): void {
  try {
    onMessage(message);
  } catch (error) {
    console.error("symposium: a message from the chat server could not be applied:", error);
  }
}

function onMessage(message: ServerMessage): void {
  switch (message.type) {
    case "hello":
      named = message.named;
      document.title = message.title;
      composer.projectDir = message.projectDir;
      setProjectDir(message.projectDir); // paths in tool calls show relative to it (project-path.ts)
      return;
    case "replay":
      view.clear();
      elicitations.clear();
      message.events.forEach((event) => elicitations.add(event) || view.add(event));
      if (newAgentNotice !== null) view.add({ kind: "notice", message: `New conversation with ${newAgentNotice}` });
      newAgentNotice = null;
      kept.shown();
      return;
    case "event":
      queue.onEvent(message.event);
      tellPanel(attentionRequest(message.event, queue.size, params.get(QUERY.conversation) ?? session.historyId ?? ""));
      return void (elicitations.add(message.event) || view.add(message.event));
    case "session":
      return updateSession(message.session);
    case "context":
      return updateChip(message.chip);
    case "history":
      return history.show(message.entries);
    case "agentSessions":
      return agentSessions.show(message);
    case "files":
      return composer.setFiles(message.files);
    case "agents":
      agentList = message;
      agentPicker.show(message.agents, message.current, session.agentName);
      // A failed start's banner drawn before the list came offers "Choose another agent" now.
      if (session.ended?.startFailed) showEnded(session.ended);
      return showSession(); // the header names the agent as the list does
    case "agentChoice":
      return agentChosen(message);
    case "applyEdit":
      void applyEdit(message).then((result) => send({ type: "editResult", id: message.id, result }));
      return;
    case "batch":
      // Each on its own: a message that fails must not cost the rest (the turn's end, Send coming back).
      return message.messages.forEach(apply);
  }
}

function updateSession(next: SessionInfo): void {
  const previousName = session.agentName;
  session = next;
  showSession();
  composer.setCommands(next.commands);
  modeSelect.hidden = next.modes.length === 0;
  modeSelect.replaceChildren(...next.modes.map((mode) => h("option", { value: mode.id, ...(mode.description ? { title: mode.description } : {}) }, mode.name)));
  if (next.currentModeId) modeSelect.value = next.currentModeId;
  pickers.update(next.configOptions);
  usageMeter.show(next.usage);
  attachments.accepts = next.imagePrompts === true;
  signOutButton.hidden = next.canLogout !== true || next.state === "ended";
  queue.onState(next.state);
  if (agentList && next.agentName !== previousName) agentPicker.show(agentList.agents, agentList.current, next.agentName);
  if (next.ended) showEnded(next.ended);
}

/** The status line and Send: the agent by the list's name, what it is doing, and why Send is off whenever it is. */
function showSession(): void {
  const word = stateWord(session);
  const name = agentName();
  setStatus(`${name ? `${name} · ` : ""}${word}`);
  reportAgent(name ?? "", word);
  document.body.dataset.state = session.state;
  cancelButton.hidden = session.state !== "prompting";
  // The composer stays editable whatever happens: text typed now is sent later, or kept across a switch.
  const reason = notSendable();
  sendButton.disabled = reason !== null;
  sendButton.title = reason ?? "Send (Enter)";
}

function stateWord(info: SessionInfo): string {
  if (info.state === "starting")
    return info.waitingFor === "signIn" ? "Sign in to start" : info.installing ? `Installing ${info.installing}…` : "Starting the agent…";
  if (info.state === "ended") return info.ended?.startFailed ? "Did not start" : info.ended?.readOnly ? "Read-only" : "Ended";
  return info.state === "ready" ? "Ready" : "Answering…";
}

/** The agent's one name: the picker's entry for the agent this conversation runs, else what the agent calls itself. */
function agentName(): string | undefined {
  const current = agentList?.current === undefined ? undefined : agentList.agents.find((agent) => agent.id === agentList!.current);
  return current?.name ?? session.agentName;
}

/** Why a prompt cannot be sent now (null: it can), said where Send is off and when Enter is pressed. */
function notSendable(): string | null {
  const kept = "your text stays here.";
  if (socket?.readyState !== WebSocket.OPEN && !leaving) return `Not sent: the chat is not connected to its server; ${kept}`;
  switch (session.state) {
    case "ready":
      return null;
    case "starting":
      return session.waitingFor === "signIn"
        ? `Not sent: the agent asks you to sign in first (the card above); ${kept}`
        : `Not sent yet: the agent is still starting; ${kept}`;
    case "prompting":
      return null; // queued, sent when the turn ends (message-queue.ts)
    case "ended":
      if (session.ended?.startFailed) return `Not sent: the agent did not start. Retry, or choose another agent (above); ${kept}`;
      if (session.ended?.readOnly) return `Not sent: this is a kept transcript, read-only. Continue in a new session (above); ${kept}`;
      return `Not sent: this conversation has ended. New chat starts another; ${kept}`;
  }
}

function updateChip(next: ContextChip | null): void {
  chip = next;
  chipRow.hidden = next === null;
  chipLabel.textContent = next?.label ?? "";
  chipBlock.textContent = next?.block ?? "";
}

function showEnded(ended: EndedInfo): void {
  if (!ended.startFailed) return showBanner(ended.message, ended.readOnly ? "readOnly" : "ended", ended.stderrTail);
  showBanner(ended.message, "startFailed", ended.stderrTail, ended.detail ?? []);
}

/**
 * The banner above the conversation: what happened, the agent's own words
 * (its explanation, its last stderr lines) and what to do next: reconnect,
 * a new chat, or, for an agent that did not start, Retry and another agent.
 */
function showBanner(message: string | null, kind: "reconnect" | "ended" | "readOnly" | "startFailed", stderrTail: string[] = [], detail: string[] = []): void {
  if (message === null) return;
  const button = (id: string, label: string, action: () => void, primary = false): HTMLElement => {
    const element = h("button", { id, ...(primary ? { class: "primary" } : {}) }, label);
    element.addEventListener("click", action);
    return element;
  };
  const actions =
    kind === "reconnect"
      ? [button("reconnect", "Reconnect", () => location.reload())]
      : kind === "startFailed"
        ? [
            button("banner-retry", "Retry", newChat, true),
            ...(agentList && agentList.agents.length > 0 ? [button("banner-choose-agent", "Choose another agent", () => agentPicker.open())] : []),
          ]
        : [button("banner-new-chat", kind === "readOnly" ? "Continue in a new session" : "New chat", newChat, true)];
  banner.classList.toggle("read-only", kind === "readOnly");
  const explanation = detail.length > 0 ? [h("pre", { class: "agent-detail" }, detail.join("\n"))] : [];
  const tail =
    stderrTail.length > 0 ? [h("div", { class: "meta" }, "Last lines of the agent's stderr:"), h("pre", { class: "stderr-tail" }, stderrTail.join("\n"))] : [];
  // What to do comes right under what happened; the agent's own words follow, however long they are.
  const said = explanation.length + tail.length > 0 ? [h("details", { open: "" }, h("summary", {}, "What the agent said"), ...explanation, ...tail)] : [];
  banner.replaceChildren(h("div", { class: "banner-message" }, message), h("div", { class: "actions" }, ...actions), ...said);
  banner.hidden = false;
}

/** The server saved the picker's choice: a new conversation runs that agent (this one stays in the history). */
function agentChosen(answer: { ok: boolean; name?: string; message?: string }): void {
  if (answer.ok) {
    params.set(QUERY.newAgent, answer.name ?? "the chosen agent");
    return switchConversation(undefined);
  }
  agentPicker.reset();
  updateSession(session);
  view.add({ kind: "error", message: `The agent was not changed: ${answer.message ?? "the server refused it"}` });
}

function newChat(): void {
  switchConversation(undefined);
}

/** Reopens a kept conversation (history.ts on the server): a new conversation, in this page, that loads it. */
function reopen(historyId: string): void {
  switchConversation(historyId);
}

/** Continues one of the agent's own sessions (History's `session/list` part) in a new conversation. */
function reopenAgentSession(agentSessionId: string): void {
  switchConversation(undefined, agentSessionId);
}

/** Leaves this conversation for a new one (reopening `historyId` or the agent's session, if given); an unnamed one ends with its page, as in Toad. */
function switchConversation(historyId: string | undefined, agentSessionId?: string): void {
  leaving = true;
  if (historyId === undefined) params.delete(QUERY.reopen);
  else params.set(QUERY.reopen, historyId);
  if (agentSessionId === undefined) params.delete(QUERY.reopenAgent);
  else params.set(QUERY.reopenAgent, agentSessionId);
  if (!named) {
    keepDraft(null);
    return location.replace(`?${params.toString()}`);
  }
  send({ type: "end" });
  const id = randomId();
  keepDraft(id);
  toPanel({ type: CHAT_MESSAGE.conversation, conversation: id });
  params.set(QUERY.conversation, id);
  location.replace(`?${params.toString()}`);
}

/** Sends a prompt and shows it at once (the server's copy confirms it), or queues it while the agent answers; else why it cannot be taken now. */
function sendPrompt(text: string): string | null {
  const refused = notSendable();
  if (refused !== null) return refused;
  const images = attachments.images();
  if (session.state === "prompting") {
    if (images.length > 0) return "Not queued: images go with a message sent once the agent is ready; your text and images stay here.";
    return queue.add(text) ? null : "Not queued: the queue is full; your text stays here."; // sent when the turn ends (message-queue.ts)
  }
  if (promptBytes(text, images) > MAX_PAGE_MESSAGE_BYTES)
    return "Not sent: the text and the images together are over the chat's 4 MB message limit; remove an image or shorten the text.";
  const skipContext = chip !== null && !chipToggle.checked;
  view.addPending(text, skipContext, images.length);
  send({ type: "prompt", text, skipContext, ...(images.length > 0 ? { images } : {}) });
  attachments.clear();
  chipToggle.checked = true; // the skip is for one prompt only
  chipRow.classList.remove("skipped");
  return null;
}

/** The prompt message's size as the server counts it (UTF-8 bytes of its JSON), near enough: base64 is ASCII. */
function promptBytes(text: string, images: Array<{ data: string }>): number {
  return new TextEncoder().encode(JSON.stringify(text)).length + images.reduce((sum, image) => sum + image.data.length + 64, 0) + 1024;
}

/** Keeps the composer's text for the page that shows conversation `id` next (null: an unnamed one). */
function keepDraft(id: string | null): void {
  const text = composer.input.value;
  try {
    if (text.trim() === "") sessionStorage.removeItem(DRAFT_KEY + (id ?? ""));
    else sessionStorage.setItem(DRAFT_KEY + (id ?? ""), text);
  } catch {
    // No storage (a sandboxed frame): the text is lost on a switch, as before.
  }
}

function restoreDraft(): void {
  const key = DRAFT_KEY + (params.get(QUERY.conversation) ?? "");
  try {
    const text = sessionStorage.getItem(key);
    sessionStorage.removeItem(key);
    if (text !== null && composer.input.value === "") composer.input.value = text;
  } catch {
    // As above.
  }
}

/** Tells the server this page is in VS Code's panel: it offers agents' writes here (webchat/src/workspace-edits.ts). */
function announceEditor(): void {
  if (inEditor()) send({ type: "inEditor" });
}

/** The agent is done or waits (attention.ts): VS Code notifies while the chat is out of view (nothing outside VS Code). */
function tellPanel(message: FromChat | null): void {
  if (message) toPanel(message);
}

function send(message: PageMessage): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function setStatus(text: string): void {
  status.textContent = text;
}

function applyTheme(theme: unknown): void {
  const chosen: ChatTheme = isTheme(theme) ? theme : matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.body.dataset.theme = chosen;
  // New chat, History, an agent switch and a reload build their URL from params: they keep this theme.
  if (isTheme(theme) && params.get(QUERY.theme) !== theme) {
    params.set(QUERY.theme, chosen);
    window.history.replaceState(null, "", `?${params.toString()}`);
  }
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
