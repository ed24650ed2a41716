// The panel host's lifecycle, without `vscode`: finds the host a previous
// window load started (trusting it only if it answers as that very launch),
// or starts a new one; keeps it attached while the window lives (the
// heartbeat); restarts and stops it; and tells the view what to show. The host
// client, the clock, the view and the window around it are passed in, so tests
// drive the same code with the real host and a clock of their own;
// panel-host-controller.ts is the VS Code adapter. A window reload disposes
// this object but leaves the host running, so the next load reconnects in
// milliseconds; the host ends itself when no window comes back.
// A little over the usual file size: the states and their transitions stay
// readable in one place (docs/panel.md describes them).

import * as crypto from "node:crypto";
import { EXIT_PORT_BUSY, type HostIdentity, type LaunchSpec } from "../../../panel-host/src/launch-spec.js";
import type { ChatTheme, PanelStatus } from "../../../webview/src/panel-messages.js";
import { PanelError } from "./panel-error.js";
import type { HostRecord, PanelRecord } from "./panel-record.js";

export type HostState = "stopped" | "starting" | "running" | "failed";

/** Shown once above Toad's page after a window reload. */
export const TOAD_RELOAD_NOTICE = "Reconnected to Toad: it starts a new conversation for every page load, so this is a new one.";
export const RESTART_NOTICE = "The chat restarted: this is a new conversation.";

type Starting = Extract<PanelStatus, { kind: "starting" }>;

export const STARTING: Starting = { kind: "starting", message: "Starting the chat…" };
/** The chat stays on screen (the panel's kept copy of it) while the remembered host is checked. */
export const RECONNECTING: PanelStatus = { kind: "starting", message: "Reconnecting to the chat…", keepChat: true };
export const RESTARTING: PanelStatus = {
  kind: "starting",
  message: "Restarting the chat… This conversation ends; a new one starts when the chat is ready.",
  keepChat: true,
};
export const STOPPING: PanelStatus = { kind: "starting", message: "Stopping the chat…" };
export const STOPPED: PanelStatus = { kind: "stopped", message: "The chat is stopped." };
/** Restricted Mode: nothing of the chat starts until the user trusts the workspace. */
export const RESTRICTED: PanelStatus = {
  kind: "stopped",
  message: "This workspace is in Restricted Mode. The chat runs an agent and commands in this folder, so it starts once you trust the workspace.",
  button: "Manage Workspace Trust",
};

export const HEARTBEAT_MS = 5_000;
export const READY_TIMEOUT_MS = 20_000;
const READY_POLL_MS = 100;
/** How long the remembered host may take to say who it is after a window reload. */
export const RECONNECT_ANSWER_MS = 10_000;
/** A host asked to stop ends its tree within its stop sequence (acp-wire STOP_SEQUENCE: 1.8 s at most) and exits. */
const HOST_STOP_MS = 3_000;
const STOP_POLL_MS = 50;

/** A host just spawned: its pid, and its exit status once it has exited (127: not found). */
export interface SpawnedHost {
  readonly pid: number;
  exitCode(): number | null | undefined;
}

/** The host's process and control routes (panel-host-client.ts has the real one). */
export interface HostClient {
  spawn(spec: LaunchSpec): SpawnedHost;
  identity(port: number, secret: string, timeoutMs?: number): Promise<HostIdentity>;
  /** Keeps the host from idling out, and tells it from which origin the panel loads. */
  attach(port: number, secret: string, origin: string | undefined): Promise<HostIdentity>;
  requestStop(port: number, secret: string): Promise<void>;
  /** Ends the host's process tree (the host itself first asked to). */
  stopTree(pid: number): Promise<void>;
  isAlive(pid: number): boolean;
  lastLogLines(file: string, count: number): string[];
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => Promise<void>): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  every: (ms, tick) => {
    const timer = setInterval(() => void tick(), ms);
    return () => clearInterval(timer);
  },
};

/** Where the chat shows (chat-view.ts): a status, and the chat's address once there is one. */
export interface PanelView {
  show(status: PanelStatus, chatUrl?: string): void;
}

/** What a new host runs (panel-launch.ts newLaunch): its spec and what the record keeps of it. */
export interface NewLaunch {
  spec: LaunchSpec;
  kind: "toad" | "builtin";
  /** For the log: what runs, in words. */
  describe: string;
  stateFile: string | undefined;
  /** The port is the user's setting (symposium.toadPort), not one picked free. */
  portFromSetting: boolean;
}

/** The window around the chat: its trust, its questions, its settings. */
export interface PanelWindow {
  isTrusted(): boolean;
  /** Opens where the user can trust the workspace. */
  manageTrust(): Promise<void>;
  /** Asks whether to restart now; true for yes. */
  confirmRestart(question: string): Promise<boolean>;
  /** The state changed (the `symposium.chatState` context key follows it). */
  stateChanged(state: HostState): Promise<void>;
  /** The host's address as the webview reaches it (code-server forwards it). */
  chatAddress(port: number): Promise<string>;
  theme(): ChatTheme;
  /** The state file a host should name now (undefined: editor context off, or none). */
  wantedStateFile(): string | undefined;
  newLaunch(): Promise<NewLaunch>;
}

export interface LifecycleLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface LifecycleDeps {
  client: HostClient;
  clock: Clock;
  view: PanelView;
  window: PanelWindow;
  records: Pick<PanelRecord, "load" | "remembered" | "save" | "clear">;
  log: LifecycleLog;
}

interface Connection {
  record: HostRecord;
  secret: string;
  chatUrl: string;
  origin: string | undefined;
}

export class PanelLifecycle {
  private current: HostState = "stopped";
  private connection: Connection | undefined;
  private pending: Promise<void> | undefined;
  private stopHeartbeat: (() => void) | undefined;
  private lastShown = "";
  /** After Stop, opening the panel does not start the chat again; Restart or Retry does. */
  private stoppedByUser = false;
  /** Said once above the chat when it next shows as ready (a restart, or a reload with Toad). */
  private pendingNotice: string | undefined;
  /** The chat was wanted while the workspace was not trusted: it starts when trust is granted. */
  private wantedUntrusted = false;

  constructor(private readonly deps: LifecycleDeps) {
    void this.setState("stopped");
  }

  get state(): HostState {
    return this.current;
  }

  get logFile(): string | undefined {
    return this.connection?.record.logFile;
  }

  /** Reconnects to this workspace's host or starts one; concurrent calls share one attempt. */
  ensureStarted(): Promise<void> {
    if (!this.deps.window.isTrusted()) return this.untrusted();
    if (this.stoppedByUser || this.current === "running" || this.current === "starting") return this.pending ?? Promise.resolve();
    // A remembered host is most likely still there (a window reload): the panel keeps showing
    // the conversation while it is checked, and says "starting" only if a new one starts.
    const remembered = this.deps.records.remembered();
    this.pending = this.run(
      async () => {
        const connection = await this.reconnect();
        if (connection) return connection;
        if (remembered) this.show(STARTING);
        return this.start();
      },
      remembered ? RECONNECTING : STARTING,
    );
    return this.pending;
  }

  async restart(): Promise<void> {
    // One after the other: from the loop's end to taking `pending`, nothing awaits, so no other step slips in.
    while (this.pending) await this.pending.catch(() => undefined);
    if (!this.deps.window.isTrusted()) {
      // The panel's button (and Restart, Choose Agent) lead to where the user can trust it.
      await this.untrusted();
      await this.deps.window.manageTrust();
      return;
    }
    this.stoppedByUser = false;
    // A chat on screen stays there, under a line saying what happens, until the new one is ready.
    const keepChat = this.current === "running";
    this.pending = this.run(
      async () => {
        await this.stopHost();
        return this.start();
      },
      keepChat ? RESTARTING : STARTING,
    );
    this.pendingNotice = keepChat ? RESTART_NOTICE : undefined;
    return this.pending;
  }

  async stop(): Promise<void> {
    while (this.pending) await this.pending.catch(() => undefined);
    this.stoppedByUser = true;
    // Pending while it runs: a Restart that comes meanwhile waits, so this stop's last
    // steps (forgetting the record, "stopped") never undo the host that Restart starts.
    const stopping = (async () => {
      // Hide the chat first: its page would otherwise say its connection was lost while the host stops.
      this.show(STOPPING);
      await this.stopHost();
      this.show(STOPPED);
      await this.setState("stopped");
    })();
    const pending = stopping.finally(() => {
      if (this.pending === pending) this.pending = undefined;
    });
    this.pending = pending;
    return pending;
  }

  /** The workspace became trusted: the chat starts if it was wanted meanwhile. */
  trustGranted(): Promise<void> {
    if (!this.wantedUntrusted) return Promise.resolve();
    this.wantedUntrusted = false;
    this.deps.log.info("the workspace is trusted now: starting the chat");
    return this.ensureStarted();
  }

  /** The chat page moved to another conversation: a reload returns to that one. */
  async rememberConversation(id: string): Promise<void> {
    const connection = this.connection;
    if (!connection || !CONVERSATION_ID.test(id)) return;
    connection.record = { ...connection.record, conversation: id };
    connection.chatUrl = chatUrlWith(connection.chatUrl, { conversation: id }); // what the view shows next
    await this.deps.records.save(connection.record, connection.secret);
  }

  /**
   * Editor context turned on or off: it applies to the next prompt (the tracker writes or
   * removes the file the host already names). Only a host started while it was off, which
   * names no file, needs a restart to get it.
   */
  async editorContextChanged(): Promise<void> {
    const wanted = this.deps.window.wantedStateFile();
    if (wanted && this.connection && this.connection.record.stateFile !== wanted) await this.offerRestart("The setting symposium.editorContext.enabled");
  }

  /** Settings that shape the frontend take effect only in a new host: offer the restart. */
  async offerRestart(what: string): Promise<void> {
    if (this.current === "stopped") return;
    if (await this.deps.window.confirmRestart(`Symposium: ${what} changed. Restart the chat to use it? (The current conversation ends.)`)) await this.restart();
  }

  /** The window goes (a reload, or VS Code quits): the host stays, and ends itself when no window comes back. */
  dispose(): void {
    this.stopHeartbeat?.();
  }

  /** Restricted Mode: no host, no agent, no project command; the panel says why (once trusted, it starts). */
  private async untrusted(): Promise<void> {
    if (!this.wantedUntrusted) this.deps.log.info("the workspace is not trusted (Restricted Mode): the chat starts once it is");
    this.wantedUntrusted = true;
    this.show(RESTRICTED);
    await this.setState("stopped");
  }

  private async run(connect: () => Promise<Connection>, starting: PanelStatus): Promise<void> {
    void this.setState("starting"); // the window's context key follows; the work need not wait for it
    this.show(starting);
    try {
      this.connection = await connect();
      this.startHeartbeat();
      await this.beat();
    } catch (error) {
      const problem = error instanceof PanelError ? error : new PanelError(`The chat could not start: ${(error as Error).message}`);
      this.show({ kind: "error", message: problem.message, detail: problem.detail, retry: true });
      await this.setState("failed");
    } finally {
      this.pending = undefined;
    }
  }

  private async reconnect(): Promise<Connection | undefined> {
    const saved = await this.deps.records.load();
    if (!saved) return undefined;
    const { record, secret } = saved;
    // The address the webview will use, looked up while the host is asked who it is (a reload waits for both).
    const address = this.deps.window.chatAddress(record.port).catch(() => undefined); // connect() asks again
    // A host that is gone refuses at once; one that is slow to answer (a busy machine, seen at 1.5 s) is still the
    // chat, and taking it for gone started a second host and left the first one running.
    const identity = await this.deps.client.identity(record.port, secret, RECONNECT_ANSWER_MS).catch((error: Error) => error);
    if (identity instanceof Error || identity.launchId !== record.launchId || identity.pid !== record.pid) {
      const why = identity instanceof Error ? identity.message : `a different process answers (pid ${identity.pid})`;
      this.deps.log.info(`the remembered chat host (pid ${record.pid}, port ${record.port}) is not there any more: ${why}; starting a new one`);
      await this.deps.records.clear();
      return undefined;
    }
    this.deps.log.info(`reconnected to the chat host (pid ${record.pid}, port ${record.port})`);
    // Toad starts a new app for every page load: the page after a reload is a new conversation, and the user is told.
    if (record.frontendKind === "toad") this.pendingNotice = TOAD_RELOAD_NOTICE;
    const wanted = this.deps.window.wantedStateFile();
    if (wanted && wanted !== record.stateFile) void this.offerRestart("The editor-context file");
    return this.connect(record, secret, await address);
  }

  private async start(): Promise<Connection> {
    const launch = await this.deps.window.newLaunch();
    const { spec } = launch;
    this.deps.log.info(`starting the chat host on 127.0.0.1:${spec.port}: ${launch.describe}; log ${spec.logFile}`);
    const host = this.deps.client.spawn(spec);
    const record: HostRecord = {
      pid: host.pid,
      port: spec.port,
      launchId: spec.launchId,
      conversation: crypto.randomUUID(),
      stateFile: launch.stateFile,
      logFile: spec.logFile,
      frontendKind: launch.kind,
    };
    await this.deps.records.save(record, spec.secret);
    const deadline = this.deps.clock.now() + READY_TIMEOUT_MS;
    for (;;) {
      const exitCode = host.exitCode();
      if (exitCode !== undefined) throw await this.hostExited(exitCode, launch);
      const identity = await this.deps.client.identity(spec.port, spec.secret, 1_000).catch(() => undefined);
      if (identity?.launchId === spec.launchId && identity.frontend.state !== "starting") return this.connect(record, spec.secret);
      if (this.deps.clock.now() > deadline) {
        await this.deps.client.stopTree(record.pid);
        await this.deps.records.clear();
        throw new PanelError(`The chat did not answer within ${READY_TIMEOUT_MS / 1000} s.`, this.lastLogLines(spec.logFile));
      }
      await this.deps.clock.sleep(READY_POLL_MS);
    }
  }

  private async hostExited(code: number | null, launch: NewLaunch): Promise<PanelError> {
    await this.deps.records.clear();
    if (code === EXIT_PORT_BUSY) {
      return new PanelError(
        launch.portFromSetting
          ? `Port ${launch.spec.port} is busy (setting symposium.toadPort). Choose another port, or set it to 0 to pick a free one.`
          : `Port ${launch.spec.port} was taken just now; press Retry.`,
      );
    }
    return new PanelError(`The chat host exited at once (status ${code}).`, this.lastLogLines(launch.spec.logFile));
  }

  private async connect(record: HostRecord, secret: string, address?: string): Promise<Connection> {
    const url = new URL(address ?? (await this.deps.window.chatAddress(record.port)));
    url.search = new URLSearchParams({ token: secret, conversation: record.conversation, theme: this.deps.window.theme() }).toString();
    const origin = url.origin;
    return { record, secret, chatUrl: url.toString(), origin: origin === `http://127.0.0.1:${record.port}` ? undefined : origin };
  }

  private startHeartbeat(): void {
    this.stopHeartbeat?.();
    this.stopHeartbeat = this.deps.clock.every(HEARTBEAT_MS, () => this.beat());
  }

  /** Attaches (keeps the host from idling out) and shows what its frontend is doing. */
  private async beat(): Promise<void> {
    const connection = this.connection;
    if (!connection) return;
    let identity: HostIdentity;
    try {
      identity = await this.deps.client.attach(connection.record.port, connection.secret, connection.origin);
    } catch (error) {
      if (this.connection !== connection || this.pending) return;
      await this.lost(connection, error as Error);
      return;
    }
    if (this.connection !== connection) return; // stopped or replaced while the answer was on its way
    const frontend = identity.frontend;
    if (frontend.state === "running") {
      // After a restart, the new chat says once that its conversation is a new one.
      this.show(this.pendingNotice ? { kind: "ready", notice: this.pendingNotice } : { kind: "ready" }, connection.chatUrl);
      this.pendingNotice = undefined;
      await this.setState("running");
    } else if (frontend.state === "failed") {
      this.show(
        { kind: "error", message: `The chat frontend keeps failing: ${frontend.message}.`, detail: frontend.lastLines.join("\n"), retry: true },
        connection.chatUrl,
      );
      await this.setState("failed");
    } else {
      const message = frontend.state === "restarting" ? `The chat frontend stopped; restarting it (attempt ${frontend.crashes})…` : STARTING.message;
      this.show({ kind: "starting", message }, connection.chatUrl);
    }
  }

  /** The host stopped answering the heartbeat: the panel says so, with Retry. */
  private async lost(connection: Connection, error: Error): Promise<void> {
    this.deps.log.warn(`the chat host does not answer: ${error.message}`);
    this.stopHeartbeat?.();
    this.connection = undefined;
    const alive = this.deps.client.isAlive(connection.record.pid);
    this.show({
      kind: "error",
      message: alive ? "The chat host does not answer." : "The chat host has stopped.",
      detail: this.lastLogLines(connection.record.logFile),
      retry: true,
    });
    await this.setState("failed");
  }

  private async stopHost(): Promise<void> {
    this.stopHeartbeat?.();
    const connection = this.connection ?? (await this.trustedRecord());
    this.connection = undefined;
    if (!connection) return;
    const { record, secret } = connection;
    this.deps.log.info(`stopping the chat host (pid ${record.pid}) and everything it started`);
    await this.deps.client.requestStop(record.port, secret);
    // The host ends its own tree first: it read the tree before signalling anything, and a walk from here
    // would miss what its frontend's server handed to another parent as it ended. What is left then is ended from here.
    await this.exited(record.pid, HOST_STOP_MS);
    await this.deps.client.stopTree(record.pid);
    await this.deps.records.clear();
  }

  /** Waits up to `ms` for the process to end. */
  private async exited(pid: number, ms: number): Promise<void> {
    const deadline = this.deps.clock.now() + ms;
    while (this.deps.client.isAlive(pid) && this.deps.clock.now() < deadline) await this.deps.clock.sleep(STOP_POLL_MS);
  }

  /** The saved host, only if it still answers as itself (never signal a pid that may have been reused). */
  private async trustedRecord(): Promise<{ record: HostRecord; secret: string } | undefined> {
    const saved = await this.deps.records.load();
    if (!saved) return undefined;
    const identity = await this.deps.client.identity(saved.record.port, saved.secret).catch(() => undefined);
    if (identity?.launchId === saved.record.launchId && identity.pid === saved.record.pid) return saved;
    await this.deps.records.clear();
    return undefined;
  }

  private lastLogLines(file: string): string {
    return this.deps.client.lastLogLines(file, 15).join("\n");
  }

  private show(status: PanelStatus, chatUrl?: string): void {
    const key = JSON.stringify([status, chatUrl]);
    if (key === this.lastShown) return;
    this.lastShown = key;
    // An error goes to the log as the panel shows it: the message and the log lines under it.
    if (status.kind === "error") this.deps.log.error(`${status.message}${status.detail ? `\n${status.detail}` : ""}`);
    else this.deps.log.info(`panel: ${status.kind}${status.kind === "ready" ? "" : ` (${status.message})`}`);
    this.deps.view.show(status, chatUrl);
  }

  private async setState(state: HostState): Promise<void> {
    this.current = state;
    await this.deps.window.stateChanged(state);
  }
}

/** Conversation ids the chat's URL may name (webchat/page/protocol.ts: CONVERSATION_ID_PATTERN). */
export const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The chat's address with another conversation or theme (its other parameters, the secret among them, kept). */
export function chatUrlWith(chatUrl: string, change: { conversation?: string; theme?: ChatTheme }): string {
  const url = new URL(chatUrl);
  if (change.conversation !== undefined) url.searchParams.set("conversation", change.conversation);
  if (change.theme !== undefined) url.searchParams.set("theme", change.theme);
  return url.toString();
}
