// The one object that owns this window's panel host: finds the host a previous
// window load started (trusting it only if it answers as that very launch),
// or starts a new one; keeps it attached while the window lives; restarts and
// stops it; and tells the view what to show. A window reload disposes this
// object but leaves the host running, so the next load reconnects in
// milliseconds; the host ends itself when no window comes back.
// A little over the usual file size: the states and their transitions stay
// readable in one place (docs/panel.md describes them).

import * as crypto from "node:crypto";
import getPort from "get-port";
import * as vscode from "vscode";
import { isAlive, stopProcessTree } from "../../acp-wire/src/processes.js";
import { EXIT_PORT_BUSY, type HostIdentity, type LaunchSpec } from "../../panel-host/src/launch-spec.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import type { PanelStatus } from "../../webview/src/panel-messages.js";
import { readConfig, type SymposiumConfig } from "./config.js";
import { attach, fetchIdentity, prepareLogFile, requestStop, spawnHost, type HostRuntime } from "./panel-host-client.js";
import { noticeToadMissing } from "./panel-settings.js";
import { PanelRecord, type HostRecord } from "./panel-record.js";
import { conductorEnvironment, planLaunch, PanelError, type LaunchPlan } from "./panel-launch.js";
import { chatUrlWith, currentTheme } from "./chat-view.js";
import type { PersistentState } from "./persistent-state.js";
import { readLastLines } from "../../panel-host/src/host-log.js";

/** Shown once above Toad's page after a window reload. */
export const TOAD_RELOAD_NOTICE = "Reconnected to Toad: it starts a new conversation for every page load, so this is a new one.";

export type HostState = "stopped" | "starting" | "running" | "failed";
export const STATE_CONTEXT_KEY = "symposium.chatState";

const STARTING: PanelStatus = { kind: "starting", message: "Starting the chat…" };
/** The chat stays on screen (the panel's kept copy of it) while the remembered host is checked. */
const RECONNECTING: PanelStatus = { kind: "starting", message: "Reconnecting to the chat…", keepChat: true };
/** Restricted Mode (issue 31, item 6): nothing of the chat starts until the user trusts the workspace. */
export const RESTRICTED: PanelStatus = {
  kind: "stopped",
  message: "This workspace is in Restricted Mode. The chat runs an agent and commands in this folder, so it starts once you trust the workspace.",
  button: "Manage Workspace Trust",
};
const HEARTBEAT_MS = 5_000;
const READY_TIMEOUT_MS = 20_000;

export interface PanelHostDeps {
  context: vscode.ExtensionContext;
  state: PersistentState;
  log: vscode.LogOutputChannel;
  runtime: HostRuntime;
  /** The state file the tracker writes (undefined: none, or context sharing off). */
  stateFile: () => string | undefined;
  /** The view shows this: a status, and the chat's address once there is one. */
  show: (status: PanelStatus, chatUrl?: string) => void;
}

interface Connection {
  record: HostRecord;
  secret: string;
  chatUrl: string;
  origin: string | undefined;
}

export class PanelHostController implements vscode.Disposable {
  private state: HostState = "stopped";
  private connection: Connection | undefined;
  private pending: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastShown = "";
  /** After Stop, opening the panel does not start the chat again; Restart or Retry does. */
  private stoppedByUser = false;
  /** A restart replaced a chat that was on screen: the new one says it is a new conversation. */
  /** Said once above the chat when it next shows as ready (a restart, or a reload with Toad). */
  private pendingNotice: string | undefined;
  private readonly record: PanelRecord;
  /** The chat was wanted while the workspace was not trusted: it starts when trust is granted. */
  private wantedUntrusted = false;
  private readonly trustGranted: vscode.Disposable;

  constructor(private readonly deps: PanelHostDeps) {
    this.record = new PanelRecord(deps.state);
    void this.setState("stopped");
    this.trustGranted = vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (!this.wantedUntrusted) return;
      this.wantedUntrusted = false;
      deps.log.info("the workspace is trusted now: starting the chat");
      void this.ensureStarted();
    });
  }

  get logFile(): string | undefined {
    return this.connection?.record.logFile;
  }

  /** Reconnects to this workspace's host or starts one; concurrent calls share one attempt. */
  ensureStarted(): Promise<void> {
    if (!vscode.workspace.isTrusted) return this.untrusted();
    if (this.stoppedByUser || this.state === "running" || this.state === "starting") return this.pending ?? Promise.resolve();
    // A remembered host is most likely still there (a window reload): the panel keeps showing
    // the conversation while it is checked, and says "starting" only if a new one starts.
    const remembered = this.record.remembered();
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
    await this.pending?.catch(() => undefined);
    if (!vscode.workspace.isTrusted) {
      // The panel's button (and Restart, Choose Agent) lead to where the user can trust it.
      await this.untrusted();
      await vscode.commands.executeCommand("workbench.trust.manage");
      return;
    }
    this.stoppedByUser = false;
    // A chat on screen stays there, under a line saying what happens, until the new one is ready.
    const keepChat = this.state === "running";
    this.pending = this.run(
      async () => {
        await this.stopHost();
        return this.start();
      },
      keepChat ? { kind: "starting", message: "Restarting the chat… This conversation ends; a new one starts when the chat is ready.", keepChat } : undefined,
    );
    this.pendingNotice = keepChat ? "The chat restarted: this is a new conversation." : undefined;
    return this.pending;
  }

  async stop(): Promise<void> {
    await this.pending?.catch(() => undefined);
    this.stoppedByUser = true;
    // Pending while it runs: a Restart that comes meanwhile waits, so this stop's last
    // steps (forgetting the record, "stopped") never undo the host that Restart starts.
    const stopping = (async () => {
      // Hide the chat first: its page would otherwise say its connection was lost while the host stops.
      this.show({ kind: "starting", message: "Stopping the chat…" });
      await this.stopHost();
      this.show({ kind: "stopped", message: "The chat is stopped." });
      await this.setState("stopped");
    })();
    const pending = stopping.finally(() => {
      if (this.pending === pending) this.pending = undefined;
    });
    this.pending = pending;
    return pending;
  }

  /** The chat page moved to another conversation: a reload returns to that one. */
  async rememberConversation(id: string): Promise<void> {
    const connection = this.connection;
    if (!connection || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) return;
    connection.record = { ...connection.record, conversation: id };
    connection.chatUrl = chatUrlWith(connection.chatUrl, { conversation: id }); // what the view shows next (chat-view.ts did the same)
    await this.record.save(connection.record, connection.secret);
  }

  /**
   * Editor context turned on or off: it applies to the next prompt (the tracker writes or
   * removes the file the host already names). Only a host started while it was off, which
   * names no file, needs a restart to get it.
   */
  async editorContextChanged(): Promise<void> {
    const wanted = this.wantedStateFile(readConfig());
    if (wanted && this.connection && this.connection.record.stateFile !== wanted) await this.offerRestart("The setting symposium.editorContext.enabled");
  }

  /** Settings that shape the frontend take effect only in a new host: offer the restart. */
  async offerRestart(what: string): Promise<void> {
    if (this.state === "stopped") return;
    const choice = await vscode.window.showInformationMessage(
      `Symposium: ${what} changed. Restart the chat to use it? (The current conversation ends.)`,
      "Restart",
    );
    if (choice === "Restart") await this.restart();
  }

  dispose(): void {
    clearInterval(this.heartbeat);
    this.trustGranted.dispose();
  }

  /** Restricted Mode: no host, no agent, no project command; the panel says why (once trusted, it starts). */
  private async untrusted(): Promise<void> {
    if (!this.wantedUntrusted) this.deps.log.info("the workspace is not trusted (Restricted Mode): the chat starts once it is");
    this.wantedUntrusted = true;
    this.show(RESTRICTED);
    await this.setState("stopped");
  }

  private async run(connect: () => Promise<Connection>, starting: PanelStatus = STARTING): Promise<void> {
    void this.setState("starting"); // the context key follows; the work need not wait for the round trip to the window
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
    const saved = await this.record.load();
    if (!saved) return undefined;
    const { record, secret } = saved;
    // The address the webview will use, looked up while the host is asked who it is (a reload waits for both).
    const external = Promise.resolve(externalAddress(record.port)).catch(() => undefined); // connect() asks again
    const identity = await fetchIdentity(record.port, secret).catch((error: Error) => error);
    if (identity instanceof Error || identity.launchId !== record.launchId || identity.pid !== record.pid) {
      const why = identity instanceof Error ? identity.message : `a different process answers (pid ${identity.pid})`;
      this.deps.log.info(`the remembered chat host (pid ${record.pid}, port ${record.port}) is not there any more: ${why}; starting a new one`);
      await this.record.clear();
      return undefined;
    }
    this.deps.log.info(`reconnected to the chat host (pid ${record.pid}, port ${record.port})`);
    // Toad starts a new app for every page load: the page after a reload is a new conversation, and the user is told.
    if (record.frontendKind === "toad") this.pendingNotice = TOAD_RELOAD_NOTICE;
    const wanted = this.wantedStateFile(readConfig());
    if (wanted && wanted !== record.stateFile) void this.offerRestart("The editor-context file");
    return this.connect(record, secret, await external);
  }

  private async start(): Promise<Connection> {
    const config = readConfig();
    const plan: LaunchPlan = planLaunch({
      config,
      runtime: this.deps.runtime,
      extensionPath: this.deps.context.extensionUri.fsPath,
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      // Local folders only (a virtual one has no path the chat could confine the agent to).
      additionalFolders: (vscode.workspace.workspaceFolders ?? []).slice(1).flatMap((folder) => (folder.uri.scheme === "file" ? [folder.uri.fsPath] : [])),
      noticeToadMissing: (why) => noticeToadMissing(this.deps.state, this.deps.log, why),
    });
    const port = config.toadPort || (await getPort({ host: "127.0.0.1" }));
    const stateFile = this.wantedStateFile(config);
    const spec: LaunchSpec = {
      launchId: crypto.randomUUID(),
      secret: crypto.randomBytes(32).toString("base64url"),
      port,
      frontend: plan.frontend,
      cwd: plan.cwd,
      env: { ...this.deps.runtime.env, ...(stateFile ? { [STATE_FILE_ENV]: stateFile } : {}), ...conductorEnvironment(config) },
      allowedOrigins: [],
      idleTimeoutMs: Number(process.env.SYMPOSIUM_PANEL_IDLE_MS) || 15 * 60_000,
      logFile: prepareLogFile((this.deps.context.storageUri ?? this.deps.context.globalStorageUri).fsPath),
    };
    this.deps.log.info(`starting the chat host on 127.0.0.1:${port}: ${plan.describe}; log ${spec.logFile}`);
    const child = spawnHost(this.deps.runtime, spec);
    let exitCode: number | null | undefined;
    child.once("exit", (code) => {
      exitCode = code;
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      exitCode = error.code === "ENOENT" ? 127 : 126;
    });
    const record: HostRecord = {
      pid: child.pid ?? -1,
      port,
      launchId: spec.launchId,
      conversation: crypto.randomUUID(),
      stateFile,
      logFile: spec.logFile,
      frontendKind: plan.kind,
    };
    await this.record.save(record, spec.secret);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (exitCode !== undefined) throw this.hostExited(exitCode, spec, config);
      const identity = await fetchIdentity(port, spec.secret, 1_000).catch(() => undefined);
      if (identity?.launchId === spec.launchId && identity.frontend.state !== "starting") return this.connect(record, spec.secret);
      if (Date.now() > deadline) {
        await stopProcessTree(record.pid);
        throw new PanelError(`The chat did not answer within ${READY_TIMEOUT_MS / 1000} s.`, readLastLines(spec.logFile, 15).join("\n"));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private hostExited(code: number | null, spec: LaunchSpec, config: SymposiumConfig): PanelError {
    void this.record.clear();
    if (code === EXIT_PORT_BUSY) {
      return new PanelError(
        config.toadPort
          ? `Port ${spec.port} is busy (setting symposium.toadPort). Choose another port, or set it to 0 to pick a free one.`
          : `Port ${spec.port} was taken just now; press Retry.`,
      );
    }
    return new PanelError(`The chat host exited at once (status ${code}).`, readLastLines(spec.logFile, 15).join("\n"));
  }

  private async connect(record: HostRecord, secret: string, external?: vscode.Uri): Promise<Connection> {
    const theme = currentTheme();
    const url = new URL((external ?? (await externalAddress(record.port))).toString(true));
    url.search = new URLSearchParams({ token: secret, conversation: record.conversation, theme }).toString();
    const chatUrl = url.toString();
    const origin = url.origin;
    return { record, secret, chatUrl, origin: origin === `http://127.0.0.1:${record.port}` ? undefined : origin };
  }

  private startHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
  }

  /** Attaches (keeps the host from idling out) and shows what its frontend is doing. */
  private async beat(): Promise<void> {
    const connection = this.connection;
    if (!connection) return;
    let identity: HostIdentity;
    try {
      identity = await attach(connection.record.port, connection.secret, connection.origin);
    } catch (error) {
      if (this.connection !== connection || this.pending) return;
      this.deps.log.warn(`the chat host does not answer: ${(error as Error).message}`);
      clearInterval(this.heartbeat);
      this.connection = undefined;
      const alive = isAlive(connection.record.pid);
      this.show({
        kind: "error",
        message: alive ? "The chat host does not answer." : "The chat host has stopped.",
        detail: readLastLines(connection.record.logFile, 15).join("\n"),
        retry: true,
      });
      await this.setState("failed");
      return;
    }
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
      const message = frontend.state === "restarting" ? `The chat frontend stopped; restarting it (attempt ${frontend.crashes})…` : "Starting the chat…";
      this.show({ kind: "starting", message }, connection.chatUrl);
    }
  }

  private async stopHost(): Promise<void> {
    clearInterval(this.heartbeat);
    const connection = this.connection ?? (await this.trustedRecord());
    this.connection = undefined;
    if (!connection) return;
    const { record, secret } = connection;
    this.deps.log.info(`stopping the chat host (pid ${record.pid}) and everything it started`);
    await requestStop(record.port, secret);
    await stopProcessTree(record.pid);
    await this.record.clear();
  }

  /** The saved host, only if it still answers as itself (never signal a pid that may have been reused). */
  private async trustedRecord(): Promise<{ record: HostRecord; secret: string } | undefined> {
    const saved = await this.record.load();
    if (!saved) return undefined;
    const identity = await fetchIdentity(saved.record.port, saved.secret).catch(() => undefined);
    if (identity?.launchId === saved.record.launchId && identity.pid === saved.record.pid) return saved;
    await this.record.clear();
    return undefined;
  }

  private wantedStateFile(config: SymposiumConfig): string | undefined {
    return config.editorContextEnabled ? this.deps.stateFile() : undefined;
  }

  private show(status: PanelStatus, chatUrl?: string): void {
    const key = JSON.stringify([status, chatUrl]);
    if (key === this.lastShown) return;
    this.lastShown = key;
    // An error goes to the log as the panel shows it: the message and the log lines under it.
    if (status.kind === "error") this.deps.log.error(`${status.message}${status.detail ? `\n${status.detail}` : ""}`);
    else this.deps.log.info(`panel: ${status.kind}${status.kind === "ready" ? "" : ` (${status.message})`}`);
    this.deps.show(status, chatUrl);
  }

  private async setState(state: HostState): Promise<void> {
    this.state = state;
    await vscode.commands.executeCommand("setContext", STATE_CONTEXT_KEY, state);
  }
}

/** The host's address as the webview reaches it (code-server forwards it); asExternalUri maps the address only (code-server's drops the query), so the query is added after. */
function externalAddress(port: number): Thenable<vscode.Uri> {
  return vscode.env.asExternalUri(vscode.Uri.parse(`http://127.0.0.1:${port}/`));
}
