// The Rust peers (sacp, serde_json) write a request's members in their
// struct's order: jsonrpc, method, params, then id. Found running
// sacp-conductor 11: such a line begins like a notification, and a router
// must not take it for one (an earlier one that read lines from their first
// bytes wrapped the request's id inside the envelope's params, and the
// request was never answered).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { CONDUCTOR_CLI, LineCollector, PROXY_CLI, startNode } from "../support/processes.js";
import { INTEROP_AGENT } from "./fixtures.js";

const INIT_PARAMS = `{"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"protocolVersion":1}`;

describe("lines with the id last, as serde writes them", () => {
  it("reach our proxy's successor as requests, the id on the envelope", async (t) => {
    const proxy = startNode(PROXY_CLI, [], { SYMPOSIUM_EDITOR_STATE_FILE: "" });
    t.after(() => proxy.child.kill());
    const out = new LineCollector(proxy.child.stdout!);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"_proxy/initialize","params":${INIT_PARAMS},"id":"a"}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/p","mcpServers":[]},"id":"b"}\n`);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"fs/read_text_file","params":{"path":"/x"}},"id":"c"}\n`);
    const [, sessionNew, read] = (await out.waitFor(3)).map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(sessionNew, {
      jsonrpc: "2.0",
      id: "b",
      method: "_proxy/successor",
      params: { method: "session/new", params: { cwd: "/p", mcpServers: [] } },
    });
    assert.deepEqual(read, { jsonrpc: "2.0", id: "c", method: "fs/read_text_file", params: { path: "/x" } });
    proxy.child.stdin!.end();
    assert.equal(await proxy.exited, 0);
  });

  it("are answered through our conductor", async (t) => {
    const conductor = startNode(CONDUCTOR_CLI, ["agent", `${JSON.stringify(process.execPath)} ${JSON.stringify(INTEROP_AGENT)}`], {
      SYMPOSIUM_EDITOR_STATE_FILE: "",
    });
    t.after(() => conductor.child.kill());
    const out = new LineCollector(conductor.child.stdout!);
    conductor.child.stdin!.write(`{"jsonrpc":"2.0","method":"initialize","params":${INIT_PARAMS},"id":"i-1"}\n`);
    await out.waitFor(1, 10_000);
    conductor.child.stdin!.write(`{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/p","mcpServers":[]},"id":"n-2"}\n`);
    const answers = (await out.waitFor(2, 10_000)).map((line) => JSON.parse(line) as { id?: unknown; result?: unknown });
    assert.deepEqual(
      answers.map((answer) => answer.id),
      ["i-1", "n-2"],
    );
    assert.equal((answers[1]!.result as { sessionId: string }).sessionId, "session-1");
    conductor.child.stdin!.end();
    await conductor.exited;
  });
});
