// The language model provider's core without VS Code (lm-provider/): a
// conversation driving the real conductor and a real ACP agent (test/fixtures/lm-agent.ts) over
// pipes, with the MCP relay (dist/symposium-lm-tools.mjs) and its private
// channel for the consumer's tools; the relay against a peer that is not the editor. The same core runs inside VS Code in
// test/e2e/language-models.test.ts; its history matcher and tool channel alone:
// test/unit/lm-provider/lm-provider.test.ts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AGENT_ACTION_APPROVED, AGENT_ACTION_TOOL, LmConversation, type LmMessage, type LmRequest, type LmTool } from "../../../lm-provider/src/index.js";
import { CONDUCTOR_CLI, OUT_DIR, REPO_DIR, eventually, isAlive, tempDir } from "../../support/processes.js";

const LM_AGENT = path.join(OUT_DIR, "test", "fixtures", "lm-agent.js");
const RELAY = path.join(REPO_DIR, "dist", "symposium-lm-tools.mjs");

const FIXTURE_AGENT = { id: "lm-fixture", name: "LM fixture agent", distribution: { local: { command: process.execPath, args: [LM_AGENT] } } };

const user = (text: string): LmMessage => ({ role: "user", parts: [{ kind: "text", text }] });
const assistant = (text: string): LmMessage => ({ role: "assistant", parts: [{ kind: "text", text }] });

interface Collected {
  texts: string[];
  calls: Array<{ callId: string; name: string; input: unknown }>;
  request: LmRequest;
  abort: AbortController;
}

function request(messages: LmMessage[], tools: LmTool[] = []): Collected {
  const abort = new AbortController();
  const collected: Collected = {
    texts: [],
    calls: [],
    abort,
    request: {
      messages,
      tools,
      signal: abort.signal,
      sink: { text: (text) => collected.texts.push(text), toolCall: (callId, name, input) => collected.calls.push({ callId, name, input }) },
    },
  };
  return collected;
}

const answer = (collected: Collected) => collected.texts.join("");

describe("a conversation through the conductor and a real agent", { timeout: 120_000 }, () => {
  const dir = tempDir("symposium-lm-");
  fs.chmodSync(dir, 0o700);
  const agentLog = path.join(dir, "agent.jsonl");
  const conversations: LmConversation[] = [];
  const logs = new Map<LmConversation, string[]>();

  function conversation(): LmConversation {
    const lines: string[] = [];
    const created = new LmConversation({
      launch: async () => ({
        program: process.execPath,
        // As the extension runs it: the catalogue's agent by id (here a custom one, as symposium.agents gives it).
        args: [CONDUCTOR_CLI, "run", "--config", path.join(dir, "config.jsonc"), "--agent-id", "lm-fixture", "--agents", JSON.stringify([FIXTURE_AGENT])],
        env: { ...process.env, LM_AGENT_LOG: agentLog, SYMPOSIUM_REGISTRY_URL: "" },
        cwd: dir,
        name: "lm-agent",
        clientVersion: "test",
      }),
      relay: { command: process.execPath, args: [RELAY], env: {} },
      privateDir: dir,
      log: (message) => lines.push(message),
    });
    conversations.push(created);
    logs.set(created, lines);
    return created;
  }

  interface AgentEvent {
    pid: number;
    event: string;
    sessionId: string;
    text?: string;
    tools?: string[];
    said?: string;
  }
  const agentEvents = (): AgentEvent[] =>
    fs.existsSync(agentLog)
      ? fs
          .readFileSync(agentLog, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as AgentEvent)
      : [];
  /** Pids of the conductors the conversation's log says it started. */
  const conductorPids = (chat: LmConversation): number[] =>
    logs.get(chat)!.flatMap((line) => [...line.matchAll(/\(pid (\d+),/g)].map((found) => Number(found[1])));
  const sessionOf = (text: string) => /session=(\S+)/.exec(text)?.[1];

  after(async () => {
    await Promise.all(conversations.map((each) => each.dispose()));
  });

  it("streams, continues the same session with only the new message, and puts a changed history in a new session", async () => {
    const chat = conversation();
    const first = request([user("hello stream:5")]);
    await chat.respond(first.request);
    assert.ok(first.texts.length >= 6, `streamed in parts: ${JSON.stringify(first.texts)}`);
    assert.match(answer(first), /^session=\S+ prompt=1 contexts=0 replayed=no\nchunk-1 chunk-2 chunk-3 chunk-4 chunk-5 $/);

    const second = request([user("hello stream:5"), assistant(answer(first)), user("and again")]);
    await chat.respond(second.request);
    assert.equal(sessionOf(answer(second)), sessionOf(answer(first)), "the same ACP session");
    assert.match(answer(second), /prompt=2 .*replayed=no\nyou said: and again$/);
    assert.deepEqual(
      agentEvents()
        .filter((event) => event.event === "prompt")
        .map((event) => event.text),
      ["hello stream:5", "and again"],
      "only the new message was sent",
    );

    const [oldConductor] = conductorPids(chat);
    const third = request([user("hello stream:5"), assistant("something else"), user("edited")]);
    await chat.respond(third.request);
    assert.notEqual(sessionOf(answer(third)), sessionOf(answer(first)));
    assert.match(answer(third), /prompt=1 .*replayed=yes\nyou said: edited$/);
    await eventually(() => !isAlive(oldConductor!), 5_000, "the old session's conductor to stop");
    await chat.dispose();
  });

  it("a request that replaces one still streaming cancels the agent's turn; the consumer's cancellation does too", async () => {
    const chat = conversation();
    const slow = request([user("go slow")]);
    const slowDone = chat.respond(slow.request);
    await eventually(() => answer(slow).includes("tick-1"), 10_000, "the slow answer to stream");
    const replacing = request([user("something else entirely")]);
    await chat.respond(replacing.request);
    await assert.rejects(slowDone, /a newer request to this model replaced this one/);
    const slowSession = sessionOf(answer(slow));
    assert.ok(
      agentEvents().some((event) => event.event === "cancel" && event.sessionId === slowSession),
      "session/cancel reached the agent",
    );
    assert.match(answer(replacing), /you said: something else entirely/);

    const cancelled = request([user("something else entirely"), assistant(answer(replacing)), user("slow")]);
    const cancelledDone = chat.respond(cancelled.request);
    await eventually(() => answer(cancelled).includes("tick-1"), 10_000, "the second slow answer to stream");
    cancelled.abort.abort();
    await cancelledDone;
    const session = sessionOf(answer(cancelled));
    await eventually(
      () => agentEvents().some((event) => event.event === "cancel" && event.sessionId === session),
      5_000,
      "session/cancel for the consumer's cancellation",
    );
    await chat.dispose();
  });

  it("bridges a tool: the agent's MCP call becomes a tool-call part, the consumer's result answers it", async () => {
    const chat = conversation();
    const tools: LmTool[] = [
      { name: "echo", description: "echoes", inputSchema: { type: "object", properties: { x: { type: "number" } } } },
      { name: "other", description: "unused" },
    ];
    const ask = request([user('please tool:echo:{"x":1}')], tools);
    await chat.respond(ask.request);
    assert.equal(ask.calls.length, 1, `one tool call: ${answer(ask)}`);
    const [call] = ask.calls;
    assert.equal(call!.name, "echo");
    assert.deepEqual(call!.input, { x: 1 });
    assert.deepEqual(agentEvents().find((event) => event.event === "new" && event.sessionId === sessionOf(answer(ask)))?.tools, ["echo", "other"]);

    const called: LmMessage = {
      role: "assistant",
      parts: [
        { kind: "text", text: answer(ask) },
        { kind: "toolCall", ...call!, callId: call!.callId },
      ],
    };
    const result: LmMessage = { role: "user", parts: [{ kind: "toolResult", callId: call!.callId, text: "pong from the editor" }] };
    const followUp = request([user('please tool:echo:{"x":1}'), called, result], tools);
    await chat.respond(followUp.request);
    assert.equal(answer(followUp), "tool said: pong from the editor", "the same turn went on with the result");
    await chat.dispose();
  });

  it("asks the consumer before the agent's own action (symposium-agent-action): its result allows it once, anything else refuses it", async () => {
    const chat = conversation();
    const ask = request([user("please ask")]);
    await chat.respond(ask.request);
    assert.equal(ask.calls.length, 1, `one call of the agent-action tool: ${answer(ask)}`);
    const [call] = ask.calls;
    assert.equal(call!.name, AGENT_ACTION_TOOL);
    assert.deepEqual(call!.input, { title: "make test", kind: "execute", paths: ["/project/Makefile"] });
    assert.match(answer(ask), /I need to run the tests\. $/, "the agent's text before it ends the response");

    const asked: LmMessage = {
      role: "assistant",
      parts: [
        { kind: "text", text: answer(ask) },
        { kind: "toolCall", ...call! },
      ],
    };
    const approved = request([user("please ask"), asked, { role: "user", parts: [{ kind: "toolResult", callId: call!.callId, text: AGENT_ACTION_APPROVED }] }]);
    await chat.respond(approved.request);
    assert.equal(answer(approved), "permission: allow", "allowed once, never always");

    // The consumer answers with anything but the tool's approval (a user who declined it): refused.
    const again = request([
      user("please ask"),
      asked,
      { role: "user", parts: [{ kind: "toolResult", callId: call!.callId, text: AGENT_ACTION_APPROVED }] },
      assistant(answer(approved)),
      user("ask"),
    ]);
    await chat.respond(again.request);
    const [second] = again.calls;
    assert.ok(second, `a second call: ${answer(again)}`);
    const declined = request([
      ...again.request.messages,
      {
        role: "assistant",
        parts: [
          { kind: "text", text: answer(again) },
          { kind: "toolCall", ...second },
        ],
      },
      { role: "user", parts: [{ kind: "toolResult", callId: second.callId, text: "The user cancelled the tool call." }] },
    ]);
    await chat.respond(declined.request);
    assert.equal(answer(declined), "permission: reject");

    // The consumer moves on without the call's result (a new message): the turn is cancelled, and the action with it.
    const third = request([user("please ask again: ask")]);
    await chat.respond(third.request);
    assert.equal(third.calls.length, 1);
    const movedOn = request([
      user("please ask again: ask"),
      {
        role: "assistant",
        parts: [
          { kind: "text", text: answer(third) },
          { kind: "toolCall", ...third.calls[0]! },
        ],
      },
      user("never mind"),
    ]);
    await chat.respond(movedOn.request);
    assert.match(answer(movedOn), /you said: never mind/);
    await eventually(
      () => agentEvents().some((event) => event.event === "permission" && event.sessionId === sessionOf(answer(third)) && event.said === "cancelled"),
      5_000,
      "the third action cancelled",
    );
    await chat.dispose();
  });

  it("an agent that refuses the tools, and one that dies mid-answer: a clear error, nothing left running", async () => {
    const chat = conversation();
    const refused = request([user("hi")], [{ name: "reject-me", description: "a tool this agent refuses" }]);
    await assert.rejects(chat.respond(refused.request), /lm-agent could not start a session: .*cannot use the tool 'reject-me'/);

    const dying = request([user("die")]);
    await assert.rejects(chat.respond(dying.request), /^Error: lm-agent: .*exited with code 3/);
    assert.match(answer(dying), /dying/);
    const again = request([user("die"), assistant(answer(dying)), user("are you back")]);
    await chat.respond(again.request);
    assert.match(answer(again), /replayed=yes\nyou said: are you back/);
    await chat.dispose();
    for (const pid of [...conductorPids(chat), ...agentEvents().map((event) => event.pid)]) await eventually(() => !isAlive(pid), 5_000, `pid ${pid} to end`);
  });

  it("takes 1,000 messages of history and alternating histories, one session at a time", async () => {
    const chat = conversation();
    const long = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`)));
    const big = request([...long, user("the end")]);
    await chat.respond(big.request);
    assert.match(answer(big), /replayed=yes\nyou said: the end$/);
    const histories = [[user("A")], [user("B")]];
    for (let round = 0; round < 4; round++) {
      const next = request(histories[round % 2]!);
      await chat.respond(next.request);
      assert.match(answer(next), /replayed=no\nyou said: [AB]$/);
    }
    const pids = conductorPids(chat);
    await chat.dispose();
    for (const pid of pids) await eventually(() => !isAlive(pid), 5_000, `conductor ${pid} to end`);
  });
});

describe("the relay (symposium-lm-tools) against a peer that is not the editor", { skip: process.platform === "win32" ? "Unix sockets" : false }, () => {
  /** A socket that answers every line with `reply` (or nothing), as a hostile or dead editor would. */
  async function fakeEditor(reply: string | null): Promise<{ socket: string; close(): Promise<void> }> {
    const dir = tempDir("symposium-lm-peer-");
    fs.chmodSync(dir, 0o700);
    const socket = path.join(dir, "peer.sock");
    const peers = new Set<net.Socket>();
    const server = net.createServer((peer) => {
      peers.add(peer);
      peer.on("data", () => reply !== null && peer.write(reply));
      peer.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    return { socket, close: () => new Promise((resolve) => (peers.forEach((peer) => peer.destroy()), server.close(() => resolve()))) };
  }

  async function relayFor(socket: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RELAY],
      env: { ...(process.env as Record<string, string>), SYMPOSIUM_LM_TOOLS_SOCKET: socket, SYMPOSIUM_LM_TOOLS_SECRET: "s".repeat(64) },
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    return client;
  }

  for (const [peer, reply] of [
    ["answers garbage", "not json at all\n"],
    ["never answers", null],
  ] as const) {
    it(`a peer that ${peer}: the agent's tools/list and calls fail with a clear error, no hang`, async () => {
      const editor = await fakeEditor(reply);
      const client = await relayFor(editor.socket);
      try {
        await assert.rejects(client.listTools(), /did not accept this server/);
        const result = (await client.callTool({ name: "echo", arguments: {} })) as CallToolResult;
        assert.equal(result.isError, true);
        assert.match(JSON.stringify(result.content), /did not accept this server/);
      } finally {
        await client.close();
        await editor.close();
      }
    });
  }
});
