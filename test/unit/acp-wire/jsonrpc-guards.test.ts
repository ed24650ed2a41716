// acp-wire's JSON-RPC type guards (jsonrpc.ts) and the lazy line view routers read (line-view.ts):
// the same facts whether a line is read from its first bytes or parsed.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { idJson, isNotification, isRequest, isResponse, readLine, type WireMessage } from "../../../acp-wire/src/index.js";

describe("JSON-RPC type guards", () => {
  it("tell requests, notifications and answers apart, as routing needs", () => {
    const cases: Array<[WireMessage, "request" | "notification" | "response"]> = [
      [{ jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} }, "request"],
      [{ jsonrpc: "2.0", id: "a", method: "x" }, "request"],
      [{ jsonrpc: "2.0", id: null, method: "x" }, "request"],
      [{ jsonrpc: "2.0", method: "session/update", params: {} }, "notification"],
      [{ jsonrpc: "2.0", id: 1, result: null }, "response"],
      [{ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } }, "response"],
      [{ jsonrpc: "2.0", id: 1, method: 5 }, "response"],
    ];
    for (const [message, kind] of cases) {
      const text = JSON.stringify(message);
      assert.equal(isRequest(message), kind === "request", text);
      assert.equal(isNotification(message), kind === "notification", text);
      assert.equal(isResponse(message), kind === "response", text);
    }
  });

  it("narrow: a request's method is a string without a cast", () => {
    const message: WireMessage = { jsonrpc: "2.0", id: 3, method: "fs/read_text_file" };
    const method: string = isRequest(message) ? message.method : "";
    assert.equal(method, "fs/read_text_file");
  });
});

describe("the lazy line view", () => {
  const reorder = (message: WireMessage) => {
    const { jsonrpc, ...rest } = message;
    return JSON.stringify({ ...rest, jsonrpc });
  };
  const messages: WireMessage[] = [
    { jsonrpc: "2.0", id: 42, method: "x/do", params: { a: [1, 2] } },
    { jsonrpc: "2.0", id: "s-1", method: "x/do" },
    { jsonrpc: "2.0", method: "session/update", params: { n: 1 } },
    { jsonrpc: "2.0", id: 7, result: { ok: true } },
  ];

  it("reads kind, method and exact id from the bytes of a canonical line, without parsing it", () => {
    for (const message of messages) {
      const view = readLine(Buffer.from(JSON.stringify(message)));
      assert.ok(view.ok);
      assert.equal(view.isParsed, false, JSON.stringify(message));
    }
    const big = readLine(Buffer.from(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"x/do"}`));
    assert.ok(big.ok);
    assert.equal(JSON.stringify(big.id), `{"json":"12345678901234567890"}`, "the id as written, not rounded");
  });

  it("gives the same facts for a line in another layout, parsed once", () => {
    for (const message of messages) {
      const canonical = readLine(Buffer.from(JSON.stringify(message)));
      const other = readLine(Buffer.from(reorder(message)));
      assert.ok(canonical.ok && other.ok);
      assert.equal(other.isParsed, true);
      assert.deepEqual([other.kind, other.method, other.numericId], [canonical.kind, canonical.method, canonical.numericId]);
      assert.equal(idJson(other.id), idJson(canonical.id), JSON.stringify(message));
    }
  });

  it("parses a canonical line on first need, and says what is wrong with it then", () => {
    const view = readLine(Buffer.from(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{oops}`));
    assert.ok(view.ok, "its first bytes are enough to route it");
    const parsed = view.parse();
    assert.equal(parsed.ok, false);
    assert.equal(parsed.ok ? 0 : parsed.error.code, -32700);
  });

  it("answers a line it cannot read at all", () => {
    const view = readLine(Buffer.from("not json"));
    assert.equal(view.ok, false);
  });
});
