import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { canonicalHead, openEnvelope, openEnvelopeLine, plainFromBody, type WireMessage } from "../../../acp-wire/src/index.js";
import { JsonSamples } from "../../support/json-samples.js";

const head = (line: string) => canonicalHead(Buffer.from(line));

/** What the parsed route makes of an envelope: the message inside, with the envelope's id. */
function openedByParsing(line: string): WireMessage | null {
  return openEnvelope(JSON.parse(line) as WireMessage);
}

/** What the unparsed route makes of it: the spliced line, parsed back (null when it declines). */
function openedByBytes(line: string): WireMessage | null {
  const raw = Buffer.from(line);
  const found = canonicalHead(raw);
  const opened = found === null ? null : openEnvelopeLine(raw, found);
  if (found === null || opened === null) return null;
  const id = found.kind === "request" ? found.id : undefined;
  return JSON.parse(plainFromBody(opened.body, id).toString()) as WireMessage;
}

describe("reading a line's routing facts from its bytes", () => {
  it("tells requests, notifications and responses apart, with their id, method and body", () => {
    const request = `{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{}}`;
    assert.deepEqual({ ...head(request)!, id: undefined }, { kind: "request", id: undefined, method: "session/prompt", bodyStart: 25 });
    assert.equal(request.slice(25), `"method":"session/prompt","params":{}}`);
    assert.equal((head(request) as { id: { json: string } }).id.json, "12");
    assert.deepEqual(head(`{"jsonrpc":"2.0","method":"session/update","params":{}}`), { kind: "notification", method: "session/update", bodyStart: 17 });
    const response = head(`{"jsonrpc":"2.0","id":"a","result":{}}`)!;
    assert.equal(response.kind, "response");
    assert.equal((response as { id: { json: string } }).id.json, `"a"`);
    assert.equal(head(`{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":1}}`)!.kind, "response");
  });

  it("gives no method for an escaped one, and no head for another layout (the caller parses those)", () => {
    assert.equal((head(`{"jsonrpc":"2.0","method":"a\\u002fb"}`) as { method: string | null }).method, null);
    for (const line of [
      `{"method":"x","jsonrpc":"2.0"}`,
      `{ "jsonrpc":"2.0","method":"x"}`,
      `{"jsonrpc":"2.0","id":1}`,
      `{"jsonrpc":"2.0","id":"a\\"b","result":1}`,
      `[1]`,
    ]) {
      assert.equal(head(line), null, line);
    }
  });
});

describe("opening an envelope from its bytes", () => {
  it("gives the message the parsed route gives, with or without an id or params", () => {
    const envelopes = [
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"session/update","params":{"u":[1,2]}}}`,
      `{"jsonrpc":"2.0","id":4,"method":"proxy/successor","params":{"method":"session/new"}}`,
      `{"jsonrpc":"2.0","id":"x","method":"_proxy/successor","params":{"method":"m","params":[{"a":"}]\\"{"},[]]}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":{"t":"\\\\","u":"\\\\\\"}}"}}}`,
    ];
    for (const line of envelopes) {
      const opened = openedByBytes(line);
      assert.notEqual(opened, null, line);
      assert.deepEqual(opened, openedByParsing(line), line);
    }
  });

  it("declines envelopes whose params carry anything else, or are laid out otherwise", () => {
    const declined = [
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":{},"_meta":{"hop":1}}}`, // hop-local _meta is dropped by parsing
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"params":{},"method":"m"}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m"},"_meta":{}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":7}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":{"a":"}"}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":{"a":"unterminated}}}`,
    ];
    for (const line of declined) assert.equal(openedByBytes(line), null, line);
  });

  it("agrees with parsing on generated params full of brackets, quotes and backslashes", () => {
    const samples = new JsonSamples();
    for (let round = 0; round < 500; round++) {
      const params = samples.params();
      const line = JSON.stringify({ jsonrpc: "2.0", ...(round % 2 ? { id: round } : {}), method: "_proxy/successor", params: { method: "m/x", params } });
      assert.deepEqual(openedByBytes(line), openedByParsing(line), line);
    }
  });
});
