// The proxy under a conductor, in both proxy-chain dialects: the SDK's client
// app and a real agent process as the two peers, a scripted conductor between.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { CLIENT_ANSWERS, clientAnswersReported, openSession, receivedPrompt, testClient } from "../../support/acp-client.js";
import { LineCollector, PROXY_CLI, REPORTING_AGENT, parseReply, startNode } from "../../support/processes.js";
import { ScriptedConductor } from "../../support/scripted-conductor.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

for (const dialect of ["_proxy", "proxy"] as const) {
  describe(`under a conductor speaking ${dialect}/*`, () => {
    it("injects context, carries agent→client requests, and answers in its dialect", async () => {
      const conductor = new ScriptedConductor(dialect, PROXY_CLI, REPORTING_AGENT, {
        SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE),
      });
      const peer = testClient(conductor.clientStream);
      await peer.run(async (agent) => {
        const sessionId = await openSession(agent);
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "exercise-client" }] });
        assert.deepEqual(await agent.request("_test/echo", { x: 1 }), { echo: { x: 1 } });
      });
      const prompt = receivedPrompt(peer.updates);
      assert.match(prompt[0]!.text!, /^<editor-context>\nActive file: src\/main\.rs/);
      assert.equal(prompt[1]!.text, "exercise-client");
      assert.deepEqual(clientAnswersReported(peer.updates), CLIENT_ANSWERS);
      assert.equal(peer.agentRequests.length, 8);
      const proxyMethods = new Set(conductor.fromProxy.map((message) => message.method).filter(Boolean));
      assert.ok(proxyMethods.has(`${dialect}/successor`), "the proxy wraps in its dialect");
      const otherDialect = dialect === "proxy" ? "_proxy" : "proxy";
      assert.ok(![...proxyMethods].some((method) => String(method).startsWith(`${otherDialect}/`)), "and only in its dialect");
      const initialize = conductor.fromProxy.find((message) => (message.params as { method?: string })?.method === "initialize");
      assert.ok(initialize, "the proxy forwards initialize to its successor in an envelope");
      await conductor.close();
    });
  });
}

describe("under a conductor, on the wire", () => {
  it("keeps the ids it is given, so answers and $/cancel_request pass as they came, and opens envelopes without touching their content", async (t) => {
    const proxy = startNode(PROXY_CLI, [], { SYMPOSIUM_EDITOR_STATE_FILE: "" });
    t.after(() => proxy.child.kill()); // a failed assertion must not leave it holding the run open
    const out = new LineCollector(proxy.child.stdout!);
    const response = `{"jsonrpc":"2.0","id":9,"result":{"a":[1,2,{"b":null}]},"_meta":{"m":1}}`;
    const cancel = `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}`;
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":1,"method":"_proxy/initialize","params":{"protocolVersion":1}}\n`);
    proxy.child.stdin!.write(
      `{"jsonrpc":"2.0","id":9,"method":"_proxy/successor","params":{"method":"fs/read_text_file","params":{"path":"/x","_meta":{"k":2}},"_meta":{"hop":"local"}}}\n`,
    );
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"session/update","params":{"sessionId":"s"}}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":10,"method":"_proxy/successor","params":{"no":"method"}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"s","modeId":"m"}}\n`);
    // The client's answer to the successor's read (id 9), and a cancellation of its own request 5.
    proxy.child.stdin!.write(response + "\n" + cancel + "\n");
    const lines = await out.waitFor(7);
    assert.deepEqual(JSON.parse(lines[0]!), {
      jsonrpc: "2.0",
      id: 1,
      method: "_proxy/successor",
      params: { method: "initialize", params: { protocolVersion: 1 } },
    });
    assert.deepEqual(JSON.parse(lines[1]!), { jsonrpc: "2.0", id: 9, method: "fs/read_text_file", params: { path: "/x", _meta: { k: 2 } } });
    assert.deepEqual(JSON.parse(lines[2]!), { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s" } });
    assert.equal(parseReply(lines[3]!).error?.code, -32602);
    assert.deepEqual(JSON.parse(lines[4]!), {
      jsonrpc: "2.0",
      id: 5,
      method: "_proxy/successor",
      params: { method: "session/set_mode", params: { sessionId: "s", modeId: "m" } },
    });
    assert.equal(lines[5], response);
    assert.equal(lines[6], cancel);
    proxy.child.stdin!.end();
    assert.equal(await proxy.exited, 0);
  });

  it("answers a malformed line it would echo or answer itself with its parse error, never passing it on", async (t) => {
    const proxy = startNode(PROXY_CLI, [], { SYMPOSIUM_EDITOR_STATE_FILE: "" });
    t.after(() => proxy.child.kill());
    const out = new LineCollector(proxy.child.stdout!);
    // Each starts as JSON.stringify writes messages, so its method is read from its first bytes; the rest is broken.
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1]}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":01,"method":"initialize","params":{"bad":tru}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"initialize","params":{"bad":tru}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":3,"method":"_proxy/successor","params":{"method":"fs/read_text_file","params":{"path":tru}}}\n`);
    const lines = await out.waitFor(4);
    for (const line of lines) assert.deepEqual(JSON.parse(line), { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    // And the same lines whole pass as before: the cancellation of a request in flight as it came, the plain initialize
    // refused with how to run us.
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":1,"method":"session/set_mode","params":{}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}\n`);
    const more = await out.waitFor(7);
    assert.equal((JSON.parse(more[4]!) as { method?: string }).method, "_proxy/successor");
    assert.equal(more[5], `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`);
    assert.equal(parseReply(more[6]!).error?.code, -32601);
    proxy.child.stdin!.end();
    assert.equal(await proxy.exited, 0);
  });
});
