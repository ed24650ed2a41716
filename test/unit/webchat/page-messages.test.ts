// The server's check of what a chat page sends (webchat/src/page-messages.ts):
// every message the page sends passes rebuilt; hostile ones (wrong types,
// unknown types, prototype keys, deep or huge values) are refused with what is
// wrong, and the check never throws, so a bad page never ends the server.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { checkPageMessage } from "../../../webchat/src/page-messages.js";
import type { PageMessage } from "../../../webchat/page/protocol.js";

/** One of each message the page sends (webchat/page/tab-state.ts and the components). */
const PAGE_SENDS: PageMessage[] = [
  { type: "prompt", text: "hello", skipContext: false },
  { type: "prompt", text: "see", skipContext: true, images: [{ mimeType: "image/png", data: "AAAA" }] },
  { type: "cancel" },
  { type: "permission", id: "1", optionId: "allow" },
  { type: "setMode", modeId: "code" },
  { type: "authenticate", signInId: "s", methodId: "m" },
  { type: "cancelSignIn", signInId: "s" },
  { type: "setConfigOption", configId: "model", value: "fast" },
  { type: "setConfigOption", configId: "thinking", value: true },
  { type: "listHistory" },
  { type: "logout" },
  { type: "listAgentSessions" },
  { type: "listAgentSessions", cursor: "next" },
  { type: "fork" },
  { type: "listFiles" },
  { type: "deleteHistory", id: "h1" },
  { type: "chooseAgent", id: "claude" },
  { type: "end" },
  { type: "inEditor" },
  { type: "editResult", id: "w1", result: "applied" },
  { type: "elicitation", id: "e1", action: "accept", content: { name: "x" } },
  { type: "elicitation", id: "e1", action: "decline" },
];

const refusal = (frame: string): string => {
  const checked = checkPageMessage(frame);
  assert.ok("refused" in checked, `refused: ${frame.slice(0, 80)}`);
  return checked.refused;
};

describe("page messages, as the chat server checks them", () => {
  it("passes every message the page sends, as it was sent", () => {
    for (const message of PAGE_SENDS) assert.deepEqual(checkPageMessage(JSON.stringify(message)), { message });
  });

  it("keeps only the fields a message's type has", () => {
    const checked = checkPageMessage(JSON.stringify({ type: "cancel", extra: "x", __proto__: { polluted: true } }));
    assert.deepEqual(checked, { message: { type: "cancel" } });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("refuses what is not a message, saying what is wrong", () => {
    assert.equal(refusal("{not json"), "it is not JSON");
    assert.equal(refusal("[1,2]"), "it is not a JSON object");
    assert.equal(refusal("null"), "it is not a JSON object");
    assert.equal(refusal('"prompt"'), "it is not a JSON object");
    assert.equal(refusal("{}"), "its type missing is not one the page sends");
    assert.equal(refusal('{"type":"shutdown"}'), 'its type "shutdown" is not one the page sends');
    assert.equal(refusal('{"type":"toString"}'), 'its type "toString" is not one the page sends');
    assert.equal(refusal('{"type":"__proto__"}'), 'its type "__proto__" is not one the page sends');
    assert.equal(refusal('{"type":7}'), "its type a number is not one the page sends");
  });

  it("refuses a known type with a field of the wrong kind, naming the field", () => {
    assert.equal(refusal('{"type":"prompt","text":{"a":1}}'), 'prompt: "text" must be a string, not an object');
    assert.equal(refusal('{"type":"permission","id":"1"}'), 'permission: "optionId" must be a string, not missing');
    assert.equal(refusal('{"type":"prompt","text":"x","images":"AAAA"}'), 'prompt: "images" must be an array, not "AAAA"');
    assert.equal(refusal('{"type":"prompt","text":"x","images":[{"mimeType":"image/png"}]}'), 'prompt: "data" must be a string, not missing');
    assert.equal(refusal('{"type":"prompt","text":"x","images":[null]}'), 'prompt: "images[0]" must be an object, not null');
    assert.equal(
      refusal('{"type":"editResult","id":"w","result":"done"}'),
      'editResult: "result" must be one of applied, rejected, notOpen, unanswered, changed, unsaved, failed, not "done"',
    );
    assert.equal(refusal('{"type":"elicitation","id":"e","action":"accept","content":[1]}'), 'elicitation: "content" must be an object, not an array');
    assert.equal(refusal('{"type":"setConfigOption","configId":"c","value":3}'), 'setConfigOption: "value" must be a string, not a number');
  });

  it("never throws, whatever the page sends", () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const frames = [
      "",
      "\u0000",
      deep,
      `{"type":"prompt","text":${deep}}`,
      JSON.stringify({ type: "prompt", text: "x".repeat(1_000_000), images: Array.from({ length: 1000 }, () => ({ mimeType: 1, data: 2 })) }),
      JSON.stringify({ type: "listAgentSessions", cursor: null }),
      JSON.stringify({ type: "chooseAgent", id: ["a"] }),
      '{"type":"elicitation","id":"e","action":"constructor"}',
    ];
    for (const frame of frames) assert.ok("refused" in checkPageMessage(frame) || "message" in checkPageMessage(frame));
  });
});
