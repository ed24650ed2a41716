// The conductor's router (conductor-hooks/src/router.ts) parses every line and
// passes an unchanged message on as the bytes it came in, splicing them behind
// a new id or into an envelope when their layout allows (acp-wire/src/splice.ts).
// Whatever the layout, a line must meet the same decisions: the same messages, the same ids,
// the same envelopes reach every connection. Two routers get the same
// conversation, one in the canonical layout and one with the members in
// another order, and what each connection receives is compared.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { type WireMessage } from "../../../acp-wire/src/index.js";
import { Router } from "../../../conductor-hooks/src/router.js";
import { JsonSamples } from "../../support/json-samples.js";
import { MemoryConnection } from "../../support/memory-connection.js";

type Layout = (message: WireMessage) => string;
const canonical: Layout = (message) => JSON.stringify(message);
/** The same members, jsonrpc last: not a layout splice.ts reuses, so it is re-serialised. */
const reordered: Layout = ({ jsonrpc, ...rest }) => JSON.stringify({ ...rest, jsonrpc });

/** A chain client → proxy → agent with its own router, fed in one layout. */
function chain(layout: Layout) {
  const client = new MemoryConnection("client", "upstream");
  const proxy = new MemoryConnection("proxy", "proxy");
  const agent = new MemoryConnection("agent", "agent");
  const router = new Router({
    nodes: [
      { kind: "process", connection: proxy },
      { kind: "process", connection: agent },
    ],
    upstream: client,
    mode: "agent",
    dialect: "_proxy",
    trace: null,
    log: () => {},
  });
  const line = (message: WireMessage) => Buffer.from(layout(message));
  return {
    connections: { client, proxy, agent },
    fromClient: (message: WireMessage) => router.fromUpstream(line(message)),
    fromProxy: (message: WireMessage) => router.fromComponent(0, line(message)),
    fromAgent: (message: WireMessage) => router.fromComponent(1, line(message)),
    lineFromProxy: (text: string) => router.fromComponent(0, Buffer.from(text)),
    lineFromAgent: (text: string) => router.fromComponent(1, Buffer.from(text)),
  };
}

type Chain = ReturnType<typeof chain>;

/** Writes leave on the next tick (LineWriter corks a tick's lines). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** One round of a conversation with generated params; returns what each connection received, step by step. */
async function conversation(c: Chain, samples: JsonSamples, round: number): Promise<unknown[]> {
  const seen: unknown[] = [];
  const step = async (send: () => void) => {
    send();
    await settle();
    seen.push({ client: c.connections.client.take(), proxy: c.connections.proxy.take(), agent: c.connections.agent.take() });
    return seen.at(-1) as Record<"client" | "proxy" | "agent", WireMessage[]>;
  };
  const params = samples.params();
  const result = samples.value();
  const clientId = round % 2 ? `c-${round}` : round;
  // A client request reaches the proxy with the conductor's id; the proxy sends it on in an envelope with its own.
  const atProxy = await step(() => c.fromClient({ jsonrpc: "2.0", id: clientId, method: "x/do", params }));
  const proxyId = atProxy.proxy[0]!.id;
  const atAgent = await step(() => c.fromProxy({ jsonrpc: "2.0", id: `p-${round}`, method: "_proxy/successor", params: { method: "x/do", params } }));
  assert.equal(atAgent.agent[0]!.id, `p-${round}`, "the agent hears from the proxy alone: it gets the proxy's own id");
  assert.notEqual(proxyId, clientId, "the proxy hears from both sides: it gets the conductor's ids");
  // The agent answers; the answer goes back to the proxy, whose answer goes back to the client.
  await step(() => c.fromAgent({ jsonrpc: "2.0", id: atAgent.agent[0]!.id, result }));
  const atClient = await step(() => c.fromProxy({ jsonrpc: "2.0", id: proxyId, result }));
  assert.deepEqual(atClient.client, [{ jsonrpc: "2.0", id: clientId, result }], "the client gets its own id back");
  // Notifications: agent → proxy (in an envelope) → client (plain), and proxy → agent (an envelope opened).
  await step(() => c.fromAgent({ jsonrpc: "2.0", method: "session/update", params }));
  await step(() => c.fromProxy({ jsonrpc: "2.0", method: "session/update", params }));
  await step(() => c.fromProxy({ jsonrpc: "2.0", method: "_proxy/successor", params: { method: "x/note", params } }));
  // An envelope whose params carry a hop-local _meta: opened, the _meta left behind.
  const opened = await step(() => c.fromProxy({ jsonrpc: "2.0", method: "_proxy/successor", params: { method: "x/note", params, _meta: { hop: round } } }));
  assert.deepEqual(opened.agent, [{ jsonrpc: "2.0", method: "x/note", params }]);
  // A request from the agent to the client, through the proxy, answered with an error.
  const up = await step(() => c.fromAgent({ jsonrpc: "2.0", id: 900 + round, method: "fs/read_text_file", params }));
  const down = await step(() => c.fromProxy({ jsonrpc: "2.0", id: `q-${round}`, method: "fs/read_text_file", params: up.proxy[0]!.params }));
  await step(() => c.fromClient({ jsonrpc: "2.0", id: down.client[0]!.id, error: { code: -32602, message: "no" } }));
  await step(() => c.fromProxy({ jsonrpc: "2.0", id: up.proxy[0]!.id, error: { code: -32602, message: "no" } }));
  return seen;
}

describe("the router's route, whatever a line's layout", () => {
  it("delivers the same messages, ids and envelopes whether a line's bytes are reused or re-serialised", async () => {
    const byBytes = chain(canonical);
    const parsed = chain(reordered);
    for (let round = 0; round < 60; round++) {
      const fromBytes = await conversation(byBytes, new JsonSamples(round + 1), round);
      const fromParsing = await conversation(parsed, new JsonSamples(round + 1), round);
      assert.deepEqual(fromBytes, fromParsing, `round ${round}`);
    }
  });

  it("passes a notification that keeps its encoding on as the very bytes it came in, and wraps one exactly", async () => {
    const c = chain(canonical);
    // 1e400 and \u00e9 would not survive JSON.parse and JSON.stringify unchanged.
    const body = `"method":"session/update","params":{"n":1e400,"s":"\\u00e9"}}`;
    c.lineFromProxy(`{"jsonrpc":"2.0",${body}`);
    c.lineFromAgent(`{"jsonrpc":"2.0",${body}`);
    await settle();
    assert.deepEqual(c.connections.client.takeLines(), [`{"jsonrpc":"2.0",${body}`]);
    assert.deepEqual(c.connections.proxy.takeLines(), [`{"jsonrpc":"2.0","method":"_proxy/successor","params":{${body}}`]);
  });

  it("as a proxy under another conductor (no process of its own) too: the same lines out, whichever way a line was laid out", async () => {
    const run = async (layout: Layout, samples: JsonSamples) => {
      const upstream = new MemoryConnection("client", "upstream");
      const router = new Router({ nodes: [], upstream, mode: "proxy", dialect: "_proxy", trace: null, log: () => {} });
      const out: WireMessage[] = [];
      const receive = async (message: WireMessage) => {
        router.fromUpstream(Buffer.from(layout(message)));
        await settle();
        out.push(...upstream.take());
      };
      await receive({ jsonrpc: "2.0", id: "init", method: "_proxy/initialize", params: {} });
      for (let round = 0; round < 100; round++) {
        const params = samples.params();
        await receive({ jsonrpc: "2.0", id: round, method: "x/do", params }); // from the client: to the successor, in an envelope
        await receive({ jsonrpc: "2.0", method: "_proxy/successor", params: { method: "session/update", params } }); // from the successor: opened
        await receive({ jsonrpc: "2.0", id: `s-${round}`, method: "_proxy/successor", params: { method: "fs/read_text_file", params } });
        await receive({ jsonrpc: "2.0", id: round, result: samples.value() }); // the successor's answer, back to the client
        await receive({ jsonrpc: "2.0", id: `s-${round}`, result: samples.value() }); // the client's answer, back to the successor
        await receive({ jsonrpc: "2.0", method: "_proxy/successor", params: { method: "x/note", params, _meta: { hop: 1 } } });
      }
      return out;
    };
    const canonicalRun = await run(canonical, new JsonSamples(7));
    assert.equal(canonicalRun.length, 601);
    assert.deepEqual(canonicalRun, await run(reordered, new JsonSamples(7)));
    assert.deepEqual(
      canonicalRun.slice(1, 7).map((message) => [message.id, message.method]),
      [
        [0, "_proxy/successor"],
        [undefined, "session/update"],
        ["s-0", "fs/read_text_file"],
        [0, undefined],
        ["s-0", undefined],
        [undefined, "x/note"],
      ],
      "ids kept: the outer conductor is the only sender either way",
    );
  });
});
