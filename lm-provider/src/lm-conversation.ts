// One language model (one agent) as the consumer sees it: requests in,
// streamed parts out. The history tracker decides whether a request continues
// the running ACP session or starts a new one; the tool channel turns the
// agent's MCP calls into tool-call parts and the consumer's tool results in
// its next request into their answers. No `vscode` here: the extension's
// adapter (extension/src/models/lm-provider.ts) maps VS Code's types to these.

import * as crypto from "node:crypto";
import type { ContentBlock, McpServer, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { AGENT_ACTION_APPROVED, AGENT_ACTION_TOOL, agentActionInput, permissionAnswer } from "./agent-action.js";
import { ConductorSession, type AgentLaunch } from "./conductor-session.js";
import { HistoryTracker } from "./history-match.js";
import type { LmMessage, LmTool } from "./messages.js";
import { openToolChannel, type ToolCallRequest, type ToolCallResult, type ToolChannel } from "./tool-channel.js";
import { messagesText, transcriptPrompt } from "./restart-prompt.js";

/** Where a response's parts go, as they come. */
export interface ResponseSink {
  text(text: string): void;
  toolCall(callId: string, name: string, input: unknown): void;
}

export interface LmRequest {
  messages: LmMessage[];
  tools: LmTool[];
  sink: ResponseSink;
  /** The consumer's cancellation. */
  signal: AbortSignal;
}

export interface LmConversationOptions {
  /** The conductor for this agent (resolved per session: settings may have changed). */
  launch(): Promise<AgentLaunch>;
  /** How to start the MCP relay (dist/symposium-lm-tools.mjs) and what its environment needs besides the channel. */
  relay: { command: string; args: string[]; env: Record<string, string> };
  /** The private 0700 directory the tool channel's socket goes in. */
  privateDir: string;
  log(message: string): void;
}

/** The MCP server name the agent sees the consumer's tools under. */
export const TOOLS_SERVER_NAME = "vscode-tools";

/** A call's outcome: the consumer's result, or `cancelled` when the turn ended without one. */
type ConsumerAnswer = ToolCallResult & { cancelled?: true };

interface PendingCall {
  callId: string;
  resolve(result: ConsumerAnswer): void;
}

/** The request being answered: the turn's parts go to it until the turn ends or asks for a tool. */
interface Responder {
  sink: ResponseSink;
  done(): void;
  fail(error: Error): void;
}

interface Running {
  session: ConductorSession;
  channel: ToolChannel | undefined;
  /** The prompt in flight, if any: it stays in flight while a tool call waits for the consumer. */
  turn: Promise<void> | undefined;
}

export class LmConversation {
  private readonly history = new HistoryTracker();
  private running: Running | undefined;
  private responder: Responder | undefined;
  private readonly pendingCalls: PendingCall[] = [];
  private tools: LmTool[] = [];
  /** Requests run one at a time; a new one supersedes the one streaming. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: LmConversationOptions) {}

  respond(request: LmRequest): Promise<void> {
    this.responder?.fail(new Error("a newer request to this model replaced this one"));
    const run = this.queue.then(() => this.run(request));
    this.queue = run.catch(() => {});
    return run;
  }

  /** Stops the session and everything it started. */
  async dispose(): Promise<void> {
    this.history.reset();
    await this.discard();
  }

  private async run(request: LmRequest): Promise<void> {
    if (request.signal.aborted) return;
    this.tools = request.tools;
    const match = this.history.match(request.messages);
    try {
      if (match.kind === "continue" && this.running !== undefined) {
        const answered = this.answerToolCalls(match.newMessages);
        if (this.running.turn !== undefined && answered) return await this.follow(request);
        if (this.running.turn !== undefined) await this.discardTurn();
        return await this.prompt(request, promptBlocks(match.newMessages));
      }
      await this.discard();
      this.running = await this.start(request.tools);
      return await this.prompt(request, match.kind === "restart" ? transcriptPrompt(match.earlier, match.newMessages) : promptBlocks(match.newMessages));
    } catch (error) {
      // The session is in an unknown state: the next request starts a new one.
      this.history.reset();
      await this.discard();
      throw error;
    }
  }

  private async start(tools: LmTool[]): Promise<Running> {
    const launch = await this.options.launch();
    const session = new ConductorSession(launch, {
      onText: (text) => this.onText(text),
      onPermission: (request) => this.onPermission(request),
      log: (message) => this.options.log(message),
    });
    let channel: ToolChannel | undefined;
    try {
      const mcpServers: McpServer[] = [];
      if (tools.length > 0) {
        const handler = { tools: () => this.tools, call: (call: ToolCallRequest) => this.onToolCall(call) };
        channel = await openToolChannel(this.options.privateDir, handler, (message) => this.options.log(message));
        const env = { ...this.options.relay.env, ...channel.relayEnv };
        mcpServers.push({
          name: TOOLS_SERVER_NAME,
          command: this.options.relay.command,
          args: this.options.relay.args,
          env: Object.entries(env).map(([name, value]) => ({ name, value })),
        });
      }
      const sessionId = await session.open(mcpServers);
      this.options.log(`${launch.name}: session ${sessionId} (pid ${session.pid ?? "?"}, ${tools.length} tool(s) offered)`);
      return { session, channel, turn: undefined };
    } catch (error) {
      await Promise.all([session.stop(), channel?.server.close()]);
      throw new Error(`${launch.name} could not start a session: ${session.explain(error)}`, { cause: error });
    }
  }

  /** Sends a prompt and follows its turn for this request. */
  private prompt(request: LmRequest, blocks: ContentBlock[]): Promise<void> {
    const running = this.running!;
    const followed = this.follow(request);
    running.turn = running.session.prompt(blocks).then(
      (stopReason) => {
        running.turn = undefined;
        if (stopReason === "refusal") this.responder?.fail(new Error("the agent refused to answer"));
        this.responder?.done();
      },
      (error: Error) => {
        running.turn = undefined;
        this.responder?.fail(error);
      },
    );
    return followed;
  }

  /** Resolves when the running turn ends or asks for a tool; the consumer's cancellation cancels the turn. */
  private follow(request: LmRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const finish = (): void => {
        request.signal.removeEventListener("abort", onAbort);
        if (this.responder === responder) this.responder = undefined;
      };
      const responder: Responder = {
        sink: request.sink,
        done: () => (finish(), resolve()),
        fail: (error) => (finish(), reject(error)),
      };
      const onAbort = (): void => {
        this.options.log("the consumer cancelled the request: cancelling the agent's turn");
        responder.done();
        void this.discardTurn();
      };
      this.responder = responder;
      request.signal.addEventListener("abort", onAbort);
    });
  }

  private onText(text: string): void {
    if (this.responder === undefined) return this.options.log(`dropped ${text.length} characters the agent sent outside a request`);
    this.history.recordAssistant({ kind: "text", text });
    this.responder.sink.text(text);
  }

  /** The agent called one of the consumer's tools: a tool-call part ends this response; the answer comes with the next request. */
  private onToolCall(call: ToolCallRequest): Promise<ToolCallResult> {
    if (!this.tools.some((tool) => tool.name === call.name)) return Promise.resolve({ text: `no tool named '${call.name}' is offered`, isError: true });
    return this.askConsumer(call.name, call.input);
  }

  /**
   * The agent asks before an action of its own: shown to the consumer as a call of the agent-action tool,
   * which VS Code confirms with the user before it runs. Its result in the next request allows the action
   * once; anything else (another message, a changed history, a cancellation) refuses it.
   */
  private async onPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const input = agentActionInput(request);
    const result = await this.askConsumer(AGENT_ACTION_TOOL, input);
    // A turn cancelled meanwhile answers its open permission requests as cancelled (as ACP asks of a client).
    if (result.cancelled) return { outcome: { outcome: "cancelled" } };
    const approved = !result.isError && result.text.trim() === AGENT_ACTION_APPROVED;
    this.options.log(`the agent's action "${input.title}": ${approved ? "allowed once" : "refused"} by the consumer`);
    return permissionAnswer(request, approved);
  }

  /** A tool-call part ends this response; resolves with the consumer's result from a later request. */
  private async askConsumer(name: string, input: unknown): Promise<ConsumerAnswer> {
    if (this.responder === undefined) return { text: "the editor is not waiting for a tool call now", isError: true, cancelled: true };
    // The call came over the tool channel, the agent's text before it over the ACP stream, which may still
    // be on its way: wait for the stream to catch up, so that text ends this response instead of being lost.
    await settledWithin(this.running?.session.caughtUp() ?? Promise.resolve(), CAUGHT_UP_LIMIT_MS);
    const responder = this.responder;
    if (responder === undefined) return { text: "the editor is not waiting for a tool call now", isError: true, cancelled: true };
    const callId = `symposium-${crypto.randomBytes(8).toString("hex")}`;
    return new Promise((resolve) => {
      this.pendingCalls.push({ callId, resolve });
      this.history.recordAssistant({ kind: "toolCall", callId, name, input });
      responder.sink.toolCall(callId, name, input);
      responder.done();
    });
  }

  /** Answers pending calls from the tool results in `messages`; true when any was answered. */
  private answerToolCalls(messages: LmMessage[]): boolean {
    let answered = false;
    for (const part of messages.flatMap((message) => message.parts)) {
      if (part.kind !== "toolResult") continue;
      const at = this.pendingCalls.findIndex((pending) => pending.callId === part.callId);
      if (at === -1) continue;
      this.pendingCalls.splice(at, 1)[0]!.resolve({ text: part.text, isError: false });
      answered = true;
    }
    return answered;
  }

  /** Ends the turn in flight: pending tool calls answered as cancelled, session/cancel. */
  private async discardTurn(): Promise<void> {
    for (const pending of this.pendingCalls.splice(0)) pending.resolve({ text: "the user cancelled this tool call", isError: true, cancelled: true });
    const running = this.running;
    if (running?.turn === undefined) return;
    running.session.cancel();
    await running.turn;
  }

  /** Cancels the turn and stops the session, its conductor and its tool channel. */
  private async discard(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running === undefined) return;
    for (const pending of this.pendingCalls.splice(0)) pending.resolve({ text: "the conversation was replaced", isError: true, cancelled: true });
    if (running.turn !== undefined) {
      // The agent hears the cancellation and may end its turn before its process is stopped.
      running.session.cancel();
      await settledWithin(running.turn, CANCEL_GRACE_MS);
    }
    await Promise.all([running.session.stop(), running.channel?.server.close()]);
  }
}

/** How long a cancelled turn may take to end before its session is stopped anyway. */
const CANCEL_GRACE_MS = 2_000;
/** At most this long for the agent's earlier messages before a tool call (an agent that never answers the check holds nothing up). */
const CAUGHT_UP_LIMIT_MS = 1_000;

function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = (): void => (clearTimeout(timer), resolve());
    promise.then(done, done);
  });
}

/** New user messages as a prompt (tool results no pending call took go as text). */
function promptBlocks(messages: LmMessage[]): ContentBlock[] {
  return [{ type: "text", text: messagesText(messages) }];
}
