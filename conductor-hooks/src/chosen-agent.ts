// The agent a new user just chose, started by the setup agent and spoken to
// as an ACP client (the SDK's client app over the child's stdio). Requests and
// notifications the agent sends go to `upstream` (the setup agent relays them
// to the real client); when the agent cannot start or dies, every request in
// flight fails with an error that says which agent, how it ended and the
// last lines of its stderr (agent-failure.ts).

import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, RequestError, type ClientConnection } from "@agentclientprotocol/sdk";
import { rpcError, spawnProgram, stopProcesses, type Logger } from "../../acp-wire/src/index.js";
import {
  AUTH_REQUIRED_CODE,
  AgentNotes,
  describeAgentFailure,
  explainAgentError,
  explainAuthRequired,
  relayStderr,
  StderrTail,
  type AgentEnd,
  type FailureReport,
} from "./agent-failure.js";

/** Where the agent's own requests and notifications go (toward the client). */
export interface Upstream {
  request(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
}

export interface ChosenAgentOptions {
  name: string;
  command: string[];
  /** Variables for the agent alone (its catalogue entry's), over this process's environment. */
  env?: Record<string, string>;
  configPath: string;
  demoCommand: string;
  upstream: Upstream;
  log: Logger;
  /** How to log it in, when the menu knows (agent-choices.ts), for its "Authentication required". */
  login?: string;
  /** Another way out of a login error, said after the fix ("type /agent to choose another agent"). */
  alsoTry?: string;
  /** How the user gets the menu back, said in "What to try" instead of editing the config file. */
  menuHint?: string;
}

/** How long to wait for the process to exit after it closed its output, before saying only that. */
const EXIT_GRACE_MS = 1_000;
/** How long to wait for the rest of its stderr after it exited (a grandchild may hold the pipe). */
const STDERR_GRACE_MS = 300;
/** stderr and stdout are separate pipes: lines written just before an error answer may be read just after it. */
const STDERR_ORDER_MS = 50;

export class ChosenAgent {
  private readonly child: ChildProcess;
  private readonly connection: ClientConnection;
  private readonly tail = new StderrTail();
  /** Its own name and login methods, from its initialize answer. */
  private readonly notes = new AgentNotes();
  private readonly exited: Promise<AgentEnd>;
  private readonly stderrClosed: Promise<void>;
  private failure: Promise<FailureReport> | null = null;
  private stopping = false;

  constructor(private readonly options: ChosenAgentOptions) {
    const [program, ...args] = options.command;
    this.child = spawnProgram(program!, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env } });
    this.exited = new Promise((resolve) => {
      this.child.once("error", (error: NodeJS.ErrnoException) => resolve({ kind: "spawn-error", error }));
      this.child.once("exit", (code, signal) => resolve({ kind: "exit", code, signal }));
    });
    this.child.stdin!.on("error", () => {}); // a dead agent is reported by its exit
    this.stderrClosed = relayStderr(this.child.stderr!, `[${options.name}] `, this.tail);
    const stream = ndJsonStream(
      Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
    );
    this.connection = client({ name: "symposium-setup" })
      .onRequest("*", ({ method, params, signal }) => options.upstream.request(method, params, signal))
      .onNotification("*", ({ method, params }) => options.upstream.notify(method, params))
      .connect(stream);
    // Said in the log even when no request was in flight to carry it.
    void this.connection.closed.then(async () => {
      if (!this.stopping) options.log((await this.describeFailure()).data.details);
    });
  }

  get running(): boolean {
    return !this.connection.signal.aborted;
  }

  /**
   * Sends a request; when the agent is gone, fails with what happened to it,
   * and an internal error comes with what the agent wrote on stderr meanwhile.
   */
  async request<T = unknown>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (!this.running) throw await this.failureError();
    const mark = this.tail.total;
    try {
      const result = await this.connection.agent.request<T>(method, params, signal ? { cancellationSignal: signal } : {});
      if (method === "initialize") this.notes.observe(result);
      return result;
    } catch (error) {
      if (!this.running) throw await this.failureError();
      if (error instanceof RequestError && error.code === AUTH_REQUIRED_CODE) throw this.authError(error);
      if (!(error instanceof RequestError) || error.code !== rpcError("internal").code) throw error;
      await delay(STDERR_ORDER_MS);
      const explained = explainAgentError({ ...this.describedAs(), method, error, stderrLines: this.tail.since(mark) });
      if (explained === null) throw error;
      this.options.log(explained.data.details);
      throw new RequestError(explained.code, explained.message, explained.data);
    }
  }

  notify(method: string, params: unknown): void {
    if (this.running) void this.connection.agent.notify(method, params).catch(() => {});
  }

  stop(): Promise<void> {
    this.stopping = true;
    this.connection.close();
    return stopProcesses([this.child]);
  }

  /** Its "Authentication required" with its name, how to log in, and (with data.details) left as it is by the router. */
  private authError(error: RequestError): RequestError {
    const { name, command, login, alsoTry } = this.options;
    const explained = explainAuthRequired({
      componentName: name,
      command,
      notes: this.notes,
      error,
      ...(login ? { login } : {}),
      ...(alsoTry ? { alsoTry } : {}),
    });
    this.options.log(explained.data.details);
    return new RequestError(explained.code, explained.message, explained.data);
  }

  private async failureError(): Promise<RequestError> {
    const report = await this.describeFailure();
    return new RequestError(rpcError("internal").code, report.message, report.data);
  }

  private describeFailure(): Promise<FailureReport> {
    this.failure ??= this.waitForEnd().then((end) => describeAgentFailure({ ...this.describedAs(), end, stderrTail: this.tail.lines() }));
    return this.failure;
  }

  private describedAs(): { name: string; command: string[]; configPath: string; demoCommand: string; menuHint?: string } {
    const { name, command, configPath, demoCommand, menuHint } = this.options;
    return { name, command, configPath, demoCommand, ...(menuHint ? { menuHint } : {}) };
  }

  private async waitForEnd(): Promise<AgentEnd> {
    const end = await Promise.race([this.exited, delay(EXIT_GRACE_MS).then((): AgentEnd => ({ kind: "output-closed" }))]);
    await Promise.race([this.stderrClosed, delay(STDERR_GRACE_MS)]);
    return end;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
