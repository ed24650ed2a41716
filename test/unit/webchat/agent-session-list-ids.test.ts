// The agent's `session/list` answer reaches History (webchat/src/agent-session-list.ts): an entry whose id holds
// control characters is left out, by the same check as an id a page asks to reopen (isAgentSessionId).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { agentSessionPage, isAgentSessionId } from "../../../webchat/src/agent-session-list.js";

describe("the agent's sessions as History lists them", () => {
  it("leaves out an id with a control character, and lists the others", () => {
    const hostile = ["a\u0000b", "line\nbreak", "bell\u0007", "del\u007f", "esc\u001b[2J", "\r"];
    const sessions = [...hostile, "good-1", "good 2"].map((sessionId) => ({ sessionId, cwd: "/p" }));
    const page = agentSessionPage({ sessions });
    assert.deepEqual(
      page.sessions.map((entry) => entry.sessionId),
      ["good-1", "good 2"],
    );
    assert.equal(page.leftOut, hostile.length);
  });

  it("lists exactly the ids a page may ask to reopen", () => {
    const ids = ["ok", "", "x".repeat(256), "x".repeat(257), "tab\there", "\u001f", "ü-✓"];
    const listed = new Set(agentSessionPage({ sessions: ids.map((sessionId) => ({ sessionId, cwd: "/p" })) }).sessions.map((s) => s.sessionId));
    for (const id of ids) assert.equal(listed.has(id), isAgentSessionId(id), JSON.stringify(id).slice(0, 20));
  });
});
