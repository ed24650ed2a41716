// One conversation's agent: its process (the user's command line, run through
// the shell with cwd = the project directory, as Toad runs it) and the ACP
// client session on its stdio. Everything the agent says becomes transcript
// events; permission requests wait for a page to answer, or are cancelled.

import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type ClientConnection, type RequestPermissionResponse, type SessionUpdate } from "@agentclientprotocol/sdk";
import { describeExit, describeSpawnError, packageVersion, spawnShellCommand, stopProcesses, type Logger } from "../../acp-wire/src/index.js";
import { EDITOR_CONTEXT_META_KEY } from "../../editor-context-proxy/src/index.js";
import type { AgentUpdate, PermissionOption, SessionInfo, TranscriptEvent } from "../page/protocol.js";
import type { ProjectFiles } from "./project-files.js";

const STDERR_TAIL_LINES = 12;

export interface AgentSessionOptions {
  command: string;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  files: ProjectFiles;
  log: Logger;
  /** Receives every transcript event and every change of the session's state. */
  onEvent(event: TranscriptEvent): void;
  onSession(info: SessionInfo): void;
  /** The agent's stdout is read on once this resolves: how a slow page's back-pressure reaches the agent. */
  readGate?: () => Promise<void>;
}

type PermissionAnswer = (response: RequestPermissionResponse) => void;

export class AgentSession {
  readonly info: SessionInfo = { state: "starting", modes: [], commands: [] };
  private readonly child: ChildProcess;
  private readonly connection: ClientConnection;
  private sessionId: string | undefined;
  private readonly permissions = new Map<string, PermissionAnswer>();
  private permissionCount = 0;
  private stderrTail: string[] = [];
  private stopping = false;

  constructor(private readonly options: AgentSessionOptions) {
    this.child = spawnShellCommand(options.command, { stdio: ["pipe", "pipe", "pipe"], cwd: options.projectDir, env: options.env });
    options.log(`started the agent (pid ${this.child.pid ?? "?"}): ${options.command}`);
    this.child.stdin!.on("error", () => {}); // EPIPE after the agent exits: reported by "exit".
    this.child.stderr!.on("data", (chunk: Buffer) => this.keepStderr(chunk.toString("utf8")));
    this.child.on("error", (error) => this.end(describeSpawnError(options.command, error)));
    this.child.on("exit", (code, signal) => this.end(`The agent ${describeExit(code, signal)}.`));
    this.connection = this.connect();
    void this.open();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async prompt(text: string, skipContext: boolean): Promise<void> {
    if (this.info.state !== "ready" || this.sessionId === undefined) {
      this.options.onEvent({ kind: "notice", message: this.info.state === "prompting" ? "The agent is still answering: wait, or cancel the turn." : "The agent is not ready." });
      return;
    }
    this.options.onEvent({ kind: "user", text, contextSkipped: skipContext });
    this.setState("prompting");
    try {
      const response = await this.connection.agent.request("session/prompt", {
        sessionId: this.sessionId,
        prompt: [{ type: "text", text }],
        ...(skipContext ? { _meta: { [EDITOR_CONTEXT_META_KEY]: false } } : {}),
      });
      this.options.onEvent({ kind: "turnEnd", stopReason: response.stopReason });
    } catch (error) {
      if (this.state() !== "ended") this.options.onEvent({ kind: "error", message: `The prompt failed: ${(error as Error).message}` });
    } finally {
      if (this.state() === "prompting") this.setState("ready");
    }
  }

  /** Ends the running turn: pending permission requests are cancelled, then session/cancel. */
  cancel(): void {
    if (this.info.state !== "prompting" || this.sessionId === undefined) return;
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    void this.connection.agent.notify("session/cancel", { sessionId: this.sessionId }).catch(() => {});
  }

  answerPermission(id: string, optionId: string): void {
    this.settlePermission(id, optionId);
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

  /** Ends the agent and everything it started (docs/webchat.md: conversations). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    this.connection.close();
    await stopProcesses([this.child]);
  }

  private connect(): ClientConnection {
    const files = this.options.files;
    const refuseLogged = (method: string) => (error: unknown) => {
      this.options.log(`refused ${method} from the agent: ${(error as Error).message}`);
      throw error;
    };
    const app = client({ name: "symposium-webchat" })
      .onNotification("session/update", ({ params }) => this.onUpdate(params.update))
      .onRequest("session/request_permission", ({ params, signal }) =>
        new Promise<RequestPermissionResponse>((resolve) => {
          const id = `permission-${++this.permissionCount}`;
          this.permissions.set(id, resolve);
          signal.addEventListener("abort", () => this.settlePermission(id, undefined));
          const options: PermissionOption[] = params.options.map(({ optionId, name, kind }) => ({ optionId, name, kind }));
          this.options.onEvent({ kind: "permission", id, title: params.toolCall.title ?? "The agent asks for permission", toolKind: params.toolCall.kind ?? undefined, options });
        }),
      )
      .onRequest("fs/read_text_file", ({ params }) =>
        files.read(params.path, params.line, params.limit).then((content) => ({ content }), refuseLogged("fs/read_text_file")),
      )
      .onRequest("fs/write_text_file", ({ params }) =>
        files.write(params.path, params.content).then(() => ({}), refuseLogged("fs/write_text_file")),
      );
    const output = this.options.readGate ? gatedReadable(this.child.stdout!, this.options.readGate) : (Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>);
    return app.connect(ndJsonStream(Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>, output));
  }

  private async open(): Promise<void> {
    try {
      const init = await this.connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "symposium-webchat", version: packageVersion() },
      });
      this.info.agentName = init.agentInfo?.title ?? init.agentInfo?.name ?? undefined;
      const session = await this.connection.agent.request("session/new", { cwd: this.options.projectDir, mcpServers: [] });
      this.sessionId = session.sessionId;
      this.info.modes = session.modes?.availableModes.map(({ id, name, description }) => ({ id, name, description })) ?? [];
      this.info.currentModeId = session.modes?.currentModeId;
      this.setState("ready");
    } catch (error) {
      // An agent that exits during the handshake is reported by "exit", with its stderr.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (this.info.state !== "ended") {
        this.options.onEvent({ kind: "error", message: `The agent did not start a session: ${(error as Error).message}`, detail: this.stderrTail });
      }
    }
  }

  private onUpdate(update: SessionUpdate): void {
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
    }
    this.options.onEvent({ kind: "update", update: update as AgentUpdate });
  }

  private settlePermission(id: string, optionId: string | undefined): void {
    const answer = this.permissions.get(id);
    if (!answer) return;
    this.permissions.delete(id);
    answer(optionId === undefined ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId } });
    this.options.onEvent({ kind: "permissionDone", id, outcome: optionId === undefined ? "cancelled" : "selected", optionId });
  }

  private keepStderr(text: string): void {
    const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
    for (const line of lines) this.options.log(`agent: ${line}`);
    this.stderrTail = [...this.stderrTail, ...lines].slice(-STDERR_TAIL_LINES);
  }

  private end(message: string): void {
    if (this.info.state === "ended") return;
    for (const id of [...this.permissions.keys()]) this.settlePermission(id, undefined);
    // Let the last stderr bytes arrive: they usually say why.
    setTimeout(() => {
      this.info.ended = { message: this.stopping ? "The conversation ended." : message, stderrTail: this.stopping ? [] : this.stderrTail };
      this.setState("ended");
      if (!this.stopping) this.options.log(`${message} ${this.stderrTail.length > 0 ? `Last stderr: ${this.stderrTail.join(" | ")}` : ""}`.trim());
      this.connection.close();
    }, 50);
  }

  /** Read through a call: the state changes while a prompt awaits. */
  private state(): SessionInfo["state"] {
    return this.info.state;
  }

  private setState(state: SessionInfo["state"]): void {
    this.info.state = state;
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
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
