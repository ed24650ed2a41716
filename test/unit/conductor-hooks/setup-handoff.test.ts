// What the built-in chat reads from the setup agent's answers (conductor-hooks/src/setup-handoff.ts): a
// client that opens new conversations is known by its initialize params, and the choice in a prompt's
// answer is taken only when well formed and bounded, whatever an agent claiming to be the setup agent sends.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { AGENT_CHOSEN, NEW_CONVERSATION_ON_CHOICE, agentChosenIn, opensNewConversation } from "../../../conductor-hooks/src/setup-handoff.js";

const answer = (chosen: unknown): unknown => ({ stopReason: "end_turn", _meta: { [AGENT_CHOSEN]: chosen } });

describe("the first-run hand-over's _meta", () => {
  it("knows a client that opens new conversations only by a true in clientCapabilities._meta", () => {
    assert.equal(opensNewConversation({ clientCapabilities: { _meta: { [NEW_CONVERSATION_ON_CHOICE]: true } } }), true);
    for (const params of [undefined, null, "x", {}, { clientCapabilities: {} }, { clientCapabilities: { _meta: { [NEW_CONVERSATION_ON_CHOICE]: "yes" } } }])
      assert.equal(opensNewConversation(params), false, JSON.stringify(params));
  });

  it("takes a well-formed choice, with the first question when there is one", () => {
    assert.deepEqual(agentChosenIn(answer({ id: "demo", name: "Built-in demo agent", firstQuestion: "hello?" })), {
      id: "demo",
      name: "Built-in demo agent",
      firstQuestion: "hello?",
    });
    assert.deepEqual(agentChosenIn(answer({ id: "demo", name: "Demo", firstQuestion: "  " })), { id: "demo", name: "Demo" });
  });

  it("refuses a malformed one: no choice, so no new conversation", () => {
    for (const bad of [undefined, null, 7, [], {}, { id: 1, name: "x" }, { id: "", name: "x" }, { id: "x" }, { id: "x".repeat(129), name: "x" }])
      assert.equal(agentChosenIn(answer(bad)), undefined, JSON.stringify(bad)?.slice(0, 80));
    assert.equal(agentChosenIn({ stopReason: "end_turn" }), undefined);
    assert.equal(agentChosenIn(null), undefined);
  });

  it("bounds what it carries: a huge name and question are cut, an empty name is the id", () => {
    const chosen = agentChosenIn(answer({ id: "a", name: "n".repeat(10_000), firstQuestion: "q".repeat(1_000_000) }));
    assert.equal(chosen?.name.length, 120);
    assert.equal(chosen?.firstQuestion?.length, 100_000);
    assert.equal(agentChosenIn(answer({ id: "a", name: " " }))?.name, "a");
  });
});
