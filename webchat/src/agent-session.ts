// One conversation's agent: its process (the user's command line, run through
// the shell with cwd = the project directory, as Toad runs it) and the ACP
// client session on its stdio. Everything the agent says becomes transcript
// events; permission requests wait for a page to answer, or are cancelled.

import { Readable, Writable } from "node:stream";
import {
  client,
  ndJsonStream,
  RequestError,
  type AuthMethod,
  type ClientConnection,
  type InitializeResponse,
  type RequestPermissionResponse,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { StderrTail, describeExit, describeSpawnError, followStderr, packageVersion, type Logger } from "../../acp-wire/src/index.js";
import { EDITOR_CONTEXT_META_KEY } from "../../editor-context-proxy/src/index.js";
import { NOTICES_META_KEY } from "../../conductor-hooks/src/tools-not-started.js";
import { agentChosenIn, NEW_CONVERSATION_ON_CHOICE, SETUP_AGENT_TITLE, type AgentChosen } from "../../conductor-hooks/src/setup-handoff.js";
import { knownAgentFor } from "../../conductor-hooks/src/agent-choices.js";
import { knownRemedies } from "../../conductor-hooks/src/agent-failure.js";
import { errorLine } from "../../loopback-auth/src/index.js";
import type { AuthMethodInfo, ConfigOptionInfo, EndedInfo, PermissionOption, SessionInfo, TranscriptEvent } from "../page/protocol.js";
import type { ProjectFiles } from "./project-files.js";
import { Terminals } from "./terminals.js";
import { startAgentProcess, type AgentProcess } from "./agent-process.js";
import { commandText, type AgentCommand } from "./agent-command.js";
import { ourConductorRun } from "./agent-catalog.js";
import { mcpServerNames, reportedMcpServers } from "./mcp-servers.js";
import { editorPath, writeRefusal, type OfferResult } from "./workspace-edits.js";
import { mentionBlocks } from "./project-index.js";
import { CLIENT_CAPABILITIES, TERMINAL_AUTH_META } from "./client-capabilities.js";
import { Elicitations } from "./elicitation.js";
import { usageInfo } from "./usage.js";
import { closeAgentSession } from "./agent-sessions.js";
import { promptImages } from "./prompt-images.js";
import { agentSessionPage, isAgentSessionId, type AgentSessionPage } from "./agent-session-list.js";
// session/fork is a draft: its types are the SDK's unstable schema.
import type { ForkSessionResponse, SessionCapabilities as DraftSessionCapabilities } from "@agentclientprotocol/sdk/unstable";

/** ACP's "authentication required" error code (the agent needs a sign-in first). */
export const AUTH_REQUIRED = -32000;

/** The capabilities offered to an agent that is not our conductor: no first-run hand-over (it relays the chosen agent instead). */
const WITHOUT_HAND_OVER = { ...CLIENT_CAPABILITIES, _meta: withoutKey(CLIENT_CAPABILITIES._meta, NEW_CONVERSATION_ON_CHOICE) };

const STDERR_TAIL_LINES = 12;
/** How long a sign-in may take before the chat gives up on it (the user may Cancel sooner); the variable sets another. */
const SIGNIN_LIMIT_MS = 180_000;
const SIGNIN_LIMIT_ENV = "SYMPOSIUM_CHAT_SIGNIN_TIMEOUT_MS";
/** The agent's lines a pending sign-in shows (its address or code is among the first). */
const SIGNIN_OUTPUT_LINES = 20;
/** Our conductor's own log lines on stderr, and the prefix with which it relays a component's lines. */
const CONDUCTOR_LOG = "[symposium-conductor]";
const RELAY_PREFIX = /^\[[^\]\s]+\] /;
/** Our conductor's log of a line the agent printed on stdout for a person (router.ts): Gemini CLI's sign-in address. */
const AGENT_STDOUT_LOG = /^\[symposium-conductor\] agent wrote on stdout, not a message: (.*)$/;
/** Our conductor's line when `run` installs the agent first (conductor-hooks/src/registry-install.ts): "<id> <version>". */
const CONDUCTOR_INSTALLING = /^\[symposium-conductor\] installing (\S+ \S+) (?:from|with) /;

export interface AgentSessionOptions {
  command: AgentCommand;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  files: ProjectFiles;
  log: Logger;
  /** Receives every transcript event and every change of the session's state. */
  onEvent(event: TranscriptEvent): void;
  onSession(info: SessionInfo): void;
  /** The agent's stdout is read on once this resolves: how a slow page's back-pressure reaches the agent. */
  readGate?: () => Promise<void>;
  /** Reopen this agent session (docs/webchat.md: history) rather than start one. */
  reopen?: { agentSessionId: string };
  /** How a reopen goes: the agent replays it (load), continues it (resume), or cannot (readOnly: the agent is stopped). */
  onReopen?(how: "load" | "resume" | "readOnly"): void;
  /** The agent's session id, once it has one. */
  onSessionId?(agentSessionId: string): void;
  /** A transcript event the page shows but the transcript does not keep (a terminal's output as it grows). */
  onTransient?(event: TranscriptEvent): void;
  /** Offers an agent's write (a path inside the project) to VS Code first (workspace-edits.ts); "notOpen": write to disk. */
  offerEdit?(path: string, content: string): Promise<OfferResult>;
  /**
   * The agent's own command line, when `command` is a conductor that starts it (agent-catalog.ts): a terminal
   * sign-in runs the agent with the method's args, not the conductor. Undefined, or resolving to undefined: `command`.
   */
  agentCommand?(): Promise<string | undefined>;
}

type PermissionAnswer = (response: RequestPermissionResponse) => void;

export class AgentSession {
  readonly info: SessionInfo = { state: "starting", modes: [], commands: [] };
  private readonly child: AgentProcess;
  private readonly connection: ClientConnection;
  private sessionId: string | undefined;
  private readonly permissions = new Map<string, PermissionAnswer>();
  private permissionCount = 0;
  private readonly stderrTail = new StderrTail(STDERR_TAIL_LINES);
  private stopping = false;
  private readonly terminals: Terminals;
  private authMethods: AuthMethod[] = [];
  private signInCount = 0;
  /** Reopened from the history by an agent that cannot load or resume: the kept transcript is shown read-only. */
  private readOnly = false;
  /** The agent takes `resource` blocks (promptCapabilities.embeddedContext): mentions are sent with their text. */
  private embeddedContext = false;
  /** Why the agent could not open a session, as its answer said (it is then stopped: the page offers Retry). */
  private startFailure: { message: string; detail: string[] } | undefined;
  /** The agent offers session/close: an ending conversation closes its session first (agent-sessions.ts). */
  private closeOffered = false;
  /** The agent takes additionalDirectories: session/new names the workspace's other folders. */
  private foldersOffered = false;
  /** The sign-in under way (`authenticate` sent, no answer yet): what the agent writes meanwhile is shown on its card. */
  private pendingSignIn: PendingSignIn | undefined;
  /** A tool failed for a known cause (Codex without bubblewrap): said once per conversation. */
  private readonly causesSaid = new Set<string>();
  /** The agent's questions (elicitation.ts). */
  private readonly elicitations = new Elicitations(
    (event) => this.options.onEvent(event),
    (line) => this.options.log(line),
  );

  constructor(private readonly options: AgentSessionOptions) {
    // The command's process, or our own conductor's run in this process (agent-process.ts).
    this.child = startAgentProcess({ command: options.command, cwd: options.projectDir, env: options.env, log: options.log });
    void followStderr(this.child.stderr, this.stderrTail, (line) => {
      if (line.trim() !== "") options.log(`agent: ${line}`);
      this.noteInstall(line);
      this.noteSignInOutput(line);
    });
    this.child.ended.then(
      ({ code, signal }) => this.end(`The agent ${describeExit(code, signal)}.`, { code, signal }),
      (error: Error) => this.end(describeSpawnError(commandText(options.command), error)),
    );
    this.terminals = new Terminals({
      files: options.files,
      projectDir: options.projectDir,
      env: options.env,
      log: options.log,
      onOutput: (event, keep) => (keep ? options.onEvent(event) : options.onTransient?.(event)),
    });
    this.connection = this.connect();
    this.open().catch((error: unknown) => {
      // A bug (or a kept transcript that breaks it) must not end the server and every conversation in it.
      options.log(`internal error starting the session: ${errorLine(error)}`);
      void this.stop();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Running terminals as the page shows them (for a page attaching mid-run). */
  terminalSnapshots(): TranscriptEvent[] {
    return this.terminals.snapshots();
  }

  /** Resolves once the turn has ended; with the agent chosen in it when the first-run menu's turn recorded a choice (setup-handoff.ts). */
  async prompt(text: string, skipContext: boolean, images?: unknown): Promise<AgentChosen | undefined> {
    if (this.info.state !== "ready" || this.sessionId === undefined) {
      this.options.onEvent({
        kind: "notice",
        message: this.info.state === "prompting" ? "The agent is still answering: wait, or cancel the turn." : "The agent is not ready.",
        promptRefused: true,
      });
      return undefined;
    }
    const imageBlocks = promptImages(images, this.info.imagePrompts === true);
    if ("refused" in imageBlocks) {
      this.options.onEvent({ kind: "error", message: `The message was not sent: ${imageBlocks.refused}.` });
      return undefined;
    }
    const shownImages = imageBlocks.blocks.length > 0 ? { images: imageBlocks.blocks.length } : {};
    this.options.onEvent({ kind: "user", text, contextSkipped: skipContext, ...shownImages });
    this.setState("prompting");
    try {
      const response = await this.connection.agent.request("session/prompt", {
        sessionId: this.sessionId,
        // Mentions (`@src/main.rs:2-3`) follow the text; the editor-context block is put first downstream.
        prompt: [
          { type: "text", text },
          ...imageBlocks.blocks,
          ...(await mentionBlocks(text, this.options.projectDir, this.options.files, this.embeddedContext)),
        ],
        ...(skipContext ? { _meta: { [EDITOR_CONTEXT_META_KEY]: false } } : {}),
      });
      this.options.onEvent({ kind: "turnEnd", stopReason: response.stopReason });
      // What our conductor has to tell the user about the turn (an agent that never started the editor's tools).
      for (const notice of conductorNotices(response)) this.options.onEvent({ kind: "notice", message: notice });
      return this.info.agentName === SETUP_AGENT_TITLE && this.takesHandOver() ? agentChosenIn(response) : undefined;
    } catch (error) {
      if (this.state() === "ended") return undefined;
      if (isAuthRequired(error)) await this.askToSignIn(error, text);
      else this.options.onEvent({ kind: "error", message: `The prompt failed: ${(error as Error).message}` });
      return undefined;
    } finally {
      if (this.state() === "prompting") this.setState("ready");
    }
  }

  /**
   * Whether a first-run hand-over is taken from this conversation's agent: only when it is our own conductor's
   * `run` (this build's), which removes the hand-over from every agent's answer but its own setup agent's
   * (setup-handoff.ts). Any other agent may call itself "Symposium setup"; it is not offered the hand-over.
   */
  private takesHandOver(): boolean {
    return ourConductorRun(this.options.command) !== undefined;
  }

  /** One page of the agent's own sessions in the project (`session/list`), bounded (agent-session-list.ts). */
  async listSessions(cursor: string | undefined): Promise<AgentSessionPage> {
    if (this.info.agentSessions !== true) return { sessions: [], leftOut: 0 };
    const response = await this.connection.agent.request("session/list", { cwd: this.options.projectDir, ...(cursor ? { cursor } : {}) });
    return agentSessionPage(response);
  }

  /**
   * A copy of this session (`session/fork`, a draft of ACP: only when the agent offers it): the
   * agent's id of the new session, for a new conversation to reopen. The draft copies the whole
   * session; it has no point to cut at.
   */
  async fork(): Promise<string> {
    if (this.info.canFork !== true || this.sessionId === undefined) throw new Error("this agent does not fork sessions, or the session has not started");
    const folders = this.foldersOffered ? this.options.files.additionalDirectories : [];
    const forked = await this.connection.agent.request<Partial<ForkSessionResponse> | null>("session/fork", {
      sessionId: this.sessionId,
      cwd: this.options.projectDir,
      mcpServers: [],
      ...(folders.length > 0 ? { additionalDirectories: folders } : {}),
    });
    const id = forked?.sessionId;
    if (!isAgentSessionId(id)) throw new Error("the agent answered session/fork without a usable session id");
    return id;
  }

  /** Ends the running turn: pending permission requests are cancelled, then session/cancel. */
  cancel(): void {
    if (this.info.state !== "prompting" || this.sessionId === undefined) return;
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    this.elicitations.cancelAll();
    void this.connection.agent.notify("session/cancel", { sessionId: this.sessionId }).catch(() => {});
  }

  answerPermission(id: string, optionId: string): void {
    this.settlePermission(id, optionId);
  }

  answerElicitation(id: string, action: unknown, content: unknown): void {
    this.elicitations.answer(id, action, content);
  }

  async setMode(modeId: string): Promise<void> {
    if (this.sessionId === undefined || !this.info.modes.some((mode) => mode.id === modeId)) return;
    try {
      await this.connection.agent.request("session/set_mode", { sessionId: this.sessionId, modeId });
      this.info.currentModeId = modeId;
      this.options.onSession(this.info);
    } catch (error) {
      this.options.onEvent({ kind: "error", message: `The agent refused the mode: ${(error as Error).message}` });
    }
  }

  /**
   * Sends `authenticate` with the method the user chose on sign-in card `signInId`; a session follows if none could
   * start. While it is pending the card shows what the agent writes (an address, a code) and offers Cancel; after
   * the time limit the chat stops waiting, and says what to try.
   */
  async authenticate(signInId: string, methodId: string): Promise<void> {
    if (!this.authMethods.some((method) => method.id === methodId))
      return this.options.log(`ignored a sign-in with a method the agent does not offer: ${JSON.stringify(methodId)}`);
    if (this.pendingSignIn !== undefined) return this.options.log("ignored a sign-in: one is already under way");
    const pending: PendingSignIn = { id: signInId, methodId, lines: [], stop: new AbortController(), limitMs: signInLimit(this.options.env) };
    this.pendingSignIn = pending;
    this.showSignInProgress();
    const timer = setTimeout(() => pending.stop.abort("timeout"), pending.limitMs);
    try {
      await this.connection.agent.request("authenticate", { methodId }, { cancellationSignal: pending.stop.signal, stopWaitingOnCancel: true });
      this.options.onEvent({ kind: "signInDone", id: signInId, methodId, ok: true });
    } catch (error) {
      const message = this.signInFailure(pending, error);
      this.options.onEvent({ kind: "signInDone", id: signInId, methodId, ok: false, message, ...(pending.lines.length > 0 ? { output: pending.lines } : {}) });
      return;
    } finally {
      clearTimeout(timer);
      this.pendingSignIn = undefined;
    }
    if (this.sessionId === undefined && this.info.state === "starting") {
      this.info.waitingFor = undefined;
      this.options.onSession(this.info);
      await this.startSession();
    }
  }

  /** The page's Cancel on a pending sign-in: the chat stops waiting for it (the agent is told, `$/cancel_request`). */
  cancelSignIn(signInId: string): void {
    if (this.pendingSignIn?.id === signInId) this.pendingSignIn.stop.abort("cancel");
  }

  /** Why a sign-in did not finish, and what to try: the agent's own way to sign in where it is known. */
  private signInFailure(pending: PendingSignIn, error: unknown): string {
    const reason = pending.stop.signal.reason as unknown;
    const minutes = Math.max(1, Math.round(pending.limitMs / 60_000));
    const what =
      reason === "cancel"
        ? "The sign-in was cancelled."
        : reason === "timeout"
          ? `The sign-in did not finish within ${minutes} min: the agent may be waiting for a browser page that never opened here, or for a server it cannot reach.`
          : `The sign-in failed: ${(error as Error).message.replace(/\.$/, "")}.`;
    const known = knownAgentFor([this.info.agentName ?? ""]);
    const printed = pending.lines.length > 0 ? "open the address the agent printed (above) in a browser yourself, or " : "";
    const own = known?.login ?? "sign in with the agent's own command in a terminal";
    const again = this.sessionId === undefined ? "Try again" : "Send again";
    return `${what} What to try: ${printed}${own}; then press ${again}.`;
  }

  /** While a sign-in is pending, what the agent prints (its stderr, and its stdout lines that are no message) goes to its card. */
  private noteSignInOutput(line: string): void {
    const pending = this.pendingSignIn;
    const printed = AGENT_STDOUT_LOG.exec(line)?.[1];
    const said = printed ?? (line.startsWith(CONDUCTOR_LOG) ? "" : line.replace(RELAY_PREFIX, ""));
    if (pending === undefined || said.trim() === "") return;
    pending.lines = [...pending.lines, said].slice(-SIGNIN_OUTPUT_LINES);
    this.showSignInProgress();
  }

  private showSignInProgress(): void {
    const pending = this.pendingSignIn;
    if (pending === undefined) return;
    this.options.onTransient?.({ kind: "signInProgress", id: pending.id, methodId: pending.methodId, lines: pending.lines, limitMs: pending.limitMs });
  }

  /** `logout`: the agent forgets its sign-in; what it answers is said in the conversation (the next prompt may ask to sign in again). */
  async logout(): Promise<void> {
    if (this.info.canLogout !== true) return this.options.log("ignored a sign-out: the agent does not offer logout");
    try {
      await this.connection.agent.request("logout", {});
      this.options.onEvent({ kind: "notice", message: "Signed out of the agent: it asks you to sign in again when it needs to." });
    } catch (error) {
      this.options.onEvent({ kind: "error", message: `The agent did not sign out: ${(error as Error).message}` });
    }
  }

  /** session/set_config_option with a value the agent offered (a boolean option takes true or false); its answer replaces the options. */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const option = this.info.configOptions?.find((each) => each.id === configId);
    const offered = option?.type === "boolean" ? typeof value === "boolean" : option?.options.some((each) => each.value === value) === true;
    if (this.sessionId === undefined || !option || !offered)
      return this.options.log(`ignored a config option the agent does not offer: ${JSON.stringify(configId)} = ${JSON.stringify(value)}`);
    const sessionId = this.sessionId;
    try {
      const response = await this.connection.agent.request(
        "session/set_config_option",
        typeof value === "boolean" ? { sessionId, configId, type: "boolean", value } : { sessionId, configId, value },
      );
      this.info.configOptions = configOptionInfos(response.configOptions);
      this.options.onSession(this.info);
    } catch (error) {
      this.options.onEvent({ kind: "error", message: `The agent refused the setting ${option.name}: ${(error as Error).message}` });
      this.options.onSession(this.info); // the toggle or picker goes back to the value the agent still has
    }
  }

  /** The agent's write: to the document open in VS Code when there is one (workspace-edits.ts), else to disk. */
  private async write(requested: string, content: string): Promise<void> {
    const offered = this.options.offerEdit && editorPath(this.options.files, this.options.projectDir, requested, content);
    const result = offered ? await this.options.offerEdit!(offered, content) : "notOpen";
    const refused = writeRefusal(result, requested, content.length, [this.options.projectDir, ...this.options.files.additionalDirectories]);
    if (refused) throw new RequestError(refused.code, refused.message, refused.data);
    if (result === "notOpen") await this.options.files.write(requested, content);
  }

  /** Ends the agent, its terminals, and everything they started (docs/webchat.md: conversations). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    this.elicitations.cancelAll();
    if (this.closeOffered && this.sessionId !== undefined && this.info.state !== "ended")
      await closeAgentSession(this.connection, this.sessionId, this.options.log);
    this.connection.close();
    await Promise.all([this.child.stop(), this.terminals.stopAll()]);
  }

  private connect(): ClientConnection {
    const files = this.options.files;
    const refuseLogged = (method: string) => (error: unknown) => {
      this.options.log(`refused ${method} from the agent: ${(error as Error).message}`);
      throw error;
    };
    const app = client({ name: "symposium-webchat" })
      .onNotification("session/update", ({ params }) => this.onUpdate(params.update))
      .onRequest(
        "session/request_permission",
        ({ params, signal }) =>
          new Promise<RequestPermissionResponse>((resolve) => {
            const id = `permission-${++this.permissionCount}`;
            this.permissions.set(id, resolve);
            signal.addEventListener("abort", () => this.settlePermission(id, undefined));
            const options: PermissionOption[] = params.options.map(({ optionId, name, kind }) => ({ optionId, name, kind }));
            this.options.onEvent({
              kind: "permission",
              id,
              title: params.toolCall.title ?? "The agent asks for permission",
              toolKind: params.toolCall.kind ?? undefined,
              options,
            });
          }),
      )
      .onRequest("elicitation/create", ({ params, signal }) => this.elicitations.create(params, signal))
      .onNotification("elicitation/complete", ({ params }) => this.elicitations.complete(params.elicitationId))
      .onRequest("fs/read_text_file", ({ params }) =>
        files.read(params.path, params.line, params.limit).then((content) => ({ content }), refuseLogged("fs/read_text_file")),
      )
      .onRequest("fs/write_text_file", ({ params }) => this.write(params.path, params.content).then(() => ({}), refuseLogged("fs/write_text_file")))
      .onRequest("terminal/create", ({ params }) => this.terminals.create(params))
      .onRequest("terminal/output", ({ params }) => this.terminals.output(params.terminalId))
      .onRequest("terminal/wait_for_exit", ({ params }) => this.terminals.waitForExit(params.terminalId))
      .onRequest("terminal/kill", async ({ params }) => {
        await this.terminals.kill(params.terminalId);
        return {};
      })
      .onRequest("terminal/release", async ({ params }) => {
        await this.terminals.release(params.terminalId);
        return {};
      });
    const output = this.options.readGate
      ? gatedReadable(this.child.stdout, this.options.readGate)
      : (Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>);
    return app.connect(ndJsonStream(Writable.toWeb(this.child.stdin) as WritableStream<Uint8Array>, output));
  }

  private async open(): Promise<void> {
    let init: InitializeResponse;
    try {
      init = await this.connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: this.takesHandOver() ? CLIENT_CAPABILITIES : WITHOUT_HAND_OVER,
        clientInfo: { name: "symposium-webchat", version: packageVersion() },
      });
      this.info.agentName = init.agentInfo?.title ?? init.agentInfo?.name ?? undefined;
      this.authMethods = init.authMethods ?? [];
      this.embeddedContext = init.agentCapabilities?.promptCapabilities?.embeddedContext === true;
      this.info.imagePrompts = init.agentCapabilities?.promptCapabilities?.image === true;
      this.info.canLogout = init.agentCapabilities?.auth?.logout != null;
      this.closeOffered = init.agentCapabilities?.sessionCapabilities?.close != null;
      const reopens = init.agentCapabilities?.loadSession === true || init.agentCapabilities?.sessionCapabilities?.resume != null;
      this.info.agentSessions = init.agentCapabilities?.sessionCapabilities?.list != null && reopens;
      // A fork is reopened by a new conversation's agent process: only an agent that reopens sessions can be offered it.
      this.info.canFork = (init.agentCapabilities?.sessionCapabilities as DraftSessionCapabilities | null | undefined)?.fork != null && reopens;
      this.foldersOffered = init.agentCapabilities?.sessionCapabilities?.additionalDirectories != null;
      this.info.authMethods = this.authMethods.map((method) => authMethodInfo(method, commandText(this.options.command)));
    } catch (error) {
      return this.failedToStart("The agent did not start", error);
    }
    const reopen = this.options.reopen;
    if (reopen) {
      const capabilities = init.agentCapabilities;
      const how = capabilities?.loadSession ? "load" : capabilities?.sessionCapabilities?.resume ? "resume" : "readOnly";
      this.options.onReopen?.(how);
      if (how === "readOnly") {
        this.readOnly = true;
        return void this.stop();
      }
      return this.startSession(how, reopen.agentSessionId);
    }
    await this.startSession();
  }

  /** session/new (or session/load, session/resume); an agent that wants a sign-in first gets the sign-in card. */
  private async startSession(how: "new" | "load" | "resume" = "new", agentSessionId?: string): Promise<void> {
    try {
      const base = { cwd: this.options.projectDir, mcpServers: [] };
      let session: { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null; _meta?: Record<string, unknown> | null };
      if (how === "new") {
        const folders = this.foldersOffered ? this.options.files.additionalDirectories : [];
        const created = await this.connection.agent.request("session/new", {
          cwd: base.cwd,
          mcpServers: [],
          ...(folders.length > 0 ? { additionalDirectories: folders } : {}),
        });
        this.sessionId = created.sessionId;
        session = created;
      } else {
        // session/load replays the conversation as session/update notifications before it answers.
        this.sessionId = agentSessionId!;
        const params = { ...base, sessionId: agentSessionId! };
        session = how === "load" ? await this.connection.agent.request("session/load", params) : await this.connection.agent.request("session/resume", params);
      }
      this.options.onSessionId?.(this.sessionId);
      this.info.agentSessionId = this.sessionId;
      this.info.modes = session.modes?.availableModes.map(({ id, name, description }) => ({ id, name, description })) ?? [];
      this.info.currentModeId = session.modes?.currentModeId;
      this.info.configOptions = configOptionInfos(session.configOptions);
      // Our conductor's own report when it sent one; else what it would add (the chat names none of its own).
      const reported = reportedMcpServers(session);
      this.info.mcpServers = reported?.given ?? mcpServerNames([], this.options.command, this.options.env);
      this.info.mcpServersWithheld = reported?.withheld ?? [];
      this.setState("ready");
    } catch (error) {
      if (how !== "new") this.sessionId = undefined;
      if (isAuthRequired(error) && this.info.state === "starting") {
        this.info.waitingFor = "signIn";
        this.options.onSession(this.info);
        return this.askToSignIn(error);
      }
      this.failedToStart("The agent did not start a session", error);
    }
  }

  private async askToSignIn(error: unknown, retryText?: string): Promise<void> {
    const detail = (error as Error).message;
    await this.useAgentCommandForTerminalSignIn();
    const message =
      this.authMethods.length > 0
        ? "The agent asks you to sign in."
        : `The agent asks you to sign in, but offers no way to do it here (${detail}): sign in as its documentation says, then send again.`;
    this.options.onEvent({
      kind: "signIn",
      id: `signin-${++this.signInCount}`,
      message,
      methods: this.info.authMethods ?? [],
      ...(retryText !== undefined ? { retryText } : {}),
    });
  }

  /** A terminal method's command names the agent the conductor runs, not the conductor (its words would start another). */
  private async useAgentCommandForTerminalSignIn(): Promise<void> {
    if (!this.options.agentCommand || !this.authMethods.some((method) => "type" in method && method.type === "terminal")) return;
    const command = await this.options.agentCommand().catch((error: unknown) => {
      this.options.log(`the agent's own command for a terminal sign-in could not be read: ${(error as Error).message}`);
      return undefined;
    });
    if (command !== undefined) this.info.authMethods = this.authMethods.map((method) => authMethodInfo(method, command));
  }

  /**
   * The agent answered initialize or session/new with an error: the
   * conversation ends in a state that says so (the page offers Retry and
   * another agent), never stays "starting". An agent that exits meanwhile
   * is reported by "exit", with its status; one that stays is stopped.
   */
  private failedToStart(what: string, error: unknown): void {
    if (this.info.state === "ended" || this.stopping) return;
    const failure = { message: `${what}: ${(error as Error).message}`, detail: errorDetails(error) };
    // The agent's answer says why; a broken pipe (EPIPE) means it is exiting, and its exit status and stderr say more.
    if (typeof (error as { code?: unknown } | null)?.code === "number") this.startFailure = failure;
    setTimeout(() => {
      if (this.info.state === "ended" || this.stopping) return;
      this.startFailure ??= failure;
      void this.stop();
    }, 200);
  }

  private onUpdate(update: SessionUpdate): void {
    this.noteKnownCause(update);
    if (update.sessionUpdate === "available_commands_update") {
      this.info.commands = update.availableCommands.map((command) => ({
        name: command.name,
        description: command.description,
        hint: command.input && "hint" in command.input ? command.input.hint : undefined,
      }));
      this.options.onSession(this.info);
    } else if (update.sessionUpdate === "current_mode_update") {
      this.info.currentModeId = update.currentModeId;
      this.options.onSession(this.info);
    } else if (update.sessionUpdate === "usage_update") {
      // The header's meter (usage.ts); not kept in the transcript: only the latest counts.
      this.info.usage = usageInfo(update) ?? this.info.usage;
      return this.options.onSession(this.info);
    } else if (update.sessionUpdate === "config_option_update") {
      this.info.configOptions = configOptionInfos(update.configOptions);
      this.options.onSession(this.info);
    }
    this.options.onEvent({ kind: "update", update });
  }

  /** A tool that failed for a known cause (Codex's sandbox without bubblewrap) gets, once, the conductor's remedy. */
  private noteKnownCause(update: SessionUpdate): void {
    if (update.sessionUpdate !== "tool_call_update" && update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "agent_message_chunk") return;
    const text = JSON.stringify(update).slice(0, 100_000);
    const cause = knownRemedies({ command: [], text: [text] }).cause;
    if (cause === null || this.causesSaid.has(cause.reason)) return;
    this.causesSaid.add(cause.reason);
    // After the update itself, so that it reads under the failed tool call.
    queueMicrotask(() =>
      this.options.onEvent({ kind: "error", message: `${cause.reason}.`, detail: ["What to try:", ...cause.remedy.map((line) => `- ${line}`)] }),
    );
  }

  private settlePermission(id: string, optionId: string | undefined): void {
    const answer = this.permissions.get(id);
    if (!answer) return;
    this.permissions.delete(id);
    answer(optionId === undefined ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId } });
    this.options.onEvent({ kind: "permissionDone", id, outcome: optionId === undefined ? "cancelled" : "selected", optionId });
  }

  private end(message: string, exit?: EndedInfo["exit"]): void {
    if (this.info.state === "ended") return;
    // Ended before a session opened, and not by the user: said as a failure to start, with Retry (docs/webchat.md).
    const startFailed = this.info.state === "starting" && !this.readOnly && (!this.stopping || this.startFailure !== undefined);
    void this.terminals.stopAll(); // the agent is gone: nobody will release them
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    this.elicitations.cancelAll();
    // Let the last stderr bytes arrive: they usually say why.
    setTimeout(() => {
      const stderrTail = this.stderrTail.lines();
      this.info.waitingFor = undefined;
      this.info.ended = this.readOnly
        ? {
            message: "This agent cannot reopen a past conversation: this is the kept transcript, read-only.",
            stderrTail: [],
            readOnly: true,
          }
        : startFailed
          ? this.startFailedInfo(message, stderrTail, exit)
          : { message: this.stopping ? "The conversation ended." : message, stderrTail: this.stopping ? [] : stderrTail, ...(exit ? { exit } : {}) };
      if (startFailed) message = this.info.ended.message;
      this.setState("ended");
      if (!this.stopping || startFailed) this.options.log(`${message} ${stderrTail.length > 0 ? `Last stderr: ${stderrTail.join(" | ")}` : ""}`.trim());
      this.connection.close();
    }, 50);
  }

  /** A failure to start: the agent's own answer when it gave one, else how the process ended (its exit status). */
  private startFailedInfo(message: string, stderrTail: string[], exit: EndedInfo["exit"]): EndedInfo {
    const failure = this.startFailure;
    const said = failure?.message ?? (exit ? `${message.replace(/\.$/, "")} before it opened a session.` : `The agent did not start: ${message}`);
    const detail = failure?.detail ?? [];
    return { message: said, stderrTail: notRepeated(stderrTail, detail), startFailed: true, detail, ...(exit ? { exit } : {}) };
  }

  /** Read through a call: the state changes while a prompt awaits. */
  private state(): SessionInfo["state"] {
    return this.info.state;
  }

  private setState(state: SessionInfo["state"]): void {
    this.info.state = state;
    delete this.info.installing;
    this.options.onSession(this.info);
  }

  /** While the agent starts, a download can take minutes: the page says what is being installed. */
  private noteInstall(line: string): void {
    const installing = CONDUCTOR_INSTALLING.exec(line)?.[1];
    if (installing === undefined || this.info.state !== "starting") return;
    this.info.installing = installing;
    this.options.onSession(this.info);
  }
}

/**
 * The agent's stdout as a web stream that reads a chunk only when asked and
 * only once `gate` resolves: while it waits, the pipe fills and the agent's
 * writes block (Readable.toWeb would read ahead, and resume a paused stream).
 */
function gatedReadable(source: Readable, gate: () => Promise<void>): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await gate();
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The stderr lines the explanation does not already hold: our conductor logs the report it answers with, so
 * the tail would say the advice twice.
 */
function notRepeated(stderrTail: string[], detail: string[]): string[] {
  if (detail.length === 0) return stderrTail;
  const explained = new Set(detail.map((line) => line.trim()));
  return stderrTail.filter((line) => !explained.has(line.replace(CONDUCTOR_LOG, "").trim()) && !explained.has(line.replace(RELAY_PREFIX, "").trim()));
}

interface PendingSignIn {
  id: string;
  methodId: string;
  /** What the agent wrote since, its last SIGNIN_OUTPUT_LINES lines. */
  lines: string[];
  /** Aborted with "cancel" (the page's Cancel) or "timeout". */
  stop: AbortController;
  limitMs: number;
}

function signInLimit(env: NodeJS.ProcessEnv): number {
  const set = Number(env[SIGNIN_LIMIT_ENV]);
  return Number.isSafeInteger(set) && set > 0 ? set : SIGNIN_LIMIT_MS;
}

/** An error's multi-line explanation, when it carries one (the conductor's `data.details`: command, stderr, what to try). */
function errorDetails(error: unknown): string[] {
  const details = (error as { data?: { details?: unknown } } | null)?.data?.details;
  return typeof details === "string" ? details.split("\n").slice(0, 60) : [];
}

function isAuthRequired(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === AUTH_REQUIRED;
}

/** The options as the page shows them: selects (the model picker) and booleans (toggles); other types are skipped. */
function configOptionInfos(options: SessionConfigOption[] | null | undefined): ConfigOptionInfo[] {
  const shown: ConfigOptionInfo[] = [];
  for (const option of options ?? []) {
    const base = { id: option.id, name: option.name, description: option.description ?? undefined, category: option.category ?? undefined };
    if (option.type === "boolean") {
      if (typeof option.currentValue === "boolean") shown.push({ ...base, type: "boolean", currentValue: option.currentValue });
      continue;
    }
    if (option.type !== "select") continue;
    const choices = option.options.flatMap((each) =>
      "group" in each
        ? each.options.map(({ value, name, description }) => ({ value, name, description: description ?? undefined, group: each.name }))
        : [{ value: each.value, name: each.name, description: each.description ?? undefined }],
    );
    shown.push({ ...base, type: "select", currentValue: option.currentValue, options: choices });
  }
  return shown;
}

/**
 * How the card shows a sign-in method: a terminal method (ACP's type
 * "terminal": the agent's own command with these args and env; or a
 * `_meta["terminal-auth"]` {command, args} hint) says the exact command.
 */
export function authMethodInfo(method: AuthMethod, agentCommand: string): AuthMethodInfo {
  const info: AuthMethodInfo = { id: method.id, name: method.name, ...(method.description ? { description: method.description } : {}) };
  const hint = method._meta?.[TERMINAL_AUTH_META] as { command?: unknown; args?: unknown } | undefined;
  if (hint && typeof hint.command === "string") {
    info.command = [hint.command, ...(Array.isArray(hint.args) ? hint.args.map(String) : [])].map(shellWord).join(" ");
  } else if ("type" in method && method.type === "terminal") {
    const env = Object.entries(method.env ?? {}).map(([name, value]) => `${name}=${shellWord(value)}`);
    info.command = [...env, agentCommand, ...(method.args ?? []).map(shellWord)].join(" ");
  } else if ((method as { type?: unknown }).type === "env_var") {
    info.envVars = envVarNames((method as { vars?: unknown }).vars);
  }
  return info;
}

/** The names an `env_var` method lists (`vars: [{name}]`), only ones a shell can set, at most 8. */
function envVarNames(vars: unknown): string[] {
  if (!Array.isArray(vars)) return [];
  const names = vars.map((each: { name?: unknown } | null) => each?.name).filter((name): name is string => typeof name === "string");
  return names.filter((name) => /^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(name)).slice(0, 8);
}

/** A word as a POSIX shell reads it back (for display: the user copies it into a terminal). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function withoutKey<T extends object>(object: T, key: string): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key)) as Partial<T>;
}

/** The plain-text notices in a prompt answer's `_meta` (conductor-hooks/src/tools-not-started.ts). */
function conductorNotices(response: { _meta?: Record<string, unknown> | null }): string[] {
  const notices = response._meta?.[NOTICES_META_KEY];
  return Array.isArray(notices) ? notices.filter((notice): notice is string => typeof notice === "string") : [];
}
