// One conversation of the chat page (a tab, tabs.ts): its own websocket to
// the server (tab-connection.ts) and so its own agent session, its transcript,
// composer and draft, queue, images, pickers, History and banner. A hidden tab
// keeps all of it as it is: switching only shows another tab's element. "New
// chat", History and the agent picker replace this tab's conversation in place.
// This is the tab's view: what the tab knows lives in tab-state.ts, changed only
// by its reducer; each server message and user action goes through it, and the
// view applies the effects it returns.

import { Composer } from "./composer.js";
import { h } from "./dom.js";
import type { ServerMessage } from "./protocol.js";
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
import { TabConnection } from "./tab-connection.js";
import {
  agentName,
  initialTabState,
  notSendable,
  reduce,
  statusLine,
  stateWord,
  tabLabel,
  type Banner,
  type NextConversation,
  type TabEffect,
  type TabInput,
  type TabState,
} from "./tab-state.js";

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

export function openConversationTab(init: TabInit, shell: TabShell): ConversationTab {
  return new TabView(init, shell);
}

/** The header's and the footer's own controls (the parts with a class of their own are fields of TabView). */
function tabControls() {
  const chipLabel = h("span", { class: "chip-label", tabindex: "0" });
  const chipBlock = h("pre", { class: "chip-block", role: "tooltip" });
  const chipToggle = h("input", { type: "checkbox", id: "context-toggle", checked: "" });
  return {
    status: h("span", { class: "status", id: "status", role: "status" }, "Connecting…"),
    modeSelect: h("select", { id: "mode", "aria-label": "Mode", hidden: "" }),
    /** The MCP servers the agent was given (the editor's tools among them), once its session is open. */
    toolsChip: h("span", { id: "mcp-servers", class: "tools-chip", tabindex: "0", hidden: "" }),
    cancelButton: h("button", { id: "cancel", title: "Cancel the turn (Escape)", hidden: "" }, "Cancel"),
    newChatButton: h("button", { id: "new-chat", title: "Start a new conversation in this tab" }, "New chat"),
    forkButton: h("button", { id: "fork", title: "Fork: a copy of this conversation in a new tab", hidden: "" }, "Fork"),
    signOutButton: h("button", { id: "sign-out", title: "Sign out of the agent (it forgets its sign-in)", hidden: "" }, "Sign out"),
    sendButton: h("button", { id: "send", class: "primary", title: "Send (Enter)" }, "Send"),
    transcript: h("main", { id: "transcript", "aria-live": "polite" }),
    banner: h("div", { id: "banner", role: "alert", hidden: "" }),
    chipLabel,
    chipBlock,
    chipToggle,
    chipRow: h(
      "div",
      { id: "context-chip", hidden: "" },
      h("span", { class: "chip" }, chipLabel, chipBlock),
      // The box inside its label (no `for`): several tabs have one each.
      h("label", { title: "Attach the editor context to the next prompt" }, chipToggle, " attach"),
    ),
  };
}
type TabControls = ReturnType<typeof tabControls>;

class TabView implements ConversationTab {
  readonly element: HTMLElement;
  readonly input: HTMLTextAreaElement;
  readonly conversationId: string | undefined;
  private state: TabState;
  /** Ends the page-wide listeners this tab added (paste, drop, Escape) when it closes. */
  private readonly lifetime = new AbortController();
  private readonly ui: TabControls = tabControls();
  private readonly kept: KeptTranscript;
  private readonly transcript: TranscriptView;
  private readonly elicitations: ElicitationCards;
  private readonly usageMeter = new UsageMeter();
  private readonly queue: MessageQueue;
  private readonly pickers: ConfigPickers;
  private readonly agentSessions: AgentSessionList;
  private readonly history: HistoryPanel;
  private readonly composer: Composer;
  private readonly attachments: ImageAttachments;
  private readonly agentPicker: AgentPicker;
  private readonly extensions: ExtensionsSection;
  private readonly connection: TabConnection;

  constructor(
    readonly init: TabInit,
    private readonly shell: TabShell,
  ) {
    this.conversationId = init.conversation;
    this.state = initialTabState(init);
    const onScreen = (): boolean => shell.isActive(this) && !this.lifetime.signal.aborted;
    const scope = { active: onScreen, signal: this.lifetime.signal };
    const send = (message: Extract<TabEffect, { kind: "send" }>["message"]) => this.connection.send(message);
    this.kept = new KeptTranscript(this.ui.transcript, onScreen);
    this.transcript = new TranscriptView(this.ui.transcript, (id, optionId) => send({ type: "permission", id, optionId }), {
      authenticate: (signInId, methodId) => send({ type: "authenticate", signInId, methodId }),
      resend: (text) => void this.submit(text),
      retry: () => this.dispatch({ type: "newChat" }),
      cancel: (signInId) => send({ type: "cancelSignIn", signInId }),
    });
    this.elicitations = new ElicitationCards(this.ui.transcript, (answer) => send({ type: "elicitation", ...answer }));
    this.queue = new MessageQueue({
      edit: (index, text) => this.dispatch({ type: "queueEdit", index, text }),
      remove: (index) => this.dispatch({ type: "queueRemove", index }),
      resume: () => this.dispatch({ type: "queueResume" }),
    });
    this.pickers = new ConfigPickers((configId, value) => send({ type: "setConfigOption", configId, value }));
    this.agentSessions = new AgentSessionList(
      {
        list: (cursor) => send({ type: "listAgentSessions", ...(cursor ? { cursor } : {}) }),
        open: (agentSessionId) => this.dispatch({ type: "reopenAgent", agentSessionId }),
      },
      () => this.state.session.agentSessionId,
    );
    this.history = new HistoryPanel(
      {
        list: () => {
          send({ type: "listHistory" });
          this.agentSessions.start(this.state.session.agentSessions === true);
        },
        open: (historyId) => this.dispatch({ type: "reopen", historyId }),
        remove: (id) => send({ type: "deleteHistory", id }),
      },
      () => this.state.session.historyId,
      this.agentSessions.element,
    );
    this.composer = new Composer({ send: (text) => this.submit(text), listFiles: () => send({ type: "listFiles" }) }, scope);
    this.attachments = new ImageAttachments((message) => this.composer.showNotice(message), scope);
    this.input = this.composer.input;
    if (init.draft) this.input.value = init.draft;
    this.agentPicker = new AgentPicker((agent) => this.dispatch({ type: "chooseAgent", id: agent.id, name: agent.name }));
    this.extensions = new ExtensionsSection(send);
    this.element = this.layout();
    this.listen(onScreen);
    this.queue.draw(this.state.queue);
    this.connection = new TabConnection(
      { token: shell.token, ...init },
      {
        open: () => {
          this.dispatch({ type: "socketOpen" });
          this.announceEditor();
        },
        message: (message) => this.receive(message),
        closed: () => this.dispatch({ type: "socketClosed" }),
      },
    );
  }

  label(): string {
    return tabLabel(this.state, this.init.fork === true);
  }

  status(): string {
    return statusLine(this.state);
  }

  busy(): boolean {
    return this.state.session.state === "prompting";
  }

  waiting(): boolean {
    return this.state.open.length > 0;
  }

  shown(): void {
    document.body.dataset.state = this.state.session.state;
    if (this.state.sessionHeard) this.drawStatus(); // until the server speaks, the status says "Connecting…"
    // The panel's copy becomes this tab's, once its replay is in (an empty copy would take the panel's away too soon).
    if (this.state.replayed) this.kept.shown();
  }

  focusComposer(): void {
    this.input.focus();
  }

  draft(): string {
    return this.input.value;
  }

  panelSpoke(): void {
    this.announceEditor();
    if (this.shell.isActive(this) && !this.lifetime.signal.aborted) this.kept.panelSpoke();
  }

  close(): void {
    this.dispatch({ type: "leave" });
  }

  private layout(): HTMLElement {
    const ui = this.ui;
    return h(
      "section",
      { class: "conversation", role: "tabpanel" },
      h(
        "header",
        {},
        h("strong", { id: "title" }, document.getElementById("app")?.dataset.title ?? "Symposium"),
        ui.status,
        ui.toolsChip,
        this.usageMeter.element,
        h("span", { class: "spacer" }),
        this.agentPicker.element,
        this.extensions.button,
        ui.modeSelect,
        this.pickers.element,
        this.history.button,
        ui.signOutButton,
        ui.forkButton,
        ui.newChatButton,
      ),
      ui.banner,
      this.extensions.panel,
      this.history.element,
      ui.transcript,
      h(
        "footer",
        {},
        ui.chipRow,
        this.composer.menu,
        this.composer.notice,
        h("div", { class: "composer" }, this.composer.input, h("div", { class: "actions" }, ui.sendButton, ui.cancelButton)),
        this.attachments.element,
        this.queue.element,
      ),
    );
  }

  private listen(onScreen: () => boolean): void {
    const ui = this.ui;
    ui.sendButton.addEventListener("click", () => this.composer.submit());
    ui.cancelButton.addEventListener("click", () => this.dispatch({ type: "cancel" }));
    ui.newChatButton.addEventListener("click", () => this.dispatch({ type: "newChat" }));
    ui.forkButton.addEventListener("click", () => this.dispatch({ type: "fork" }));
    ui.transcript.addEventListener("click", (event) => {
      const button = (event.target as Element | null)?.closest?.(".edit-resend");
      const text = button?.closest<HTMLElement>(".message.user")?.dataset.text;
      if (text !== undefined) this.dispatch({ type: "fork", text });
    });
    ui.signOutButton.addEventListener("click", () => this.connection.send({ type: "logout" }));
    ui.modeSelect.addEventListener("change", () => this.connection.send({ type: "setMode", modeId: ui.modeSelect.value }));
    ui.chipToggle.addEventListener("change", () => this.dispatch({ type: "attachContext", checked: ui.chipToggle.checked }));
    // Escape cancels the turn wherever the focus is (a permission button, say), in the tab on screen only.
    document.addEventListener(
      "keydown",
      (event) => {
        if (event.key === "Escape" && !event.defaultPrevented && onScreen()) this.dispatch({ type: "escape" });
      },
      { signal: this.lifetime.signal },
    );
  }

  /** A server message: a batch's each on its own, so one that fails does not cost the rest (the turn's end, Send coming back). */
  private receive(message: ServerMessage): void {
    if (message.type === "batch") return message.messages.forEach((inner) => this.receive(inner));
    try {
      this.dispatch(message);
    } catch (error) {
      console.error("symposium: a message from the chat server could not be applied:", error);
    }
  }

  /** One input through the reducer; its effects applied in order. Returns them (the composer wants a refusal). */
  private dispatch(input: TabInput): TabEffect[] {
    const { state, effects } = reduce(this.state, input);
    this.state = state;
    for (const effect of effects) this.apply(effect);
    return effects;
  }

  /** The composer's Enter or Send: null when taken (sent or queued), else why not. */
  private submit(text: string): string | null {
    const effects = this.dispatch({ type: "submit", text, images: this.attachments.images() });
    const refused = effects.find((effect) => effect.kind === "refused");
    return refused?.kind === "refused" ? refused.reason : null;
  }

  private apply(effect: TabEffect): void {
    switch (effect.kind) {
      case "send":
        return this.connection.send(effect.message);
      case "hello":
        if (this.shell.isActive(this)) document.title = effect.title;
        this.composer.projectDir = effect.projectDir;
        setProjectDir(effect.projectDir); // paths in tool calls show relative to it (project-path.ts)
        if (effect.maxConversations !== undefined) this.shell.serverLimit(effect.maxConversations);
        return;
      case "clearTranscript":
        this.transcript.clear();
        return this.elicitations.clear();
      case "show":
        if (!this.elicitations.add(effect.event)) this.transcript.add(effect.event);
        return;
      case "pending":
        return this.transcript.addPending(effect.text, effect.skipContext, effect.images);
      case "imagesSent":
        return this.attachments.clear();
      case "refused":
        return; // the composer says it (submit)
      case "composerNotice":
        return this.composer.showNotice(effect.message);
      case "replayed":
        if (this.shell.isActive(this)) this.kept.shown();
        return;
      case "attention": {
        // The agent is done or waits (attention.ts): VS Code notifies while the chat is out of view (nothing outside VS Code).
        const request = attentionRequest(effect.event, effect.queued, effect.conversation);
        if (request) toPanel(request);
        return;
      }
      default:
        return this.applyToControls(effect);
    }
  }

  private applyToControls(effect: TabEffect): void {
    switch (effect.kind) {
      case "drawSession":
        return this.drawSession();
      case "drawStatus":
        return this.drawStatus();
      case "status":
        this.ui.status.textContent = effect.text;
        return;
      case "drawQueue":
        return this.queue.draw(this.state.queue);
      case "drawChip":
        return this.drawChip();
      case "drawFork":
        this.ui.forkButton.disabled = this.state.forking !== undefined;
        return;
      case "agentPicker": {
        const list = this.state.agentList;
        if (list) this.agentPicker.show(list.agents, list.current, this.state.session.agentName);
        this.extensions.button.hidden = !list; // the agents are listed: the command is our conductor, which keeps the extensions
        return;
      }
      case "extensions":
        return this.extensions.show(effect.message);
      case "resetAgentPicker":
        return this.agentPicker.reset();
      case "banner":
        return this.showBanner(effect.banner);
      default:
        return this.applyToPage(effect);
    }
  }

  private applyToPage(effect: TabEffect): void {
    switch (effect.kind) {
      case "history":
        return this.history.show(effect.message.entries);
      case "agentSessions":
        return this.agentSessions.show(effect.message);
      case "files":
        return this.composer.setFiles(effect.files);
      case "applyEdit":
        void applyEdit(effect.edit).then((result) => this.dispatch({ type: "editDone", id: effect.edit.id, result }));
        return;
      case "withdrawEdits":
        return withdrawEdits(effect.ids);
      case "leave":
        this.lifetime.abort();
        return this.connection.close();
      case "replace":
        return this.shell.replace(this, this.nextInit(effect.next, this.input.value.trim() ? this.input.value : undefined));
      case "openBeside":
        this.shell.openBeside(this.nextInit(effect.next, effect.next.draft));
        return;
      case "changed":
        return this.shell.changed(this);
    }
  }

  /** What the tab that follows opens: a named conversation gets a new id; the composer's text goes along. */
  private nextInit(next: NextConversation, draft: string | undefined): TabInit {
    const { named, reopen, reopenAgent, newAgent, notice, fork, send } = next;
    return {
      ...(named ? { conversation: this.shell.newId() } : {}),
      ...(reopen !== undefined ? { reopen } : {}),
      ...(reopenAgent !== undefined ? { reopenAgent } : {}),
      ...(newAgent !== undefined ? { newAgent } : {}),
      ...(notice !== undefined ? { notice } : {}),
      ...(fork !== undefined ? { fork } : {}),
      ...(send !== undefined ? { send } : {}),
      ...(draft !== undefined ? { draft } : {}),
    };
  }

  /** The status line and Send: the agent by the list's name, what it is doing, and why Send is off whenever it is. */
  private drawStatus(): void {
    const session = this.state.session;
    this.ui.status.textContent = statusLine(this.state);
    if (this.shell.isActive(this)) {
      reportAgent(agentName(this.state) ?? "", stateWord(session));
      document.body.dataset.state = session.state;
    }
    this.element.dataset.state = session.state;
    this.ui.cancelButton.hidden = session.state !== "prompting";
    // The composer stays editable whatever happens: text typed now is sent later, or kept across a switch.
    const reason = notSendable(this.state);
    this.ui.sendButton.disabled = reason !== null;
    this.ui.sendButton.title = reason ?? "Send (Enter)";
  }

  /** The session's controls: slash commands, modes, pickers, usage, tools, images, sign out, fork. */
  private drawSession(): void {
    const { ui } = this;
    const next = this.state.session;
    this.composer.setCommands(next.commands);
    ui.modeSelect.hidden = next.modes.length === 0;
    ui.modeSelect.replaceChildren(
      ...next.modes.map((mode) => h("option", { value: mode.id, ...(mode.description ? { title: mode.description } : {}) }, mode.name)),
    );
    if (next.currentModeId) ui.modeSelect.value = next.currentModeId;
    this.pickers.update(next.configOptions);
    this.usageMeter.show(next.usage);
    this.drawTools(next.mcpServers ?? [], next.mcpServersWithheld ?? []);
    this.attachments.accepts = next.imagePrompts === true;
    // Not signed in yet (the status says "Sign in to start"): nothing to sign out of.
    ui.signOutButton.hidden = next.canLogout !== true || next.state === "ended" || next.waitingFor === "signIn";
    const canFork = next.canFork === true && next.state !== "ended";
    ui.forkButton.hidden = !canFork;
    this.transcript.editable = next.canFork === true;
    if (canFork) this.element.dataset.canFork = "";
    else delete this.element.dataset.canFork;
  }

  /** "Tools: symposium-editor": which MCP servers this conversation's agent was given; hidden when none. */
  private drawTools(names: string[], withheld: Array<{ name: string; reason: string }>): void {
    const toolsChip = this.ui.toolsChip;
    toolsChip.hidden = names.length === 0 && withheld.length === 0;
    toolsChip.textContent = `Tools: ${names.join(", ") || "none"}${withheld.length > 0 ? ` (${withheld.length} not given)` : ""}`;
    const editor = names.includes("symposium-editor") ? "\nsymposium-editor: VS Code's own tools (definitions, references, diagnostics, the open files)" : "";
    const notGiven = withheld.map((server) => `\nNot given: ${server.name}: ${server.reason}`).join("");
    toolsChip.title = `The MCP servers this conversation's agent was given: ${names.join(", ") || "none"}${editor}${notGiven}`;
  }

  private drawChip(): void {
    const { ui } = this;
    const chip = this.state.chip;
    ui.chipRow.hidden = chip === null;
    ui.chipLabel.textContent = chip?.label ?? "";
    ui.chipBlock.textContent = chip?.block ?? "";
    ui.chipToggle.checked = this.state.attachContext;
    ui.chipRow.classList.toggle("skipped", !this.state.attachContext);
  }

  /**
   * The banner above the conversation: what happened, the agent's own words
   * (its explanation, its last stderr lines) and what to do next: reconnect,
   * a new chat, or, for an agent that did not start, Retry and another agent.
   */
  private showBanner(banner: Banner): void {
    const button = (id: string, label: string, action: () => void, primary = false): HTMLElement => {
      const element = h("button", { id, ...(primary ? { class: "primary" } : {}) }, label);
      element.addEventListener("click", action);
      return element;
    };
    const newChat = () => this.dispatch({ type: "newChat" });
    const actions =
      banner.kind === "reconnect"
        ? [button("reconnect", "Reconnect", () => TabConnection.reconnect())]
        : banner.kind === "startFailed"
          ? [
              button("banner-retry", "Retry", newChat, true),
              ...(banner.chooseAgent ? [button("banner-choose-agent", "Choose another agent", () => this.agentPicker.open())] : []),
            ]
          : [button("banner-new-chat", banner.kind === "readOnly" ? "Continue in a new session" : "New chat", newChat, true)];
    this.ui.banner.classList.toggle("read-only", banner.kind === "readOnly");
    const detail = banner.kind === "startFailed" ? banner.detail : [];
    const stderrTail = banner.kind === "reconnect" ? [] : banner.stderrTail;
    const explanation = detail.length > 0 ? [h("pre", { class: "agent-detail" }, detail.join("\n"))] : [];
    const tail =
      stderrTail.length > 0
        ? [h("div", { class: "meta" }, "Last lines of the agent's stderr:"), h("pre", { class: "stderr-tail" }, stderrTail.join("\n"))]
        : [];
    // What to do comes right under what happened; the agent's own words follow, however long they are.
    const said = explanation.length + tail.length > 0 ? [h("details", { open: "" }, h("summary", {}, "What the agent said"), ...explanation, ...tail)] : [];
    this.ui.banner.replaceChildren(h("div", { class: "banner-message" }, banner.message), h("div", { class: "actions" }, ...actions), ...said);
    this.ui.banner.hidden = false;
  }

  /** Tells the server this page is in VS Code's panel: it offers agents' writes here (webchat/src/workspace-edits.ts). */
  private announceEditor(): void {
    if (inEditor()) this.connection.send({ type: "inEditor" });
  }
}
