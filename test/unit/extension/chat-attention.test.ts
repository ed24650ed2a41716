// The chat's notifications, without VS Code: what the page reports for each live
// event (webchat/page/attention.ts), the panel's check of that report
// (webview/src/panel-messages.ts), what the notification says, and the same
// occasion reported by two surfaces told once (extension/src/panel/attention-notice.ts).
// The whole path, in code-server + Chromium: test/e2e/chat-attention.test.ts.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { attentionFor, attentionRequest } from "../../../webchat/page/attention.js";
import { parseFromPanel } from "../../../webview/src/panel-messages.js";
import { AttentionOccasions, SAME_TURN_MS, attentionMessage } from "../../../extension/src/panel/attention-notice.js";

describe("what the chat page reports to VS Code's panel", () => {
  it("reports a finished turn, a permission, a question and a sign-in; their ids scoped by the conversation", () => {
    assert.deepEqual(attentionFor({ kind: "turnEnd", stopReason: "end_turn" }, 0, "c1"), { reason: "turnEnded" });
    assert.deepEqual(attentionFor({ kind: "permission", id: "permission-1", title: "Run", options: [] }, 0, "c1"), {
      reason: "permission",
      key: "c1/permission-1",
    });
    assert.deepEqual(attentionFor({ kind: "elicitation", id: "elicitation-2", message: "Which?", mode: "url", url: "https://example.com/" }, 0, "c1"), {
      reason: "question",
      key: "c1/elicitation-2",
    });
    assert.deepEqual(attentionFor({ kind: "signIn", id: "signin-1", message: "Sign in", methods: [] }, 0, "c 2"), { reason: "signIn", key: "c_2/signin-1" });
  });

  it("says nothing of a turn the user cancelled, of one after which queued messages go, or of other events", () => {
    assert.equal(attentionFor({ kind: "turnEnd", stopReason: "cancelled" }, 0, "c1"), null);
    assert.equal(attentionFor({ kind: "turnEnd", stopReason: "end_turn" }, 2, "c1"), null);
    assert.equal(attentionFor({ kind: "notice", message: "hi" }, 0, "c1"), null);
    assert.equal(attentionFor({ kind: "user", text: "hi", contextSkipped: false }, 0, "c1"), null);
  });

  it("sends what the panel's checks take, and the panel refuses any other reason or key", () => {
    const sent = attentionRequest({ kind: "permission", id: "permission-7", title: "Run", options: [] }, 0, "0123abcd");
    assert.deepEqual(parseFromPanel({ type: "request", request: (sent as { request: unknown }).request }), {
      type: "request",
      request: { kind: "attention", reason: "permission", key: "0123abcd/permission-7" },
    });
    assert.deepEqual(parseFromPanel({ type: "request", request: { kind: "attention", reason: "turnEnded", extra: "dropped" } }), {
      type: "request",
      request: { kind: "attention", reason: "turnEnded" },
    });
    for (const request of [
      { kind: "attention", reason: "command:workbench.action.terminal.new" },
      { kind: "attention" },
      { kind: "attention", reason: "permission", key: "" },
      { kind: "attention", reason: "permission", key: "[link](command:x)" },
      { kind: "attention", reason: "permission", key: "x".repeat(201) },
      { kind: "attention", reason: "permission", key: 7 },
    ])
      assert.equal(parseFromPanel({ type: "request", request }), null, JSON.stringify(request));
  });
});

describe("the notification", () => {
  it("names the agent and what it wants", () => {
    assert.equal(attentionMessage("turnEnded", "Claude Agent"), "Claude Agent has finished its turn.");
    assert.equal(attentionMessage("permission", "codex"), "codex asks for your permission.");
    assert.equal(attentionMessage("question", undefined), "The agent has a question for you.");
    assert.equal(attentionMessage("signIn", ""), "The agent asks you to sign in.");
  });

  it("never carries a link an agent put in its name (VS Code reads [text](link) in a notification)", () => {
    const message = attentionMessage("turnEnded", "[Click me](command:workbench.action.terminal.new)");
    assert.doesNotMatch(message, /\]\(/);
    assert.equal(attentionMessage("turnEnded", " \n\u202e\u200b "), "The agent has finished its turn.");
  });

  it("tells an occasion once, whichever surfaces report it", () => {
    const occasions = new AttentionOccasions();
    assert.equal(occasions.isNew("permission", "c1/permission-1", 0), true);
    assert.equal(occasions.isNew("permission", "c1/permission-1", 10), false, "the editor tab's report of the same permission");
    assert.equal(occasions.isNew("permission", "c2/permission-1", 20), true, "another conversation's");
    assert.equal(occasions.isNew("turnEnded", undefined, 1000), true);
    assert.equal(occasions.isNew("turnEnded", undefined, 1005), false, "the same turn's end from the other surface");
    assert.equal(occasions.isNew("turnEnded", undefined, 1005 + SAME_TURN_MS), true, "a later turn");
    for (let index = 0; index < 100; index++) occasions.isNew("question", `c1/elicitation-${index}`, 0);
    assert.equal(occasions.isNew("permission", "c1/permission-1", 0), true, "old occasions are forgotten, not kept without bound");
  });
});
