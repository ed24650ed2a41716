// The ACP SDK's client app as a test peer: it answers every agent→client
// request ACP defines (fs, terminal, permission) with recognisable values and records session updates.

import { strict as assert } from "node:assert";
import { client, type SessionNotification, type Stream } from "@agentclientprotocol/sdk";

export const CLIENT_ANSWERS = {
  read: { content: "line one\nline two" },
  write: {},
  permission: { outcome: { outcome: "selected", optionId: "allow" } },
  terminalCreate: { terminalId: "term-7" },
  terminalOutput: { output: "hi\n", truncated: false, exitStatus: { exitCode: 0 } },
  terminalWait: { exitCode: 0 },
  terminalKill: {},
  terminalRelease: {},
} as const;

/** The agent→client requests an agent that exercises its client (test/fixtures/exercise-client.ts) sends, in order. */
export const CLIENT_METHODS = [
  "fs/read_text_file",
  "fs/write_text_file",
  "session/request_permission",
  "terminal/create",
  "terminal/output",
  "terminal/wait_for_exit",
  "terminal/kill",
  "terminal/release",
];

export interface TestClient {
  updates: SessionNotification[];
  /** Requests the agent sent, in order: [method, params]. */
  agentRequests: Array<[string, unknown]>;
  run<T>(op: (agent: AgentCalls) => Promise<T>): Promise<T>;
}

export interface AgentCalls {
  request<R = unknown>(method: string, params?: unknown, options?: { cancellationSignal?: AbortSignal }): Promise<R>;
  notify(method: string, params?: unknown): Promise<void>;
}

export function testClient(stream: Stream): TestClient {
  const updates: SessionNotification[] = [];
  const agentRequests: Array<[string, unknown]> = [];
  const record =
    <T>(method: string, answer: T) =>
    ({ params }: { params: unknown }) => {
      agentRequests.push([method, params]);
      return answer;
    };
  const app = client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("fs/read_text_file", record("fs/read_text_file", CLIENT_ANSWERS.read))
    .onRequest("fs/write_text_file", record("fs/write_text_file", CLIENT_ANSWERS.write))
    .onRequest("session/request_permission", record("session/request_permission", CLIENT_ANSWERS.permission))
    .onRequest("terminal/create", record("terminal/create", CLIENT_ANSWERS.terminalCreate))
    .onRequest("terminal/output", record("terminal/output", CLIENT_ANSWERS.terminalOutput))
    .onRequest("terminal/wait_for_exit", record("terminal/wait_for_exit", CLIENT_ANSWERS.terminalWait))
    .onRequest("terminal/kill", record("terminal/kill", CLIENT_ANSWERS.terminalKill))
    .onRequest("terminal/release", record("terminal/release", CLIENT_ANSWERS.terminalRelease));
  return {
    updates,
    agentRequests,
    run: (op) => app.connectWith(stream, (context) => op(context as unknown as AgentCalls)),
  };
}

/** Starts a slow request, cancels it after 100 ms, and expects the agent's -32800 answer. */
export async function expectCancellationReachesAgent(agent: AgentCalls): Promise<void> {
  const abort = new AbortController();
  const slow = agent.request("_test/slow", {}, { cancellationSignal: abort.signal });
  setTimeout(() => abort.abort(), 100);
  await assert.rejects(slow, (error: { code?: number }) => error.code === -32800);
}

/** initialize + session/new, as every client starts. */
export async function openSession(agent: AgentCalls, cwd = "/project"): Promise<string> {
  await agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name: "symposium-tests", version: "0.0.0" },
  });
  const session = await agent.request<{ sessionId: string }>("session/new", { cwd, mcpServers: [] });
  return session.sessionId;
}

/** The reporting agent's first chunk after a prompt: the prompt it received. */
export function receivedPrompt(updates: SessionNotification[]): Array<{ type: string; text?: string }> {
  for (const { update } of updates) {
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      const report = JSON.parse(update.content.text) as { received?: Array<{ type: string; text?: string }> };
      if (report.received) return report.received;
    }
  }
  throw new Error("the agent reported no prompt");
}

/** Every agent→client request ACP defines reached the client in order (CLIENT_METHODS), and the agent reported each answer. */
export function assertClientRequestsCrossed(peer: TestClient): void {
  assert.deepEqual(
    peer.agentRequests.map(([method]) => method),
    CLIENT_METHODS,
  );
  assert.deepEqual(clientAnswersReported(peer.updates), CLIENT_ANSWERS);
}

export function clientAnswersReported(updates: SessionNotification[]): unknown {
  for (const { update } of updates) {
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      const report = JSON.parse(update.content.text) as { clientAnswers?: unknown };
      if (report.clientAnswers) return report.clientAnswers;
    }
  }
  throw new Error("the agent reported no client answers");
}
