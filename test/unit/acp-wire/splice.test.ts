import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { envelopeFromBody, envelopeInnerBody, messageBody, openEnvelope, plainFromBody, type WireMessage } from "../../../acp-wire/src/index.js";
import { JsonSamples } from "../../support/json-samples.js";

const parse = (line: string) => [Buffer.from(line), JSON.parse(line) as WireMessage] as const;

describe("splicing messages", () => {
  it("re-addresses a canonical request, response and notification without re-serialising", () => {
    const [raw, message] = parse(`{"jsonrpc":"2.0","id":"a-1","method":"fs/read_text_file","params":{"path":"/x","n":1e400}}`);
    const body = messageBody(raw, message)!;
    assert.equal(body.toString(), `"method":"fs/read_text_file","params":{"path":"/x","n":1e400}}`);
    assert.equal(plainFromBody(body, 7).toString(), `{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"path":"/x","n":1e400}}\n`);
    const envelope = envelopeFromBody(body, 8, "_proxy/successor");
    assert.deepEqual(JSON.parse(envelope.toString().replace("1e400", "1")), {
      jsonrpc: "2.0",
      id: 8,
      method: "_proxy/successor",
      params: { method: "fs/read_text_file", params: { path: "/x", n: 1 } },
    });
    assert.match(envelope.toString(), /1e400/, "the inner bytes are kept exactly");
    const [response, parsedResponse] = parse(`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`);
    assert.equal(plainFromBody(messageBody(response, parsedResponse)!, "x").toString(), `{"jsonrpc":"2.0","id":"x","result":{"ok":true}}\n`);
  });

  it("opens an envelope it can read exactly, with or without an id", () => {
    const [raw, message] = parse(`{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":{"u":[1,2]}}}`);
    assert.equal(plainFromBody(envelopeInnerBody(raw, message)!, undefined).toString(), `{"jsonrpc":"2.0","method":"session/update","params":{"u":[1,2]}}\n`);
    const [request, parsedRequest] = parse(`{"jsonrpc":"2.0","id":4,"method":"_proxy/successor","params":{"method":"initialize"}}`);
    assert.equal(plainFromBody(envelopeInnerBody(request, parsedRequest)!, 9).toString(), `{"jsonrpc":"2.0","id":9,"method":"initialize"}\n`);
  });

  it("declines anything not laid out as expected, so the caller re-serialises", () => {
    const declined = [
      `{"method":"x","jsonrpc":"2.0","params":{}}`, // key order
      `{ "jsonrpc":"2.0","method":"x"}`, // spacing
      `{"jsonrpc":"2.0","method":"x","id":1}`, // id not second
      `{"jsonrpc":"2.0","id":1.0,"method":"x"}`, // id spelled differently
      `{"jsonrpc":"2.0","method":"x"} `, // trailing space
      `{"jsonrpc":"2.0","id":1,"method":"x","id":2}`, // a duplicate id would outvote the one a router writes
      `{"jsonrpc":"2.0","method":"x","params":{"id":3}}`, // "id" anywhere in the body: the safe, slower path
    ];
    for (const line of declined) assert.equal(messageBody(...parse(line)), null, line);
    const envelopes = [
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m","params":{},"_meta":{"hop":1}}}`, // hop-local _meta must be dropped
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"params":{},"method":"m"}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m"},"_meta":{}}`,
      `{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"m"} }`,
    ];
    for (const line of envelopes) assert.equal(envelopeInnerBody(...parse(line)), null, line);
  });

  it("opens envelopes as parsing does, on generated params full of brackets, quotes and backslashes", () => {
    const samples = new JsonSamples();
    for (let round = 0; round < 500; round++) {
      const params = samples.params();
      const line = JSON.stringify({ jsonrpc: "2.0", ...(round % 2 ? { id: round } : {}), method: "_proxy/successor", params: { method: "m/x", params } });
      const [raw, envelope] = parse(line);
      const spliced = JSON.parse(plainFromBody(envelopeInnerBody(raw, envelope)!, envelope.id).toString()) as WireMessage;
      assert.deepEqual(spliced, openEnvelope(envelope), line);
    }
  });
});
