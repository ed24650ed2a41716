// The agent's errors explained as a component of the chain (conductor-hooks/src/agent-errors.ts):
// the router gives it the answers coming back from the process after it, and only those.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { StderrTail, type WireMessage } from "../../../acp-wire/src/index.js";
import { agentErrorsComponent } from "../../../conductor-hooks/src/agent-errors.js";
import { Router, type ChainNode } from "../../../conductor-hooks/src/router.js";
import { MemoryConnection } from "../../support/memory-connection.js";

const settle = () => new Promise((resolve) => setImmediate(resolve));
const line = (message: WireMessage) => Buffer.from(JSON.stringify(message));
const BARE_INTERNAL = { code: -32603, message: "Internal error" };

/** client → proxy → agent-errors → agent, the agent's stderr tail at hand. */
function chain() {
  const client = new MemoryConnection("client", "upstream");
  const proxy = new MemoryConnection("proxy", "proxy");
  const agent = new MemoryConnection("agent", "agent");
  const stderrTail = new StderrTail();
  const nodes: ChainNode[] = [
    { kind: "process", connection: proxy },
    { kind: "in-process", component: agentErrorsComponent({ name: "agent", command: ["my-agent", "--acp"], stderrTail }, {}, () => {}) },
    { kind: "process", connection: agent },
  ];
  const router = new Router({ nodes, upstream: client, mode: "agent", dialect: "_proxy", trace: null, log: () => {} });
  return { client, proxy, agent, stderrTail, router };
}

describe("the agent's errors, explained by a component in front of the agent", () => {
  it("gives a bare Internal error what the agent wrote on stderr meanwhile, and passes other answers as they came", async () => {
    const c = chain();
    c.router.fromComponent(0, line({ jsonrpc: "2.0", id: "p-1", method: "_proxy/successor", params: { method: "session/new", params: {} } }));
    await settle();
    const [request] = c.agent.take();
    c.stderrTail.push("Error: claude: command not found");
    c.router.fromComponent(2, line({ jsonrpc: "2.0", id: request!.id, error: BARE_INTERNAL }));
    await settle();
    const [answer] = c.proxy.take() as Array<{ id: unknown; error: { code: number; message: string; data: { details: string } } }>;
    assert.equal(answer!.id, "p-1", "back to the proxy with its own id");
    assert.equal(answer!.error.code, -32603);
    assert.match(answer!.error.message, /agent 'agent' wrote on stderr: Error: claude: command not found/);
    assert.match(answer!.error.data.details, /Command: my-agent --acp/);

    c.router.fromComponent(0, line({ jsonrpc: "2.0", id: "p-2", method: "_proxy/successor", params: { method: "session/new", params: {} } }));
    await settle();
    const [second] = c.agent.take();
    c.router.fromComponent(2, line({ jsonrpc: "2.0", id: second!.id, error: BARE_INTERNAL }));
    await settle();
    assert.deepEqual(c.proxy.take(), [{ jsonrpc: "2.0", id: "p-2", error: BARE_INTERNAL }], "nothing new on stderr: the error passes as it came");
  });

  it("sees no answer from a process before it: the proxy's bare Internal error reaches the client as it came", async () => {
    const c = chain();
    c.stderrTail.push("a line the agent wrote");
    c.router.fromUpstream(line({ jsonrpc: "2.0", id: 7, method: "session/new", params: {} }));
    await settle();
    const [request] = c.proxy.take();
    c.router.fromComponent(0, line({ jsonrpc: "2.0", id: request!.id, error: BARE_INTERNAL }));
    await settle();
    assert.deepEqual(c.client.take(), [{ jsonrpc: "2.0", id: 7, error: BARE_INTERNAL }]);
  });
});
