// The state of one chat tab (conversation-tab.ts is its view, tab-connection.ts
// its socket): what the tab knows of its conversation, changed only by
// `reduce(state, input)`, which takes a server message or what the user or the
// socket did and returns the next state and the effects for the view to apply
// (draw this, send that). No DOM, no socket: the unit tests run it in Node
// (test/unit/webchat/tab-state.test.ts), races included: a message sent before
// the server took the previous one queues; a tab shown before its replay keeps
// the panel's copy until the replay is in.

import {
  MAX_PAGE_MESSAGE_BYTES,
  type AgentChoice,
  type ContextChip,
  type EndedInfo,
  type PageMessage,
  type ServerMessage,
  type SessionInfo,
  type TranscriptEvent,
} from "./protocol.js";
import type { EditResult } from "../../webview/src/panel-messages.js";

/** More than this waiting is refused (the composer keeps the text). */
export const MAX_QUEUED = 50;
const MAX_LABEL_CHARS = 40;

/** Messages typed while the agent works, sent one at a time as each turn ends (message-queue.ts draws them). */
export interface QueueState {
  readonly items: readonly string[];
  /** After Stop or a failed turn: the queue waits for "Send queued" instead of going on by itself. */
  readonly held: boolean;
  /** Why the queue is held, said above it. */
  readonly heldBecause: string;
  /** The last turn ended: the next message may go once the agent is ready. */
  readonly turnEnded: boolean;
  readonly ended: boolean;
}

export interface TabState {
  /** The conversation's id (undefined: an unnamed one, which ends with its socket). */
  readonly conversation: string | undefined;
  readonly named: boolean;
  readonly session: SessionInfo;
  /** The server has sent the session at least once (until then the status says "Connecting…"). */
  readonly sessionHeard: boolean;
  /** The server's replay has arrived: the transcript is whole. */
  readonly replayed: boolean;
  readonly connected: boolean;
  /** Leaving its conversation: the socket's close is no lost connection. */
  readonly leaving: boolean;
  readonly agentList: { agents: AgentChoice[]; current?: string } | undefined;
  /** "New conversation with X", said once X has started. */
  readonly newAgentNotice: string | null;
  /** Said once after the replay (a fork says where it comes from). */
  readonly notice: string | undefined;
  /** The first message, short, for the tab's label. */
  readonly firstMessage: string | undefined;
  /**
   * A prompt sent that the server has not taken yet (its copy of the message and "prompting" come
   * a round trip later): until then a second message queues, as while the agent answers, instead
   * of reaching a server that would refuse it.
   */
  readonly promptInFlight: string | undefined;
  readonly queue: QueueState;
  /** Permissions and questions not answered yet (the strip marks the tab). */
  readonly open: readonly string[];
  /** Agents' writes handed to VS Code: withdrawn when the socket goes. */
  readonly edits: readonly string[];
  readonly chip: ContextChip | null;
  /** The context chip's "attach" box: off skips the context for one prompt. */
  readonly attachContext: boolean;
  /** A fork asked for and not answered; `draft`: the message to edit in it. */
  readonly forking: { draft: string | undefined } | undefined;
}

/** What opens a tab's state (TabInit's part the state needs). */
export interface TabStart {
  conversation?: string;
  newAgent?: string;
  notice?: string;
  send?: string;
}

export type UserAction =
  | { type: "socketOpen" }
  | { type: "socketClosed" }
  /** Send (or Enter, or the queue): `images` pasted or dropped. */
  | { type: "submit"; text: string; images: Array<{ mimeType: string; data: string }> }
  | { type: "cancel" }
  /** Escape anywhere in the tab on screen. */
  | { type: "escape" }
  | { type: "newChat" }
  | { type: "reopen"; historyId: string }
  | { type: "reopenAgent"; agentSessionId: string }
  /** Fork; `text`: a message to edit and send again in the fork. */
  | { type: "fork"; text?: string }
  | { type: "leave" }
  | { type: "chooseAgent"; id: string; name: string }
  | { type: "attachContext"; checked: boolean }
  | { type: "editDone"; id: string; result: EditResult }
  | { type: "queueEdit"; index: number; text: string }
  | { type: "queueRemove"; index: number }
  | { type: "queueResume" };

export type TabInput = ServerMessage | UserAction;

/** What the view does: each effect names one change to the page or one message to the server. */
export type TabEffect =
  | { kind: "send"; message: PageMessage }
  | { kind: "hello"; title: string; projectDir: string; maxConversations?: number }
  | { kind: "clearTranscript" }
  /** An event for the transcript (or an elicitation card). */
  | { kind: "show"; event: TranscriptEvent }
  /** The user's message shown at once, until the server's copy comes. */
  | { kind: "pending"; text: string; skipContext: boolean; images: number }
  /** A prompt went with the images attached: they were for it only. */
  | { kind: "imagesSent" }
  /** Why the composer's text was not taken (it stays there). */
  | { kind: "refused"; reason: string }
  | { kind: "composerNotice"; message: string }
  /** The replay is in: the panel's copy may become this tab's. */
  | { kind: "replayed" }
  /** A live event the user may want to be told of (attention.ts). */
  | { kind: "attention"; event: TranscriptEvent; queued: number; conversation: string }
  /** The session's controls: modes, pickers, usage, tools, sign out, fork. */
  | { kind: "drawSession" }
  /** The status line, the state marker, Cancel and Send. */
  | { kind: "drawStatus" }
  | { kind: "status"; text: string }
  | { kind: "drawQueue" }
  | { kind: "drawChip" }
  | { kind: "drawFork" }
  | { kind: "agentPicker" }
  /** The Extensions section's list, or what a change did (extensions-section.ts). */
  | { kind: "extensions"; message: Extract<ServerMessage, { type: "extensions" }> }
  | { kind: "resetAgentPicker" }
  | { kind: "banner"; banner: Banner }
  | { kind: "history"; message: Extract<ServerMessage, { type: "history" }> }
  | { kind: "agentSessions"; message: Extract<ServerMessage, { type: "agentSessions" }> }
  | { kind: "files"; files: string[] }
  | { kind: "applyEdit"; edit: Extract<ServerMessage, { type: "applyEdit" }> }
  | { kind: "withdrawEdits"; ids: string[] }
  /** Leave this conversation: end it and close the socket. */
  | { kind: "leave" }
  /** Open `next` in this tab's place (New chat, History, another agent); `named`: it gets a new id; the composer's text goes along. */
  | { kind: "replace"; next: NextConversation }
  /** Open `next` in a new tab beside this one (a fork). */
  | { kind: "openBeside"; next: NextConversation & { draft?: string } }
  /** The tab strip draws this tab again (label, state, waiting marker). */
  | { kind: "changed" };

export interface NextConversation {
  named: boolean;
  reopen?: string;
  reopenAgent?: string;
  newAgent?: string;
  notice?: string;
  fork?: boolean;
  send?: string;
}

export type Banner =
  | { kind: "reconnect"; message: string }
  | { kind: "ended" | "readOnly"; message: string; stderrTail: string[] }
  | { kind: "startFailed"; message: string; stderrTail: string[]; detail: string[]; chooseAgent: boolean };

export interface Reduced {
  state: TabState;
  effects: TabEffect[];
}

export function initialTabState(start: TabStart): TabState {
  const queue: QueueState = { items: [], held: false, heldBecause: "", turnEnded: false, ended: false };
  return {
    conversation: start.conversation,
    named: start.conversation !== undefined,
    session: { state: "starting", modes: [], commands: [] },
    sessionHeard: false,
    replayed: false,
    connected: false,
    leaving: false,
    agentList: undefined,
    newAgentNotice: start.newAgent ?? null,
    notice: start.notice,
    firstMessage: undefined,
    promptInFlight: undefined,
    // A message sent once the agent is ready (the first-run menu's question), queued in sight until then.
    queue: start.send === undefined ? queue : { ...queue, items: [start.send], turnEnded: true },
    open: [],
    edits: [],
    chip: null,
    attachContext: true,
    forking: undefined,
  };
}

/** The working copy one input changes, and the effects it asks for, in order. */
interface Step {
  s: Mutable<TabState>;
  effects: TabEffect[];
}
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The next state and what the view does for one server message or user action; `state` is not changed. */
export function reduce(state: TabState, input: TabInput): Reduced {
  const step: Step = { s: { ...state }, effects: [] };
  if (isServerMessage(input)) onServerMessage(step, input);
  else onUserAction(step, input);
  return { state: step.s, effects: step.effects };
}

function isServerMessage(input: TabInput): input is ServerMessage {
  return SERVER_TYPES.has(input.type);
}
const SERVER_TYPES = new Set<string>([
  "hello",
  "replay",
  "forked",
  "event",
  "session",
  "context",
  "history",
  "agentSessions",
  "files",
  "agents",
  "agentChoice",
  "extensions",
  "batch",
  "applyEdit",
] satisfies Array<ServerMessage["type"]>);

function onServerMessage(step: Step, message: ServerMessage): void {
  const { s, effects } = step;
  switch (message.type) {
    case "hello":
      s.named = message.named;
      return void effects.push({
        kind: "hello",
        title: message.title,
        projectDir: message.projectDir,
        ...(message.maxConversations !== undefined ? { maxConversations: message.maxConversations } : {}),
      });
    case "replay":
      return onReplay(step, message.events);
    case "event":
      return onEvent(step, message.event);
    case "session":
      return onSession(step, message.session);
    case "context":
      s.chip = message.chip;
      return void effects.push({ kind: "drawChip" });
    case "history":
      return void effects.push({ kind: "history", message });
    case "agentSessions":
      return void effects.push({ kind: "agentSessions", message });
    case "files":
      return void effects.push({ kind: "files", files: message.files });
    case "agents":
      return onAgents(step, message);
    case "agentChoice":
      return onAgentChoice(step, message);
    case "extensions":
      return void effects.push({ kind: "extensions", message });
    case "forked":
      return onForked(step, message);
    case "applyEdit":
      s.edits = [...s.edits, message.id];
      return void effects.push({ kind: "applyEdit", edit: message });
    case "batch":
      return message.messages.forEach((inner) => onServerMessage(step, inner));
  }
}

function onReplay(step: Step, events: TranscriptEvent[]): void {
  const { s, effects } = step;
  s.promptInFlight = undefined; // a reconnect: the replay shows whether the server took it
  s.open = [];
  s.firstMessage = undefined;
  effects.push({ kind: "clearTranscript" });
  events.forEach((event) => showEvent(step, event));
  s.replayed = true;
  newAgentNotice(step);
  if (s.notice !== undefined) effects.push({ kind: "show", event: { kind: "notice", message: s.notice } });
  effects.push({ kind: "replayed" }, { kind: "changed" });
}

function onEvent(step: Step, event: TranscriptEvent): void {
  promptSettled(step, event);
  // A turn that ended lets the next queued message go; one that failed holds them.
  if (event.kind === "turnEnd") step.s.queue = { ...step.s.queue, turnEnded: true };
  else if (event.kind === "error") holdQueue(step, "The last turn failed: the queued messages wait.");
  step.effects.push({ kind: "attention", event, queued: step.s.queue.items.length, conversation: step.s.conversation ?? step.s.session.historyId ?? "" });
  showEvent(step, event);
  step.effects.push({ kind: "changed" });
}

function showEvent(step: Step, event: TranscriptEvent): void {
  const s = step.s;
  if (event.kind === "user" && s.firstMessage === undefined) s.firstMessage = shortLabel(event.text);
  if (event.kind === "permission" || event.kind === "elicitation") s.open = [...s.open.filter((id) => id !== event.id), event.id];
  if (event.kind === "permissionDone" || event.kind === "elicitationDone") s.open = s.open.filter((id) => id !== event.id);
  if (event.kind === "turnEnd") s.open = []; // what the turn asked is moot once it has ended
  step.effects.push({ kind: "show", event });
}

/** The server's answer to the prompt in flight: it took it (its copy of the message), refused it (queued again: nothing typed is lost), or failed it. */
function promptSettled(step: Step, event: TranscriptEvent): void {
  const s = step.s;
  if (s.promptInFlight === undefined) return;
  if (event.kind === "notice" && event.promptRefused === true) sendOnceReady(step, s.promptInFlight);
  // Another surface's message on the same conversation is not this one's.
  else if (!(event.kind === "user" && event.text === s.promptInFlight) && event.kind !== "error") return;
  s.promptInFlight = undefined;
}

function onSession(step: Step, next: SessionInfo): void {
  const { s, effects } = step;
  const previousName = s.session.agentName;
  s.session = next;
  s.sessionHeard = true;
  if (next.state === "ended") s.promptInFlight = undefined;
  effects.push({ kind: "drawStatus" }, { kind: "drawSession" });
  queueOnState(step);
  if (s.agentList && next.agentName !== previousName) effects.push({ kind: "agentPicker" });
  if (next.ended) showEnded(step, next.ended);
  if (s.replayed) newAgentNotice(step);
  if (next.state !== "prompting" && next.state !== "starting") s.open = [];
  effects.push({ kind: "changed" });
}

function onAgents(step: Step, message: Extract<ServerMessage, { type: "agents" }>): void {
  const { s, effects } = step;
  s.agentList = { agents: message.agents, ...(message.current !== undefined ? { current: message.current } : {}) };
  effects.push({ kind: "agentPicker" });
  // A failed start's banner drawn before the list came offers "Choose another agent" now.
  if (s.session.ended?.startFailed) showEnded(step, s.session.ended);
  effects.push({ kind: "drawStatus" }, { kind: "changed" }); // the header and a new tab's label name the agent as the list does
}

/** The server saved the picker's choice: a new conversation runs that agent (this one stays in the history). */
function onAgentChoice(step: Step, answer: Extract<ServerMessage, { type: "agentChoice" }>): void {
  if (answer.ok)
    return switchConversation(step, { newAgent: answer.name ?? "the chosen agent", ...(answer.firstQuestion ? { send: answer.firstQuestion } : {}) });
  step.effects.push({ kind: "resetAgentPicker" });
  onSession(step, step.s.session);
  step.effects.push({ kind: "show", event: { kind: "error", message: `The agent was not changed: ${answer.message ?? "the server refused it"}` } });
}

function onForked(step: Step, answer: Extract<ServerMessage, { type: "forked" }>): void {
  const { s, effects } = step;
  const text = s.forking?.draft;
  s.forking = undefined;
  effects.push({ kind: "drawFork" });
  if (answer.agentSessionId === undefined)
    return void effects.push({ kind: "show", event: { kind: "error", message: `The agent did not fork the conversation: ${answer.error ?? "no answer"}` } });
  const from = s.firstMessage ? `“${s.firstMessage}”` : "the conversation";
  const notice =
    text === undefined
      ? `Forked from ${from}.`
      : `Forked from ${from} to edit a message: the fork holds the whole conversation (the agent copies all of it); the message waits below to edit and send.`;
  effects.push({
    kind: "openBeside",
    next: {
      named: s.named,
      // Its entry in the history shows the conversation it continues; without a history, the agent's session alone.
      ...(answer.historyId !== undefined ? { reopen: answer.historyId } : { reopenAgent: answer.agentSessionId }),
      notice,
      fork: true,
      ...(text !== undefined ? { draft: text } : {}),
    },
  });
}

/**
 * "New conversation with X", once X has started (or asks to sign in first): never under X's own failure to
 * start, where it would read as if a conversation had begun.
 */
function newAgentNotice(step: Step): void {
  const s = step.s;
  if (s.newAgentNotice === null || (s.session.state === "starting" && s.session.waitingFor !== "signIn")) return;
  if (!s.session.ended?.startFailed) step.effects.push({ kind: "show", event: { kind: "notice", message: `New conversation with ${s.newAgentNotice}` } });
  s.newAgentNotice = null;
}

function showEnded(step: Step, ended: EndedInfo): void {
  const stderrTail = ended.stderrTail ?? [];
  const banner: Banner = ended.startFailed
    ? { kind: "startFailed", message: ended.message, stderrTail, detail: ended.detail ?? [], chooseAgent: (step.s.agentList?.agents.length ?? 0) > 0 }
    : { kind: ended.readOnly ? "readOnly" : "ended", message: ended.message, stderrTail };
  step.effects.push({ kind: "banner", banner });
}

function onUserAction(step: Step, action: UserAction): void {
  const { s, effects } = step;
  switch (action.type) {
    case "socketOpen":
      s.connected = true;
      return;
    case "socketClosed":
      return socketClosed(step);
    case "submit":
      return submit(step, action.text, action.images);
    case "cancel":
      return cancelTurn(step);
    case "escape":
      if (s.session.state === "prompting") cancelTurn(step);
      return;
    case "newChat":
      return switchConversation(step, {});
    case "reopen":
      return switchConversation(step, { reopen: action.historyId });
    case "reopenAgent":
      return switchConversation(step, { reopenAgent: action.agentSessionId });
    case "fork":
      return fork(step, action.text);
    case "leave":
      return leave(step);
    case "chooseAgent":
      return void effects.push({ kind: "status", text: `Switching to ${action.name}…` }, { kind: "send", message: { type: "chooseAgent", id: action.id } });
    case "attachContext":
      s.attachContext = action.checked;
      return void effects.push({ kind: "drawChip" });
    case "editDone":
      s.edits = s.edits.filter((id) => id !== action.id);
      return void effects.push({ kind: "send", message: { type: "editResult", id: action.id, result: action.result } });
    default:
      return onQueueAction(step, action);
  }
}

function socketClosed(step: Step): void {
  const { s, effects } = step;
  s.connected = false;
  // The server refused what it offered here: VS Code must not apply it later.
  if (s.edits.length > 0) effects.push({ kind: "withdrawEdits", ids: [...s.edits] });
  s.edits = [];
  if (s.leaving) return; // leaving for another conversation: no red banner flashing meanwhile
  if (s.session.state !== "ended") effects.push({ kind: "banner", banner: { kind: "reconnect", message: "The connection to the chat server was lost." } });
  effects.push({ kind: "drawStatus" }, { kind: "status", text: "Disconnected" }); // Send goes off, saying why
}

/** Sends a prompt and shows it at once (the server's copy confirms it), or queues it while the agent answers; else why it cannot be taken now. */
function submit(step: Step, text: string, images: Array<{ mimeType: string; data: string }>): void {
  const { s, effects } = step;
  const refused = notSendable(s);
  if (refused !== null) return void effects.push({ kind: "refused", reason: refused });
  if (s.session.state === "prompting" || s.promptInFlight !== undefined) {
    if (images.length > 0)
      return void effects.push({
        kind: "refused",
        reason: "Not queued: images go with a message sent once the agent is ready; your text and images stay here.",
      });
    if (!addToQueue(step, text)) effects.push({ kind: "refused", reason: "Not queued: the queue is full; your text stays here." });
    return;
  }
  if (promptBytes(text, images) > MAX_PAGE_MESSAGE_BYTES)
    return void effects.push({
      kind: "refused",
      reason: "Not sent: the text and the images together are over the chat's 4 MB message limit; remove an image or shorten the text.",
    });
  const skipContext = s.chip !== null && !s.attachContext;
  effects.push(
    { kind: "pending", text, skipContext, images: images.length },
    { kind: "send", message: { type: "prompt", text, skipContext, ...(images.length > 0 ? { images } : {}) } },
  );
  if (images.length > 0) effects.push({ kind: "imagesSent" });
  s.promptInFlight = text;
  s.attachContext = true; // the skip is for one prompt only
  effects.push({ kind: "drawChip" });
}

/** Why a prompt cannot be sent now (null: it can), said where Send is off and when Enter is pressed. */
export function notSendable(s: TabState): string | null {
  const kept = "your text stays here.";
  if (!s.connected && !s.leaving) return `Not sent: the chat is not connected to its server; ${kept}`;
  switch (s.session.state) {
    case "ready":
      return null;
    case "starting":
      return s.session.waitingFor === "signIn"
        ? `Not sent: the agent asks you to sign in first (the card above); ${kept}`
        : `Not sent yet: the agent is still starting; ${kept}`;
    case "prompting":
      return null; // queued, sent when the turn ends
    case "ended":
      if (s.session.ended?.startFailed) return `Not sent: the agent did not start. Retry, or choose another agent (above); ${kept}`;
      if (s.session.ended?.readOnly) return `Not sent: this is a kept transcript, read-only. Continue in a new session (above); ${kept}`;
      return `Not sent: this conversation has ended. New chat starts another; ${kept}`;
  }
}

function cancelTurn(step: Step): void {
  holdQueue(step, "Stopped: the queued messages wait.");
  step.effects.push({ kind: "send", message: { type: "cancel" } });
}

/**
 * Asks the agent for a fork of this conversation (`session/fork`); `text`: a message to edit
 * and send again in it. The draft forks the whole session (no point to cut at), so the fork
 * holds the conversation up to now and the message waits in the new tab's composer.
 */
function fork(step: Step, text: string | undefined): void {
  const { s, effects } = step;
  if (s.forking) return;
  if (s.session.state !== "ready")
    return void effects.push({ kind: "composerNotice", message: "Not forked: the agent is answering or not ready; fork once its turn has ended." });
  s.forking = { draft: text };
  effects.push({ kind: "drawFork" }, { kind: "send", message: { type: "fork" } });
}

/** Leaves this conversation for a new one in this tab. */
function switchConversation(step: Step, next: Omit<NextConversation, "named">): void {
  leave(step);
  step.effects.push({ kind: "replace", next: { ...next, named: step.s.named } });
}

/** Ends this conversation (a named one lives on the server until told; an unnamed one ends with its socket). */
function leave(step: Step): void {
  step.s.leaving = true;
  step.effects.push({ kind: "send", message: { type: "end" } }, { kind: "leave" });
}

function onQueueAction(step: Step, action: Extract<UserAction, { type: "queueEdit" | "queueRemove" | "queueResume" }>): void {
  const queue = step.s.queue;
  switch (action.type) {
    case "queueEdit":
      // The text area shows it already: nothing to draw.
      step.s.queue = { ...queue, items: queue.items.map((item, index) => (index === action.index ? action.text : item)) };
      return;
    case "queueRemove":
      setQueue(step, { ...queue, items: queue.items.filter((_, index) => index !== action.index) });
      return;
    case "queueResume":
      // The user says go: the agent is ready, or the next end of turn sends it.
      step.s.queue = { ...queue, held: false, turnEnded: true };
      sendNext(step);
      return void step.effects.push({ kind: "drawQueue" });
  }
}

/** Queues `text` (the agent is answering); false when the queue is full. */
function addToQueue(step: Step, text: string): boolean {
  const queue = step.s.queue;
  if (queue.items.length >= MAX_QUEUED) return false;
  setQueue(step, { ...queue, items: [...queue.items, text] });
  return true;
}

/** A message that goes as soon as the agent is ready, as if a turn had just ended. */
function sendOnceReady(step: Step, text: string): void {
  if (addToQueue(step, text)) step.s.queue = { ...step.s.queue, turnEnded: true };
}

/** Stop, or a failed turn: what is queued waits for the user. */
function holdQueue(step: Step, why: string): void {
  const queue = step.s.queue;
  setQueue(step, queue.items.length > 0 ? { ...queue, held: true, heldBecause: why } : queue);
}

/** The conversation's state changed: a turn that ended sends the next message, unless held or ended. */
function queueOnState(step: Step): void {
  const state = step.s.session.state;
  step.s.queue = { ...step.s.queue, ended: state === "ended" };
  if (state === "ready" && !step.s.queue.held && step.s.queue.turnEnded) sendNext(step);
  step.effects.push({ kind: "drawQueue" });
}

function sendNext(step: Step): void {
  const queue = step.s.queue;
  const next = queue.items[0];
  if (next === undefined) return;
  if (next.trim() === "") {
    step.s.queue = { ...queue, items: queue.items.slice(1) };
    return sendNext(step);
  }
  if (step.s.promptInFlight !== undefined) return;
  const before = step.effects.length;
  submit(step, next, []);
  if (step.effects.slice(before).some((effect) => effect.kind === "refused")) {
    step.effects.length = before; // not sent: it stays first in the queue, nothing said
    return;
  }
  step.s.queue = { ...step.s.queue, items: step.s.queue.items.slice(1), turnEnded: false };
}

function setQueue(step: Step, queue: QueueState): void {
  step.s.queue = queue.items.length === 0 ? { ...queue, held: false } : queue;
  step.effects.push({ kind: "drawQueue" });
}

/** The tab strip's label: the first message (marked in a fork), else the agent's name. */
export function tabLabel(s: TabState, fork: boolean): string {
  return fork ? `${s.firstMessage ?? "Chat"} (fork)` : (s.firstMessage ?? agentName(s) ?? "New chat");
}

/** The agent's one name: the picker's entry for the agent this conversation runs, else what the agent calls itself. */
export function agentName(s: TabState): string | undefined {
  const current = s.agentList?.current;
  return (current === undefined ? undefined : s.agentList?.agents.find((agent) => agent.id === current)?.name) ?? s.session.agentName;
}

/** "Claude Code · Ready": the status line and the strip's tooltip. */
export function statusLine(s: TabState): string {
  const name = agentName(s);
  return `${name ? `${name} · ` : ""}${stateWord(s.session)}`;
}

export function stateWord(info: SessionInfo): string {
  if (info.state === "starting")
    return info.waitingFor === "signIn" ? "Sign in to start" : info.installing ? `Installing ${info.installing}…` : "Starting the agent…";
  if (info.state === "ended") return info.ended?.startFailed ? "Did not start" : info.ended?.readOnly ? "Read-only" : "Ended";
  return info.state === "ready" ? "Ready" : "Answering…";
}

/** The prompt message's size as the server counts it (UTF-8 bytes of its JSON), near enough: base64 is ASCII. */
function promptBytes(text: string, images: Array<{ data: string }>): number {
  return new TextEncoder().encode(JSON.stringify(text)).length + images.reduce((sum, image) => sum + image.data.length + 64, 0) + 1024;
}

/** A message's first line, short enough for a tab. */
function shortLabel(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > MAX_LABEL_CHARS ? `${line.slice(0, MAX_LABEL_CHARS - 1)}…` : line || "New chat";
}
