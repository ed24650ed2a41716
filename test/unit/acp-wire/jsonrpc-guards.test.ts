// acp-wire's JSON-RPC type guards and line reading (jsonrpc.ts): what a router
// learns of a line, whatever its layout.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { exactId, idJson, isNotification, isRequest, isResponse, parseLine, type WireMessage } from "../../../acp-wire/src/index.js";

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

describe("reading a line: parsed once, its id exactly as written", () => {
  const reorder = (message: WireMessage) => {
    const { jsonrpc, ...rest } = message;
    return JSON.stringify({ ...rest, jsonrpc });
  };
  const messages: WireMessage[] = [
    { jsonrpc: "2.0", id: 42, method: "x/do", params: { a: [1, 2] } },
    { jsonrpc: "2.0", id: "s-1", method: "x/do" },
    { jsonrpc: "2.0", id: 7, result: { ok: true } },
  ];

  it("gives the same id whatever the layout, and integers beyond 2^53 as written", () => {
    for (const message of messages) {
      for (const text of [JSON.stringify(message), reorder(message)]) {
        const line = Buffer.from(text);
        const parsed = parseLine(line);
        assert.ok(parsed.ok, text);
        assert.equal(idJson(exactId(line, parsed.message)), JSON.stringify(message.id), text);
      }
    }
    const big = Buffer.from(`{"method":"x/do","params":{"id":1},"jsonrpc":"2.0","id":12345678901234567890}`);
    const parsed = parseLine(big);
    assert.ok(parsed.ok);
    assert.equal(idJson(exactId(big, parsed.message)), "12345678901234567890", "the id as written, not rounded");
  });

  it("answers a line it cannot read with the JSON-RPC error", () => {
    const broken = parseLine(Buffer.from(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{oops}`));
    assert.equal(broken.ok ? 0 : broken.error.code, -32700);
    const notJson = parseLine(Buffer.from("not json"));
    assert.equal(notJson.ok ? 0 : notJson.error.code, -32700);
  });
});
