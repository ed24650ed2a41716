// One conversation of the chat page (a tab, tabs.ts): its own websocket to
// the server and so its own agent session, its transcript, composer and
// draft, queue, images, pickers, History and banner. A hidden tab keeps all of
// it as it is: switching only shows another tab's element. "New chat",
// History and the agent picker replace this tab's conversation in place.

import { Composer } from "./composer.js";
import { h } from "./dom.js";
import {
  MAX_PAGE_MESSAGE_BYTES,
  QUERY,
  type AgentChoice,
  type ContextChip,
  type EndedInfo,
  type PageMessage,
  type ServerMessage,
  type SessionInfo,
  type TranscriptEvent,
} from "./protocol.js";
import type { FromChat } from "../../webview/src/panel-messages.js";
import { TranscriptView } from "./render.js";
import { ConfigPickers } from "./pickers.js";
import { HistoryPanel } from "./history-panel.js";
import { applyEdit, reportAgent, inEditor, toPanel, withdrawEdits } from "./bridge.js";
import { AgentPicker } from "./agent-picker.js";
import { ExtensionsSection } from "./extensions-section.js";
import { setProjectDir } from "./project-path.js";
import { KeptTranscript } from "./kept-transcript.js";
import { ElicitationCards } from "./elicitation-card.js";
import { UsageMeter } from "./usage-meter.js";
import { MessageQueue } from "./message-queue.js";
import { attentionRequest } from "./attention.js";
import { ImageAttachments } from "./image-attachments.js";
import { AgentSessionList } from "./agent-session-list.js";

/** What a tab opens: a conversation id (undefined: an unnamed one, which ends with its socket, as in Toad), and what to reopen in it. */
export interface TabInit {
  conversation?: string;
  reopen?: string;
  reopenAgent?: string;
  /** The agent the picker just switched to: said once the new conversation is shown. */
  newAgent?: string;
  /** Said once the conversation is shown (a fork says where it comes from). */
  notice?: string;
  /** The composer's text carried over (from the conversation this tab replaces, or a reload). */
  draft?: string;
  /** A fork of another conversation: its label says so (the first message is the same as the original's). */
  fork?: boolean;
  /** A message sent once the agent is ready (the question asked of the first-run menu), queued in sight until then. */
  send?: string;
}

/** What a tab needs from the page around it (main.ts). */
export interface TabShell {
  token: string;
  /** Whether this tab is the one on screen. */
  isActive(tab: ConversationTab): boolean;
  /** This tab leaves its conversation for another (New chat, History, another agent): the page opens `next` in its place. */
  replace(tab: ConversationTab, next: TabInit): void;
  /** The label, state or waiting marker changed: the tab strip draws it again. */
  changed(tab: ConversationTab): void;
  /** The server's limit of live conversations (its hello). */
  serverLimit(max: number): void;
  /** A new conversation id for a named tab. */
  newId(): string;
  /** Opens `next` in a new tab beside this one (a fork); false when the limit of conversations is reached (the strip says so). */
  openBeside(next: TabInit): boolean;
}

export interface ConversationTab {
  readonly element: HTMLElement;
  /** The composer (the panel's mentions go to the one on screen). */
  readonly input: HTMLTextAreaElement;
  readonly init: TabInit;
  /** The conversation's id (undefined: unnamed). */
  readonly conversationId: string | undefined;
  /** The strip's label: the conversation's first message (marked "(fork)" in a fork), else its agent's name ("New chat" before the agent is known). */
  label(): string;
  /** The agent's name and what it does, for the strip's tooltip. */
  status(): string;
  /** The agent is answering: closing asks first. */
  busy(): boolean;
  /** A permission or a question waits for the user here. */
  waiting(): boolean;
  /** Shown: tells VS Code this conversation's agent and state, takes mentions, keeps its copy. */
  shown(): void;
  focusComposer(): void;
  /** The composer's text (kept across a frame reload). */
  draft(): string;
  /** VS Code's panel has spoken (bridge.ts): the server may offer agents' writes here; the panel gets its copy. */
  panelSpoke(): void;
  /** Ends this tab's conversation and closes its socket. */
  close(): void;
}

const MAX_LABEL_CHARS = 40;

export function openConversationTab(init: TabInit, shell: TabShell): ConversationTab {
  let session: SessionInfo = { state: "starting", modes: [], commands: [] };
  let socket: WebSocket | undefined;
  let chip: ContextChip | null = null;
  let named = init.conversation !== undefined;
  let newAgentNotice = init.newAgent ?? null;
  let agentList: { agents: AgentChoice[]; current?: string } | undefined;
  /** Set once this tab is leaving its conversation: its socket's close is no lost connection. */
  let leaving = false;
  let firstMessage: string | undefined;
  /** The server's replay has arrived: this tab's transcript is whole. */
  let replayed = false;
  /** The server has sent the session at least once. */
  let sessionHeard = false;
  /**
   * A prompt sent that the server has not taken yet (its copy of the message and "prompting" come
   * a round trip later): until then a second message queues, as while the agent answers, instead
   * of reaching a server that would refuse it.
   */
  let promptInFlight: string | undefined;
  /** Permissions and questions not answered yet (the strip marks the tab). */
  const open = new Set<string>();
  /** Agents' writes this tab handed to VS Code: withdrawn when its socket goes (other tabs' stay). */
  const edits = new Set<string>();
  /** Ends the page-wide listeners this tab added (paste, drop, Escape) when it closes. */
  const lifetime = new AbortController();
  const onScreen = (): boolean => shell.isActive(tab) && !lifetime.signal.aborted;
  const scope = { active: onScreen, signal: lifetime.signal };

  const status = h("span", { class: "status", id: "status", role: "status" }, "Connecting…");
  const modeSelect = h("select", { id: "mode", "aria-label": "Mode", hidden: "" });
  /** The MCP servers the agent was given (the editor's tools among them), once its session is open. */
  const toolsChip = h("span", { id: "mcp-servers", class: "tools-chip", tabindex: "0", hidden: "" });
  const cancelButton = h("button", { id: "cancel", title: "Cancel the turn (Escape)", hidden: "" }, "Cancel");
  const newChatButton = h("button", { id: "new-chat", title: "Start a new conversation in this tab" }, "New chat");
  const forkButton = h("button", { id: "fork", title: "Fork: a copy of this conversation in a new tab", hidden: "" }, "Fork");
  /** The text of the message being edited, while its fork is asked for (undefined: a plain Fork). */
  let forkDraft: string | undefined;
  let forking = false;
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
    // The box inside its label (no `for`): several tabs have one each.
    h("label", { title: "Attach the editor context to the next prompt" }, chipToggle, " attach"),
  );
  const kept = new KeptTranscript(transcriptElement, onScreen);
  const view = new TranscriptView(transcriptElement, (id, optionId) => send({ type: "permission", id, optionId }), {
    authenticate: (signInId, methodId) => send({ type: "authenticate", signInId, methodId }),
    resend: (text) => void sendPrompt(text),
    retry: newChat,
    cancel: (signInId) => send({ type: "cancelSignIn", signInId }),
  });
  const elicitations = new ElicitationCards(transcriptElement, (answer) => send({ type: "elicitation", ...answer }));
  const usageMeter = new UsageMeter();
  const queue = new MessageQueue((text) => promptInFlight === undefined && sendPrompt(text) === null);
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
  const composer = new Composer({ send: sendPrompt, listFiles: () => send({ type: "listFiles" }) }, scope);
  const attachments = new ImageAttachments((message) => composer.showNotice(message), scope);
  if (init.draft) composer.input.value = init.draft;
  if (init.send) queue.sendOnceReady(init.send);
  const agentPicker = new AgentPicker((agent) => {
    setStatus(`Switching to ${agent.name}…`);
    send({ type: "chooseAgent", id: agent.id });
  });

  const extensions = new ExtensionsSection(send);

  const element = h(
    "section",
    { class: "conversation", role: "tabpanel" },
    h(
      "header",
      {},
      h("strong", { id: "title" }, document.getElementById("app")?.dataset.title ?? "Symposium"),
      status,
      toolsChip,
      usageMeter.element,
      h("span", { class: "spacer" }),
      agentPicker.element,
      extensions.button,
      modeSelect,
      pickers.element,
      history.button,
      signOutButton,
      forkButton,
      newChatButton,
    ),
    banner,
    extensions.panel,
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
  cancelButton.addEventListener("click", cancelTurn);
  newChatButton.addEventListener("click", newChat);
  forkButton.addEventListener("click", () => fork(undefined));
  transcriptElement.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.(".edit-resend");
    const text = button?.closest<HTMLElement>(".message.user")?.dataset.text;
    if (text !== undefined) fork(text);
  });
  signOutButton.addEventListener("click", () => send({ type: "logout" }));
  modeSelect.addEventListener("change", () => send({ type: "setMode", modeId: modeSelect.value }));
  chipToggle.addEventListener("change", () => chipRow.classList.toggle("skipped", !chipToggle.checked));
  // Escape cancels the turn wherever the focus is (a permission button, say), in the tab on screen only.
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Escape" && !event.defaultPrevented && session.state === "prompting" && onScreen()) cancelTurn();
    },
    { signal: lifetime.signal },
  );

  const tab: ConversationTab = {
    element,
    input: composer.input,
    init,
    conversationId: init.conversation,
    label: () => (init.fork === true ? `${firstMessage ?? "Chat"} (fork)` : (firstMessage ?? newChatLabel())),
    status: () => {
      const name = agentName();
      return `${name ? `${name} · ` : ""}${stateWord(session)}`;
    },
    busy: () => session.state === "prompting",
    waiting: () => open.size > 0,
    shown: () => {
      document.body.dataset.state = session.state;
      if (sessionHeard) showSession(); // until the server speaks, the status says "Connecting…"
      // The panel's copy becomes this tab's, once its replay is in (an empty copy would take the panel's away too soon).
      if (replayed) kept.shown();
    },
    focusComposer: () => composer.input.focus(),
    draft: () => composer.input.value,
    panelSpoke: () => {
      announceEditor();
      if (onScreen()) kept.panelSpoke();
    },
    close: () => leave(),
  };
  connect();
  return tab;

  function connect(): void {
    const url = new URL(`ws?${wsQuery()}`, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(url);
    socket = ws;
    ws.addEventListener("open", announceEditor);
    ws.addEventListener("message", (event) => receive(String(event.data)));
    ws.addEventListener("close", () => {
      if (socket !== ws) return;
      withdrawEdits([...edits]); // the server refused what it offered here: VS Code must not apply it later
      edits.clear();
      if (leaving) return; // leaving for another conversation: no red banner flashing meanwhile
      showBanner(session.state === "ended" ? null : "The connection to the chat server was lost.", "reconnect");
      showSession(); // Send goes off, saying why
      setStatus("Disconnected");
    });
  }

  function wsQuery(): string {
    const query = new URLSearchParams({ [QUERY.token]: shell.token });
    if (init.conversation) query.set(QUERY.conversation, init.conversation);
    if (init.reopen) query.set(QUERY.reopen, init.reopen);
    if (init.reopenAgent) query.set(QUERY.reopenAgent, init.reopenAgent);
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
        if (shell.isActive(tab)) document.title = message.title;
        composer.projectDir = message.projectDir;
        setProjectDir(message.projectDir); // paths in tool calls show relative to it (project-path.ts)
        if (message.maxConversations !== undefined) shell.serverLimit(message.maxConversations);
        return;
      case "replay":
        promptInFlight = undefined; // a reconnect: the replay shows whether the server took it
        view.clear();
        elicitations.clear();
        open.clear();
        firstMessage = undefined;
        message.events.forEach(showEvent);
        replayed = true;
        showNewAgentNotice();
        if (init.notice) view.add({ kind: "notice", message: init.notice });
        if (shell.isActive(tab)) kept.shown();
        return shell.changed(tab);
      case "event":
        promptSettled(message.event);
        queue.onEvent(message.event);
        tellPanel(attentionRequest(message.event, queue.size, init.conversation ?? session.historyId ?? ""));
        showEvent(message.event);
        return shell.changed(tab);
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
        extensions.button.hidden = false; // the agents are listed: the command is our conductor, which keeps the extensions
        // A failed start's banner drawn before the list came offers "Choose another agent" now.
        if (session.ended?.startFailed) showEnded(session.ended);
        showSession(); // the header names the agent as the list does
        return shell.changed(tab); // and so does a new tab's label
      case "agentChoice":
        return agentChosen(message);
      case "extensions":
        return extensions.show(message);
      case "forked":
        return forked(message);
      case "applyEdit":
        edits.add(message.id);
        void applyEdit(message).then((result) => {
          edits.delete(message.id);
          send({ type: "editResult", id: message.id, result });
        });
        return;
      case "batch":
        // Each on its own: a message that fails must not cost the rest (the turn's end, Send coming back).
        return message.messages.forEach(apply);
    }
  }

  function showEvent(event: TranscriptEvent): void {
    if (event.kind === "user" && firstMessage === undefined) firstMessage = shortLabel(event.text);
    if (event.kind === "permission" || event.kind === "elicitation") open.add(event.id);
    if (event.kind === "permissionDone" || event.kind === "elicitationDone") open.delete(event.id);
    if (event.kind === "turnEnd") open.clear(); // what the turn asked is moot once it has ended
    if (!elicitations.add(event)) view.add(event);
  }

  function updateSession(next: SessionInfo): void {
    const previousName = session.agentName;
    session = next;
    sessionHeard = true;
    if (next.state === "ended") promptInFlight = undefined;
    showSession();
    composer.setCommands(next.commands);
    modeSelect.hidden = next.modes.length === 0;
    modeSelect.replaceChildren(
      ...next.modes.map((mode) => h("option", { value: mode.id, ...(mode.description ? { title: mode.description } : {}) }, mode.name)),
    );
    if (next.currentModeId) modeSelect.value = next.currentModeId;
    pickers.update(next.configOptions);
    usageMeter.show(next.usage);
    showTools(next.mcpServers ?? [], next.mcpServersWithheld ?? []);
    attachments.accepts = next.imagePrompts === true;
    // Not signed in yet (the status says "Sign in to start"): nothing to sign out of.
    signOutButton.hidden = next.canLogout !== true || next.state === "ended" || next.waitingFor === "signIn";
    const canFork = next.canFork === true && next.state !== "ended";
    forkButton.hidden = !canFork;
    view.editable = next.canFork === true;
    if (canFork) element.dataset.canFork = "";
    else delete element.dataset.canFork;
    queue.onState(next.state);
    if (agentList && next.agentName !== previousName) agentPicker.show(agentList.agents, agentList.current, next.agentName);
    if (next.ended) showEnded(next.ended);
    if (replayed) showNewAgentNotice();
    if (next.state !== "prompting" && next.state !== "starting") open.clear();
    shell.changed(tab);
  }

  /**
   * "New conversation with X", once X has started (or asks to sign in first): never under X's own failure to
   * start, where it would read as if a conversation had begun.
   */
  function showNewAgentNotice(): void {
    if (newAgentNotice === null || (session.state === "starting" && session.waitingFor !== "signIn")) return;
    if (!session.ended?.startFailed) view.add({ kind: "notice", message: `New conversation with ${newAgentNotice}` });
    newAgentNotice = null;
  }

  /** The status line and Send: the agent by the list's name, what it is doing, and why Send is off whenever it is. */
  function showSession(): void {
    const word = stateWord(session);
    const name = agentName();
    setStatus(`${name ? `${name} · ` : ""}${word}`);
    if (shell.isActive(tab)) {
      reportAgent(name ?? "", word);
      document.body.dataset.state = session.state;
    }
    element.dataset.state = session.state;
    cancelButton.hidden = session.state !== "prompting";
    // The composer stays editable whatever happens: text typed now is sent later, or kept across a switch.
    const reason = notSendable();
    sendButton.disabled = reason !== null;
    sendButton.title = reason ?? "Send (Enter)";
  }

  /** The agent's one name: the picker's entry for the agent this conversation runs, else what the agent calls itself. */
  function agentName(): string | undefined {
    const current = agentList?.current === undefined ? undefined : agentList.agents.find((agent) => agent.id === agentList!.current);
    return current?.name ?? session.agentName;
  }

  /** "Tools: symposium-editor": which MCP servers this conversation's agent was given; hidden when none. */
  function showTools(names: string[], withheld: Array<{ name: string; reason: string }>): void {
    toolsChip.hidden = names.length === 0 && withheld.length === 0;
    toolsChip.textContent = `Tools: ${names.join(", ") || "none"}${withheld.length > 0 ? ` (${withheld.length} not given)` : ""}`;
    const editor = names.includes("symposium-editor") ? "\nsymposium-editor: VS Code's own tools (definitions, references, diagnostics, the open files)" : "";
    const notGiven = withheld.map((server) => `\nNot given: ${server.name}: ${server.reason}`).join("");
    toolsChip.title = `The MCP servers this conversation's agent was given: ${names.join(", ") || "none"}${editor}${notGiven}`;
  }

  /** A tab with no message yet: named after its agent (the name alone: a tab's room is short), so new tabs tell apart. */
  function newChatLabel(): string {
    return agentName() ?? "New chat";
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
  function showBanner(
    message: string | null,
    kind: "reconnect" | "ended" | "readOnly" | "startFailed",
    stderrTail: string[] = [],
    detail: string[] = [],
  ): void {
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
      stderrTail.length > 0
        ? [h("div", { class: "meta" }, "Last lines of the agent's stderr:"), h("pre", { class: "stderr-tail" }, stderrTail.join("\n"))]
        : [];
    // What to do comes right under what happened; the agent's own words follow, however long they are.
    const said = explanation.length + tail.length > 0 ? [h("details", { open: "" }, h("summary", {}, "What the agent said"), ...explanation, ...tail)] : [];
    banner.replaceChildren(h("div", { class: "banner-message" }, message), h("div", { class: "actions" }, ...actions), ...said);
    banner.hidden = false;
  }

  /** The server saved the picker's choice: a new conversation runs that agent (this one stays in the history). */
  function agentChosen(answer: { ok: boolean; name?: string; message?: string; firstQuestion?: string }): void {
    if (answer.ok) return switchConversation({ newAgent: answer.name ?? "the chosen agent", ...(answer.firstQuestion ? { send: answer.firstQuestion } : {}) });
    agentPicker.reset();
    updateSession(session);
    view.add({ kind: "error", message: `The agent was not changed: ${answer.message ?? "the server refused it"}` });
  }

  /**
   * Asks the agent for a fork of this conversation (`session/fork`); `text`: a message to edit
   * and send again in it. The draft forks the whole session (no point to cut at), so the fork
   * holds the conversation up to now and the message waits in the new tab's composer.
   */
  function fork(text: string | undefined): void {
    if (forking) return;
    if (session.state !== "ready") return composer.showNotice("Not forked: the agent is answering or not ready; fork once its turn has ended.");
    forking = true;
    forkDraft = text;
    forkButton.disabled = true;
    send({ type: "fork" });
  }

  function forked(answer: { agentSessionId?: string; historyId?: string; error?: string }): void {
    forking = false;
    forkButton.disabled = false;
    const text = forkDraft;
    forkDraft = undefined;
    if (answer.agentSessionId === undefined)
      return void view.add({ kind: "error", message: `The agent did not fork the conversation: ${answer.error ?? "no answer"}` });
    const from = firstMessage ? `“${firstMessage}”` : "the conversation";
    const notice =
      text === undefined
        ? `Forked from ${from}.`
        : `Forked from ${from} to edit a message: the fork holds the whole conversation (the agent copies all of it); the message waits below to edit and send.`;
    shell.openBeside({
      ...(named ? { conversation: shell.newId() } : {}),
      // Its entry in the history shows the conversation it continues; without a history, the agent's session alone.
      ...(answer.historyId !== undefined ? { reopen: answer.historyId } : { reopenAgent: answer.agentSessionId }),
      notice,
      fork: true,
      ...(text !== undefined ? { draft: text } : {}),
    });
  }

  function newChat(): void {
    switchConversation({});
  }

  /** Reopens a kept conversation (history.ts on the server): a new conversation, in this tab, that loads it. */
  function reopen(historyId: string): void {
    switchConversation({ reopen: historyId });
  }

  /** Continues one of the agent's own sessions (History's `session/list` part) in a new conversation. */
  function reopenAgentSession(agentSessionId: string): void {
    switchConversation({ reopenAgent: agentSessionId });
  }

  /** Leaves this conversation for a new one in this tab; the composer's text goes with it. */
  function switchConversation(next: TabInit): void {
    const draft = composer.input.value;
    leave();
    shell.replace(tab, { ...next, ...(named ? { conversation: shell.newId() } : {}), ...(draft.trim() ? { draft } : {}) });
  }

  /** Ends this conversation (a named one lives on the server until told; an unnamed one ends with its socket) and closes the socket. */
  function leave(): void {
    leaving = true;
    lifetime.abort();
    send({ type: "end" });
    socket?.close();
  }

  function cancelTurn(): void {
    queue.hold();
    send({ type: "cancel" });
  }

  /** Sends a prompt and shows it at once (the server's copy confirms it), or queues it while the agent answers; else why it cannot be taken now. */
  function sendPrompt(text: string): string | null {
    const refused = notSendable();
    if (refused !== null) return refused;
    const images = attachments.images();
    if (session.state === "prompting" || promptInFlight !== undefined) {
      if (images.length > 0) return "Not queued: images go with a message sent once the agent is ready; your text and images stay here.";
      return queue.add(text) ? null : "Not queued: the queue is full; your text stays here."; // sent when the turn ends (message-queue.ts)
    }
    if (promptBytes(text, images) > MAX_PAGE_MESSAGE_BYTES)
      return "Not sent: the text and the images together are over the chat's 4 MB message limit; remove an image or shorten the text.";
    const skipContext = chip !== null && !chipToggle.checked;
    view.addPending(text, skipContext, images.length);
    send({ type: "prompt", text, skipContext, ...(images.length > 0 ? { images } : {}) });
    promptInFlight = text;
    attachments.clear();
    chipToggle.checked = true; // the skip is for one prompt only
    chipRow.classList.remove("skipped");
    return null;
  }

  /** The server's answer to the prompt in flight: it took it (its copy of the message), refused it (queued again: nothing typed is lost), or failed it. */
  function promptSettled(event: TranscriptEvent): void {
    if (promptInFlight === undefined) return;
    if (event.kind === "notice" && event.promptRefused === true) queue.sendOnceReady(promptInFlight);
    // Another surface's message on the same conversation is not this one's.
    else if (!(event.kind === "user" && event.text === promptInFlight) && event.kind !== "error") return;
    promptInFlight = undefined;
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
}

function stateWord(info: SessionInfo): string {
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
