// One ACP session for the language model provider: the conductor (which puts
// the editor-context proxy and the user's proxies in front of the agent) as a
// child process, the SDK's client on its stdio, one session, prompts and
// cancellation. The agent's message chunks go to `onText` as they come.

import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  client,
  ndJsonStream,
  type ClientConnection,
  type ContentBlock,
  type McpServer,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { describeExit, describeSpawnError, spawnProgram, stopProcesses } from "../../acp-wire/src/processes.js";
import { StderrTail, followStderr } from "../../acp-wire/src/stderr-tail.js";

/** How to start the conductor for one agent. */
export interface AgentLaunch {
  program: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** For messages: the agent's name. */
  name: string;
  /** This client's version, for initialize's clientInfo. */
  clientVersion: string;
}

/** An extension method no agent implements: only its answer's place in the stream matters. */
const CAUGHT_UP_METHOD = "_symposium/caught_up";

export interface LmAgentSessionEvents {
  onText(text: string): void;
  /** The agent asks before an action of its own (running a command, editing a file): the consumer's user decides. */
  onPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse>;
  log(message: string): void;
}

export class ConductorSession {
  private readonly child: ChildProcess;
  private readonly connection: ClientConnection;
  private readonly stderrTail = new StderrTail(8);
  private sessionId: string | undefined;
  private ended: string | undefined;

  constructor(
    private readonly launch: AgentLaunch,
    events: LmAgentSessionEvents,
  ) {
    this.child = spawnProgram(launch.program, launch.args, { stdio: ["pipe", "pipe", "pipe"], cwd: launch.cwd, env: launch.env });
    this.child.stdin!.on("error", () => {}); // EPIPE after an exit: reported by "exit".
    void followStderr(this.child.stderr!, this.stderrTail, (line) => events.log(`${launch.name}: ${line}`));
    this.connection = client({ name: "symposium-lm-provider" })
      .onNotification("session/update", ({ params }) => {
        const update = params.update;
        if (params.sessionId === this.sessionId && update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
          events.onText(update.content.text);
      })
      .onRequest("session/request_permission", ({ params }) =>
        params.sessionId === this.sessionId ? events.onPermission(params) : { outcome: { outcome: "cancelled" as const } },
      )
      .connect(ndJsonStream(Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>));
    this.child.on("error", (error) => this.end(describeSpawnError(launch.program, error)));
    this.child.on("exit", (code, signal) => this.end(`${launch.name} ${describeExit(code, signal)}`));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** initialize, then session/new with `mcpServers`. Errors say what the agent answered. */
  async open(mcpServers: McpServer[]): Promise<string> {
    await this.connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: "symposium-lm-provider", version: this.launch.clientVersion },
    });
    const session = await this.connection.agent.request("session/new", { cwd: this.launch.cwd, mcpServers });
    this.sessionId = session.sessionId;
    return session.sessionId;
  }

  /** One turn; resolves with its stop reason, rejects when the agent fails or ends. */
  async prompt(prompt: ContentBlock[]): Promise<StopReason> {
    if (this.sessionId === undefined) throw new Error("no session");
    try {
      return (await this.connection.agent.request("session/prompt", { sessionId: this.sessionId, prompt })).stopReason;
    } catch (error) {
      throw new Error(`${this.launch.name}: ${this.explain(error)}`, { cause: error });
    }
  }

  /**
   * Resolves once everything the agent sent before now has arrived: the answer to a request of ours (an
   * error for a method it does not know, most likely) comes after its earlier messages on the same ordered
   * stream, through the conductor too.
   */
  async caughtUp(): Promise<void> {
    if (this.ended !== undefined) return;
    await this.connection.agent.request(CAUGHT_UP_METHOD, {}).catch(() => undefined);
  }

  cancel(): void {
    if (this.sessionId === undefined || this.ended !== undefined) return;
    void this.connection.agent.notify("session/cancel", { sessionId: this.sessionId }).catch(() => {});
  }

  /** Stops the conductor and everything it started (the one stop sequence). */
  async stop(): Promise<void> {
    this.ended ??= "stopped";
    this.connection.close();
    await stopProcesses([this.child]);
  }

  /** An error's message, with how the agent ended and its last stderr lines when it did. */
  explain(error: unknown): string {
    const message = (error as Error)?.message ?? String(error);
    if (this.ended === undefined) return message;
    const tail = this.stderrTail.lines();
    return `${this.ended}${tail.length > 0 ? `; its last words: ${tail.slice(-3).join(" / ")}` : ""} (${message})`;
  }

  private end(reason: string): void {
    this.ended ??= reason;
    this.connection.close(new Error(reason));
  }
}
