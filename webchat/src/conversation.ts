// A conversation: one agent session, its transcript, and the pages attached
// to it. A page that reloads with the conversation's id in its URL attaches
// again and gets the transcript replayed; a named conversation with no page
// attached lives on for a grace period, an unnamed one (Toad's behaviour:
// one app per page load) ends with its page.
//
// Memory stays bounded (docs/webchat.md: memory): the transcript keeps the
// last TRANSCRIPT_LIMIT_BYTES (transcript.ts), a replay leaves in frames, and
// the agent's output is read no faster than the slowest attached page takes
// it: while a page has more than BACKLOG_HIGH_BYTES waiting, the agent's
// stdout is not read, the pipe fills, and the agent's own writes wait.
// A running terminal's views are not the agent's output (its commands print
// them): a page with a backlog gets only each terminal's latest (page-link.ts).

import { ProjectIndex } from "./project-index.js";
import type { WebSocket } from "ws";
import { frameText } from "../../acp-wire/src/index.js";
import { errorLine } from "../../loopback-auth/src/index.js";
import type { ServerMessage, SessionInfo, TranscriptEvent } from "../page/protocol.js";
import { checkPageMessage } from "./page-messages.js";
import { type AgentCatalog, type AgentListing } from "./agent-catalog.js";
import type { ExtensionsManager } from "./extensions-manager.js";
import { SETUP_AGENT_TITLE, asTyped, type AgentChosen } from "../../conductor-hooks/src/setup-handoff.js";
import { AgentSession, type AgentSessionOptions } from "./agent-session.js";
import { agentTitle } from "./agent-sessions.js";
import { newHistoryId, titleOf, type HistoryStore, type StoredHistoryEntry } from "./history.js";
import { PageLink } from "./page-link.js";
import { Transcript } from "./transcript.js";
import { TurnChanges } from "./turn-changes.js";
import { WorkspaceEdits } from "./workspace-edits.js";

/** Reading the agent's output pauses while a page has this much (bytes) not yet taken. */
export const BACKLOG_HIGH_BYTES = 1024 * 1024;
/** A replay leaves in frames of about this size. */
export const REPLAY_FRAME_BYTES = 256 * 1024;
const GATE_POLL_MS = 10;
/** The user's first prompts to the first-run menu kept, one of which it names as the first question. */
const MENU_PROMPTS_KEPT = 16;

export interface ConversationOptions extends Omit<
  AgentSessionOptions,
  "onEvent" | "onSession" | "readGate" | "reopen" | "onReopen" | "onSessionId" | "onTransient"
> {
  id: string;
  /** Named in the page's URL: survives a detach for `graceMs`. */
  named: boolean;
  graceMs: number;
  /** The server's limit of live conversations, told to the page (its tabs). */
  maxConversations?: number;
  title: string;
  /** Where this workspace's conversations are kept (undefined: not kept). */
  history?: HistoryStore;
  /** A kept conversation to reopen (session/load or session/resume, else shown read-only). */
  reopen?: { entry: StoredHistoryEntry; events: TranscriptEvent[] };
  /** Called once, when the conversation has ended and its agent is stopped. */
  onEnded(conversation: Conversation): void;
  /** The agent picker's list and choice (agent-catalog.ts); undefined: the agent command is not our conductor, no picker. */
  agents?: AgentCatalog;
  /** The Extensions section's changes (extensions-manager.ts); undefined: the agent command is not our conductor. */
  extensions?: ExtensionsManager;
}

export class Conversation {
  readonly transcript = new Transcript();
  private readonly links = new Map<WebSocket, PageLink>();
  /** Messages for the attached pages, each serialised once, sent together at the end of this turn of the event loop. */
  private outbox: string[] = [];
  private outboxChars = 0;
  private flushQueued = false;
  private readonly session: AgentSession;
  private projectIndex: ProjectIndex | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private ending: Promise<void> | undefined;
  /** When the last page left (ms since the epoch); undefined while one is attached. */
  private detachedAt: number | undefined;
  /** This conversation in the history (title from its first prompt). */
  private readonly kept: StoredHistoryEntry;
  private restoring = false;
  /** The agents to choose from, and the one this conversation runs (the config's at its start); undefined: no picker. */
  private agentListing: Promise<AgentListing> | undefined;
  /** The attached pages that said they are in VS Code's panel (`inEditor`): only they are offered agents' writes. */
  private readonly editorLinks = new Set<PageLink>();
  /** Agents' writes offered to VS Code through those pages (workspace-edits.ts). */
  private readonly edits = new WorkspaceEdits((message) => {
    const text = JSON.stringify(message satisfies ServerMessage);
    for (const link of this.editorLinks) link.send(text);
    return [...this.editorLinks];
  });

  /** The files each turn changed, from its checkpoint record (turn-changes.ts). */
  private readonly turnChanges: TurnChanges;
  /** When the turn now running was sent (ms since the epoch): its checkpoint record starts after. */
  private turnSentAt = 0;
  /** What the user sent the first-run menu (the setup agent), first MENU_PROMPTS_KEPT: the only first questions sent on (asTyped). */
  private readonly menuPrompts: string[] = [];

  constructor(private readonly options: ConversationOptions) {
    this.turnChanges = new TurnChanges(options.projectDir, options.env, options.log);
    const now = Date.now();
    const reopen = options.reopen;
    this.kept = reopen ? { ...reopen.entry } : { id: newHistoryId(), title: "", createdAt: now, updatedAt: now };
    const agentSessionId = reopen?.entry.agentSessionId;
    if (reopen && !agentSessionId) this.restore(reopen.events);
    this.session = new AgentSession({
      ...options,
      onEvent: (event) => this.record(event),
      onSession: (session) => this.broadcast({ type: "session", session }),
      readGate: () => this.pagesCaughtUp(),
      reopen: agentSessionId ? { agentSessionId } : undefined,
      // session/load: the agent replays the conversation itself; otherwise the kept transcript is shown.
      onReopen: (how) => {
        if (how !== "load") this.restore(reopen!.events);
        if (how === "resume") this.record({ kind: "notice", message: "Reopened: the agent continues this conversation." });
      },
      onSessionId: (id) => (this.kept.agentSessionId = id),
      onTransient: (event) => this.sendView(event),
      offerEdit: (path, content) => this.edits.offer(path, content),
      ...(options.agents ? { agentCommand: () => this.agentCommand() } : {}),
    });
    this.session.info.historyId = this.kept.id;
    this.agentListing = options.agents?.forNewConversation();
    this.agentListing?.catch((error: unknown) => options.log(`no agent picker: \`registry list\` failed: ${errorLine(error)}`));
  }

  get id(): string {
    return this.options.id;
  }

  get agentPid(): number | undefined {
    return this.session.pid;
  }

  attach(socket: WebSocket, contextMessage: ServerMessage): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.detachedAt = undefined;
    this.flush(); // what is queued is in the transcript the new page gets: send it to the others first
    const link = new PageLink(socket);
    this.links.set(socket, link);
    const { id, named, title, projectDir, maxConversations } = this.options;
    link.sendNow(JSON.stringify({ type: "hello", conversationId: id, named, title, projectDir, maxConversations } satisfies ServerMessage));
    link.sendNow(JSON.stringify({ type: "session", session: this.session.info } satisfies ServerMessage));
    link.sendNow(JSON.stringify(contextMessage));
    void link.replay(replayFrames(this.transcript));
    // Running terminals' output is not in the transcript (only their final view): it follows the replay.
    for (const event of this.session.terminalSnapshots()) link.sendLatest(viewKey(event), eventFrame(event));
    this.offerAgents(link);
    socket.on("message", (data) => {
      try {
        this.onPageMessage(frameText(data), link);
      } catch (error) {
        // A bug must not end the server and every conversation in it: it closes this socket, named in the log.
        this.options.log(`closed a websocket after an internal error: ${errorLine(error)}`);
        socket.close(1011, "internal error (see the server's log)");
      }
    });
    socket.on("close", () => this.detach(socket));
  }

  /**
   * Sends to every attached page, at the end of this turn of the event loop:
   * messages that arrive together (an agent's burst of updates read at once)
   * leave in one websocket frame, a `batch`, in order. A page attaching later
   * gets them in the replay.
   */
  broadcast(message: ServerMessage): void {
    if (this.links.size > 0) this.broadcastJson(JSON.stringify(message));
  }

  private broadcastJson(text: string): void {
    if (this.links.size === 0) return;
    this.outbox.push(text);
    this.outboxChars += text.length;
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    const outbox = this.outbox;
    if (outbox.length === 0) return;
    this.outbox = [];
    this.outboxChars = 0;
    // The batch is built from the messages' JSON text: nothing is serialised twice.
    const text = outbox.length === 1 ? outbox[0]! : `{"type":"batch","messages":[${outbox.join(",")}]}`;
    for (const link of this.links.values()) link.send(text);
  }

  /**
   * The agent's output is read on when this resolves: at once while every
   * page keeps up, else once each has less than BACKLOG_HIGH_BYTES waiting
   * (or has gone). With no page attached, at once: the transcript is bounded.
   */
  private pagesCaughtUp(): Promise<void> {
    const behind = (): boolean => !this.ending && this.outboxChars + Math.max(0, ...[...this.links.values()].map((link) => link.backlog)) > BACKLOG_HIGH_BYTES;
    if (!behind()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (behind()) setTimeout(check, GATE_POLL_MS);
        else resolve();
      };
      setTimeout(check, GATE_POLL_MS);
    });
  }

  get attached(): boolean {
    return this.links.size > 0;
  }

  /** How long no page has been attached (0 while one is, or once it is ending). */
  detachedForMs(now = Date.now()): number {
    return this.detachedAt === undefined || this.ending ? 0 : now - this.detachedAt;
  }

  get isEnding(): boolean {
    return this.ending !== undefined;
  }

  /** Stops the agent (idempotent); resolves when its processes are gone. */
  end(reason: string): Promise<void> {
    this.ending ??= (async () => {
      clearTimeout(this.graceTimer);
      this.options.log(`conversation ${this.id} ended: ${reason}`);
      await this.session.stop();
      this.turnChanges.close();
      this.keep();
      this.flush();
      for (const socket of this.links.keys()) socket.close(1000, "conversation ended");
      this.options.onEnded(this);
    })();
    return this.ending;
  }

  private detach(socket: WebSocket): void {
    const link = this.links.get(socket);
    this.links.delete(socket);
    if (link) {
      this.editorLinks.delete(link);
      this.edits.pageLeft(link);
    }
    if (this.links.size > 0 || this.ending) return;
    this.detachedAt = Date.now();
    if (!this.options.named) {
      void this.end("its page closed");
      return;
    }
    this.graceTimer = setTimeout(() => void this.end(`no page attached for ${Math.round(this.options.graceMs / 1000)} s`), this.options.graceMs);
  }

  private onPageMessage(text: string, link: PageLink): void {
    const checked = checkPageMessage(text);
    // A page's bad message costs only itself: logged with what is wrong, the connection and the server go on.
    if ("refused" in checked) return this.options.log(`ignored a page message: ${checked.refused}`);
    const message = checked.message;
    switch (message.type) {
      case "prompt":
        if (message.text.trim() !== "") {
          if (this.session.info.agentName === SETUP_AGENT_TITLE) this.rememberMenuPrompt(message.text);
          void this.session.prompt(message.text, message.skipContext, message.images).then((chosen) => chosen && this.handOver(chosen, link));
        }
        return;
      case "cancel":
        return this.session.cancel();
      case "permission":
        return this.session.answerPermission(message.id, message.optionId);
      case "setMode":
        void this.session.setMode(message.modeId);
        return;
      case "authenticate":
        void this.session.authenticate(message.signInId, message.methodId);
        return;
      case "cancelSignIn":
        return this.session.cancelSignIn(message.signInId);
      case "setConfigOption":
        // A boolean option takes true or false; a select, its value's id (agent-session.ts checks it is offered).
        void this.session.setConfigOption(message.configId, message.value);
        return;
      case "listHistory":
        return this.sendHistory(link);
      case "logout":
        return void this.session.logout();
      case "listAgentSessions":
        return void this.sendAgentSessions(link, message.cursor);
      case "listFiles":
        return this.sendFiles(link);
      case "fork":
        return void this.fork(link);
      case "deleteHistory":
        if (this.options.history?.delete(message.id)) this.options.log(`deleted history ${message.id}`);
        return this.sendHistory(link);
      case "end":
        void this.end("the page started a new chat");
        return;
      case "inEditor":
        this.editorLinks.add(link);
        return;
      case "editResult":
        return this.edits.answer(link, message.id, message.result);
      case "elicitation":
        return this.session.answerElicitation(message.id, message.action, message.content);
      case "chooseAgent":
        if (!this.options.agents) return this.options.log("ignored chooseAgent: the agent command is not Symposium's conductor, so there is no agent list");
        return this.options.agents.choose(message.id, (reply) => link.send(JSON.stringify(reply)));
      case "extensions":
        if (!this.options.extensions) return this.options.log("ignored extensions: the agent command is not Symposium's conductor");
        return this.options.extensions.handle(message, (reply) => link.send(JSON.stringify(reply)));
    }
  }

  /**
   * A view that replaces the previous one of its kind (a running terminal's
   * output), not kept: what was queued before it leaves first; a page with a
   * backlog gets only the latest, serialised once for all pages.
   */
  private sendView(event: TranscriptEvent): void {
    if (this.links.size === 0) return;
    this.flush();
    const frame = eventFrame(event);
    for (const link of this.links.values()) link.sendLatest(viewKey(event), frame);
  }

  /** The command line of the agent this conversation's conductor runs (for a terminal sign-in), when the list names it. */
  private async agentCommand(): Promise<string | undefined> {
    const current = (await this.agentListing)?.current;
    return current === undefined ? undefined : this.options.agents?.commandLine(current);
  }

  /** The picker's list, with the agent this conversation runs as `current`; the listing of today, the current one of its start. */
  private offerAgents(link: PageLink): void {
    const agents = this.options.agents;
    if (!this.agentListing || !agents) return;
    void Promise.all([this.agentListing, agents.list()]).then(
      ([started, now]) => link.send(JSON.stringify({ type: "agents", agents: now.agents, current: started.current } satisfies ServerMessage)),
      () => {}, // logged when the listing failed
    );
  }

  /** Sends the event and keeps it for replay (transcript.ts), serialised once; a finished turn is kept on disk. */
  private record(event: TranscriptEvent): void {
    // A terminal's final view: an older one not yet sent must not follow it.
    if (event.kind === "terminal") for (const link of this.links.values()) link.dropLatest(viewKey(event));
    const json = JSON.stringify(event);
    this.broadcastJson(`{"type":"event","event":${json}}`);
    this.transcript.add(event, json);
    if (event.kind === "user" && this.kept.title === "") this.kept.title = titleOf(event.text);
    this.kept.title = agentTitle(event) ?? this.kept.title; // the agent's own title wins (session_info_update)
    if (event.kind === "turnEnd" && !this.restoring) this.keep();
    if (!this.restoring) this.followTurn(event);
    this.turnChanges.track(event, (undone) => {
      this.record(undone);
      this.keep();
    });
    if (event.kind === "turnEnd" && !this.restoring) void this.followFirstRunChoice();
  }

  /**
   * A conversation that started with no agent configured talks to the
   * first-run menu: once a turn there recorded a choice, the header names the
   * chosen agent, as after a choice made in the header itself.
   */
  private async followFirstRunChoice(): Promise<void> {
    const agents = this.options.agents;
    if (!agents || !this.agentListing || this.session.info.agentName !== SETUP_AGENT_TITLE) return;
    if ((await this.agentListing.catch(() => undefined))?.current !== undefined) return;
    // This turn may have recorded a choice: a listing asked before it (after the menu's first turn, say) would not name it.
    const now = agents.afterConfigChange();
    const listing = await now.catch(() => undefined);
    if (listing?.current === undefined) return;
    this.agentListing = now;
    this.broadcast({ type: "agents", agents: listing.agents, current: listing.current });
  }

  /**
   * The first-run menu recorded a choice (setup-handoff.ts): the page that
   * chose opens a new conversation with that agent, as after a choice in the
   * header, and sends the question the user asked first there.
   */
  private handOver(chosen: AgentChosen, link: PageLink): void {
    const typed = asTyped(chosen, this.menuPrompts);
    if (chosen.firstQuestion !== undefined && typed.firstQuestion === undefined)
      this.options.log("the first-run menu's first question is not one the user typed here: it is not sent");
    this.options.log(`the first-run menu chose ${chosen.name}: the page opens a new conversation with it`);
    link.send(JSON.stringify({ type: "agentChoice", ok: true, ...typed } satisfies ServerMessage));
  }

  /** Kept while few: the menu answers with the first question asked, and a user who types more is choosing. */
  private rememberMenuPrompt(text: string): void {
    if (this.menuPrompts.length < MENU_PROMPTS_KEPT) this.menuPrompts.push(text);
  }

  /** After a turn: "N files changed" with Review and Undo turn, once its checkpoint record says which. */
  private followTurn(event: TranscriptEvent): void {
    if (event.kind === "user") this.turnSentAt = Date.now();
    const sessionId = this.kept.agentSessionId;
    if (event.kind !== "turnEnd" || sessionId === undefined) return;
    void this.turnChanges.afterTurn(sessionId, this.turnSentAt, (changes) => {
      this.record(changes);
      this.keep();
    });
  }

  /** Shows a kept transcript again, without writing it back to the history. */
  private restore(events: TranscriptEvent[]): void {
    this.restoring = true;
    try {
      events.forEach((event) => this.record(event));
    } finally {
      this.restoring = false;
    }
  }

  /** The project's files for `@` in the composer (project-index.ts); a failure sends an empty list. */
  private sendFiles(link: PageLink): void {
    this.projectIndex ??= new ProjectIndex(this.options.projectDir);
    void this.projectIndex.list().then(
      ({ files, truncated }) => link.send(JSON.stringify({ type: "files", files, truncated } satisfies ServerMessage)),
      (error: Error) => {
        this.options.log(`could not list the project's files: ${error.message}`);
        link.send(JSON.stringify({ type: "files", files: [], truncated: false } satisfies ServerMessage));
      },
    );
  }

  /** A page of the agent's own sessions; the agent's refusal is said in the list, never thrown. */
  /** Forks the agent's session for the page that asked (it opens the fork in a new tab); a refusal is said, nothing else changes. */
  private async fork(link: PageLink): Promise<void> {
    let answer: ServerMessage;
    try {
      const agentSessionId = await this.session.fork();
      const historyId = this.keepFork(agentSessionId);
      answer = { type: "forked", agentSessionId, ...(historyId ? { historyId } : {}) };
    } catch (error) {
      this.options.log(`session/fork failed: ${(error as Error).message}`);
      answer = { type: "forked", error: (error as Error).message.slice(0, 300) };
    }
    link.send(JSON.stringify(answer));
  }

  private async sendAgentSessions(link: PageLink, cursor: string | undefined): Promise<void> {
    let answer: ServerMessage;
    try {
      const page = await this.session.listSessions(cursor);
      answer = { type: "agentSessions", sessions: page.sessions, leftOut: page.leftOut, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) };
    } catch (error) {
      this.options.log(`session/list failed: ${(error as Error).message}`);
      answer = { type: "agentSessions", sessions: [], leftOut: 0, error: (error as Error).message.slice(0, 300) };
    }
    link.send(JSON.stringify(answer));
  }

  private sendHistory(link: PageLink): void {
    const entries = this.options.history?.list() ?? [];
    link.send(JSON.stringify({ type: "history", entries } satisfies ServerMessage));
  }

  /**
   * The fork as a conversation of the history, with this transcript, so its tab shows the
   * conversation it continues (reopened as any kept one: load or resume); undefined: not kept.
   */
  private keepFork(agentSessionId: string): string | undefined {
    const history = this.options.history;
    if (!history) return undefined;
    const now = Date.now();
    const entry: StoredHistoryEntry = {
      id: newHistoryId(),
      title: `${this.kept.title || "Conversation"} (fork)`,
      createdAt: now,
      updatedAt: now,
      agentSessionId,
    };
    try {
      history.save(entry, [...this.transcript.replay(REPLAY_FRAME_BYTES)].flat());
      return entry.id;
    } catch (error) {
      this.options.log(`cannot keep the fork in ${history.dir}: ${errorLine(error)}`);
      return undefined;
    }
  }

  /** Writes this conversation to the history (once it has a first prompt); a failure is logged, never thrown. */
  private keep(): void {
    const history = this.options.history;
    if (!history || this.kept.title === "") return;
    try {
      this.kept.updatedAt = Date.now();
      history.save(this.kept, [...this.transcript.replay(REPLAY_FRAME_BYTES)].flat());
    } catch (error) {
      this.options.log(`cannot keep the conversation in ${history.dir}: ${errorLine(error)}`);
    }
  }
}

/** Which view an event replaces: a terminal's, by its id. */
function viewKey(event: TranscriptEvent): string {
  return event.kind === "terminal" ? `terminal:${event.terminalId}` : event.kind;
}

/** The `event` message's text, made once, when first sent. */
function eventFrame(event: TranscriptEvent): () => string {
  let text: string | undefined;
  return () => (text ??= JSON.stringify({ type: "event", event } satisfies ServerMessage));
}

/**
 * The replay's frames, built from the events' JSON text: the first a
 * `replay` (the page starts afresh), the rest batches of `event` messages.
 */
function* replayFrames(transcript: Transcript): Generator<string> {
  let first = true;
  for (const events of transcript.replay(REPLAY_FRAME_BYTES)) {
    yield first
      ? `{"type":"replay","events":[${events.join(",")}]}`
      : `{"type":"batch","messages":[${events.map((event) => `{"type":"event","event":${event}}`).join(",")}]}`;
    first = false;
  }
  if (first) yield JSON.stringify({ type: "replay", events: [] } satisfies ServerMessage);
}

/**
 * Whether one more conversation fits under `max` live ones. When full, the
 * conversation no page has looked at for longest (one in its grace period)
 * is ended to make room; when every one has a page, none fits.
 */
export function makeRoom(conversations: Iterable<Conversation>, max: number, log: (line: string) => void): boolean {
  const live = [...conversations].filter((conversation) => !conversation.isEnding);
  if (live.length < max) return true;
  const now = Date.now();
  const idlest = live.filter((conversation) => !conversation.attached).sort((a, b) => b.detachedForMs(now) - a.detachedForMs(now))[0];
  if (!idlest) return false;
  log(
    `${max} conversations are running (--max-conversations): ending ${idlest.id}, which has had no page for ${Math.round(idlest.detachedForMs(now) / 1000)} s`,
  );
  void idlest.end("a new conversation needed its place (the server's limit of conversations was reached)");
  return true;
}

/** Tells a page its conversation cannot start (the page shows why), then closes its socket. */
export function refuseConversation(socket: WebSocket, max: number, log: (line: string) => void): void {
  log(`refused a new conversation: the ${max} running (--max-conversations) all have a page open`);
  const message =
    `This chat server already runs ${max} conversation${max === 1 ? "" : "s"}, each with a page open: the most it allows. ` +
    `Close a tab or another chat page, then use New chat here. The limit is the setting symposium.chat.maxConversations (the chat server's --max-conversations).`;
  const session: SessionInfo = { state: "ended", modes: [], commands: [], ended: { message, stderrTail: [] } };
  socket.on("error", () => {}); // the page may be gone already: nothing to tell
  socket.send(JSON.stringify({ type: "session", session } satisfies ServerMessage));
  // 1013: "try again later", the websocket code for a server at capacity.
  socket.close(1013, "too many conversations");
}
