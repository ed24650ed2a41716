// The agent action's input (lm-provider/src/agent-action.ts) is what VS Code shows the user to confirm: whatever
// a hostile agent puts in its permission request (a 20 MB path, thousands of them, line breaks, words that are
// no tool kind, values that are not strings), every field and the whole input stay small.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { MAX_AGENT_ACTION_INPUT_CHARS, agentActionInput } from "../../../lm-provider/src/agent-action.js";

/** The agent's request as it arrives: the agent chose every field. */
function request(toolCall: Record<string, unknown>): RequestPermissionRequest {
  return { sessionId: "s", toolCall: { toolCallId: "t", ...toolCall }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }] };
}

const MEGABYTE = 1024 * 1024;
/** Far less than what the agent sent: a confirmation's worth. */
const SMALL_INPUT_CHARS = 32 * 1024;

describe("the agent action's input, whatever the agent sends", () => {
  it("bounds each path and the whole input: twenty paths of 1 MB each come out as a few kilobytes", () => {
    const huge = "/work/" + "p".repeat(MEGABYTE);
    const input = agentActionInput(request({ title: "t".repeat(MEGABYTE), locations: Array.from({ length: 20 }, () => ({ path: huge })) }));
    const size = JSON.stringify(input).length;
    assert.ok(size <= SMALL_INPUT_CHARS, `the input is ${size} characters`);
    assert.ok(size <= MAX_AGENT_ACTION_INPUT_CHARS);
    assert.ok(input.paths.length >= 1, "a long path is shown cut, not dropped");
    for (const shown of input.paths) assert.ok(shown.length <= 1025 && shown.startsWith("/work/ppp") && shown.endsWith("…"), shown.slice(0, 40));
  });

  it("keeps at most twenty paths of thousands, drops those that are not strings or empty, and keeps real ones whole", () => {
    const locations = [
      { path: 7 },
      { path: { nested: true } },
      null,
      { path: "" },
      { path: "/a.txt" },
      ...Array.from({ length: 10_000 }, (_, n) => ({ path: `/f/${n}` })),
    ];
    const input = agentActionInput(request({ title: "edit", locations }));
    assert.equal(input.paths.length, 16, "20 entries looked at, the 4 unusable ones dropped");
    assert.deepEqual(input.paths.slice(0, 2), ["/a.txt", "/f/0"]);
    assert.ok(JSON.stringify(input).length <= MAX_AGENT_ACTION_INPUT_CHARS);
  });

  it("puts every field on one line and keeps only ACP's tool kinds", () => {
    const input = agentActionInput(request({ title: "run\nrm -rf ~\r\u0085\u2028now", kind: "x".repeat(MEGABYTE), locations: [{ path: "/a\nb" }] }));
    assert.equal(input.title, "run rm -rf ~   now");
    assert.deepEqual(input.paths, ["/a b"]);
    assert.equal(input.kind, undefined, "an unknown kind is left out");
    assert.equal(agentActionInput(request({ title: "t", kind: "execute" })).kind, "execute");
  });

  it("stays within the bound when every character is one JSON must escape", () => {
    const quotes = '"\\'.repeat(MEGABYTE);
    const lone = "\ud800".repeat(MEGABYTE);
    const input = agentActionInput(request({ title: lone, locations: Array.from({ length: 50 }, (_, n) => ({ path: n % 2 ? quotes : lone })) }));
    assert.ok(JSON.stringify(input).length <= MAX_AGENT_ACTION_INPUT_CHARS, `${JSON.stringify(input).length}`);
  });
});
