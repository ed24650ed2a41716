// The language model provider's core without VS Code (lm-provider/), in process: the
// committed / provisional history matcher, and the private tool channel the MCP relay
// reaches the consumer's tools through. A conversation through the real conductor and
// agent: test/process/lm-provider/lm-provider.test.ts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { HistoryTracker, type LmMessage, type LmTool } from "../../../lm-provider/src/index.js";
import { TOOLS_SECRET_ENV, callTool, listTools, openToolChannel } from "../../../lm-provider/src/tool-channel.js";
import { ChannelClient } from "../../../editor-tools/src/channel-client.js";
import { agentActionInput, permissionAnswer } from "../../../lm-provider/src/agent-action.js";
import type { PermissionOptionKind, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { tempDir } from "../../support/processes.js";

const user = (text: string): LmMessage => ({ role: "user", parts: [{ kind: "text", text }] });
const assistant = (text: string): LmMessage => ({ role: "assistant", parts: [{ kind: "text", text }] });

describe("the history matcher (committed / provisional)", () => {
  it("continues with only the new message when the request extends what was streamed", () => {
    const history = new HistoryTracker();
    assert.equal(history.match([user("one")]).kind, "restart");
    history.recordAssistant({ kind: "text", text: "first " });
    history.recordAssistant({ kind: "text", text: "answer" });
    const match = history.match([user("one"), assistant("first answer\n"), user("two")]);
    assert.deepEqual(match, { kind: "continue", newMessages: [user("two")] });
  });

  it("restarts, replaying the rest, when the consumer changed or dropped what we streamed", () => {
    const history = new HistoryTracker();
    history.match([user("one")]);
    history.recordAssistant({ kind: "text", text: "answer" });
    const match = history.match([user("one"), assistant("an edited answer"), user("two")]);
    assert.deepEqual(match, { kind: "restart", earlier: [user("one"), assistant("an edited answer")], newMessages: [user("two")] });
    // Cancelled mid-stream: the consumer asks again without our partial answer.
    history.recordAssistant({ kind: "text", text: "partial" });
    assert.equal(history.match([user("one"), assistant("an edited answer"), user("three")]).kind, "restart");
  });

  it("a tool result continues the turn that asked for it", () => {
    const history = new HistoryTracker();
    history.match([user("use the tool")]);
    history.recordAssistant({ kind: "text", text: "calling" });
    history.recordAssistant({ kind: "toolCall", callId: "c1", name: "echo", input: { x: 1 } });
    const called: LmMessage = {
      role: "assistant",
      parts: [
        { kind: "text", text: "calling" },
        { kind: "toolCall", callId: "c1", name: "echo", input: { x: 1 } },
      ],
    };
    const result: LmMessage = { role: "user", parts: [{ kind: "toolResult", callId: "c1", text: "pong" }] };
    assert.deepEqual(history.match([user("use the tool"), called, result]), { kind: "continue", newMessages: [result] });
  });

  it("matches 1,000 messages of history", () => {
    const history = new HistoryTracker();
    const messages = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`)));
    messages.push(user("last"));
    assert.equal(history.match(messages).kind, "restart");
    history.recordAssistant({ kind: "text", text: "ok" });
    assert.equal(history.match([...messages, assistant("ok"), user("next")]).kind, "continue");
  });
});

describe("the tool channel", () => {
  it("answers a caller with the secret through the editor tools' client, and refuses one without it; the socket is private", async () => {
    const dir = tempDir("symposium-lm-channel-");
    fs.chmodSync(dir, 0o700);
    const tools: LmTool[] = [{ name: "echo", description: "echoes" }];
    const channel = await openToolChannel(
      dir,
      { tools: () => tools, call: async ({ name, input }) => ({ text: `${name} ${JSON.stringify(input)}`, isError: false }) },
      () => {},
    );
    try {
      if (process.platform !== "win32") assert.equal(fs.statSync(channel.address).mode & 0o777, 0o600);
      const client = new ChannelClient(() => ({ socket: channel.address, secret: channel.relayEnv[TOOLS_SECRET_ENV]! }));
      assert.deepEqual(await listTools(client), tools);
      assert.deepEqual(await callTool(client, "echo", { a: 1 }), { text: 'echo {"a":1}', isError: false });
      await assert.rejects(client.request("call_tool", { arguments: {} }), /needs the tool's name/);
      client.close();
      const intruder = new ChannelClient(() => ({ socket: channel.address, secret: "not-the-secret" }));
      await assert.rejects(listTools(intruder), /did not accept this server/);
    } finally {
      await channel.server.close();
    }
  });
});

describe("the agent's own action as the consumer sees it (symposium-agent-action)", () => {
  const asking = (title: unknown, kinds: PermissionOptionKind[], locations = 0): RequestPermissionRequest => ({
    sessionId: "s",
    toolCall: { toolCallId: "t", title: title as string, locations: Array.from({ length: locations }, (_, n) => ({ path: `/p/${n}` })) },
    options: kinds.map((kind) => ({ optionId: `option-${kind}`, name: kind, kind })),
  });

  it("bounds what the agent says: a long title is cut, a missing one named, at most 20 paths", () => {
    const long = agentActionInput(asking("x".repeat(10_000), ["allow_once"], 500));
    assert.equal(long.title.length, 501);
    assert.equal(long.paths.length, 20);
    assert.equal(agentActionInput(asking(undefined, ["allow_once"])).title, "an action of the agent");
    assert.equal(agentActionInput(asking("   ", ["allow_once"])).title, "an action of the agent");
  });

  it("allows once and only once: an agent offering only 'always' is cancelled; a refusal picks reject-once", () => {
    const all: PermissionOptionKind[] = ["allow_always", "allow_once", "reject_always", "reject_once"];
    assert.deepEqual(permissionAnswer(asking("t", all), true), { outcome: { outcome: "selected", optionId: "option-allow_once" } });
    assert.deepEqual(permissionAnswer(asking("t", all), false), { outcome: { outcome: "selected", optionId: "option-reject_once" } });
    assert.deepEqual(permissionAnswer(asking("t", ["allow_always"]), true), { outcome: { outcome: "cancelled" } });
    assert.deepEqual(permissionAnswer(asking("t", ["allow_once"]), false), { outcome: { outcome: "cancelled" } });
  });
});
