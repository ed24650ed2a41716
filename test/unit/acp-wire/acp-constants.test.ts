// The proxy keeps the SDK out of its run time (see acp-constants.ts); this
// checks its copies against the SDK's run-time values.

import { strict as assert } from "node:assert";
import { it } from "node:test";
import { AGENT_METHODS, DEFAULT_MAX_MESSAGE_BYTES, PROTOCOL_METHODS, RequestError } from "@agentclientprotocol/sdk";
import { PROXY_METHODS } from "@agentclientprotocol/sdk/unstable";
import * as constants from "../../../acp-wire/src/acp-constants.js";
import { rpcError } from "../../../acp-wire/src/jsonrpc.js";

/** As it goes on the wire (the SDK leaves `data: undefined` in its objects). */
const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

it("matches the ACP SDK's constants and error wording", () => {
  assert.equal(constants.SESSION_PROMPT, AGENT_METHODS.session_prompt);
  assert.equal(constants.INITIALIZE, AGENT_METHODS.initialize);
  assert.equal(constants.CANCEL_REQUEST, PROTOCOL_METHODS.cancel_request);
  assert.equal(constants.RFD_PROXY_INITIALIZE, PROXY_METHODS.proxy_initialize);
  assert.equal(constants.RFD_PROXY_SUCCESSOR, PROXY_METHODS.proxy_successor);
  assert.equal(constants.MAX_MESSAGE_BYTES, DEFAULT_MAX_MESSAGE_BYTES);
  assert.deepEqual(rpcError("parse"), wire(RequestError.parseError().toErrorResponse()));
  assert.deepEqual(rpcError("invalidRequest", "x"), wire(RequestError.invalidRequest(undefined, "x").toErrorResponse()));
  assert.deepEqual(rpcError("invalidParams", "y"), wire(RequestError.invalidParams(undefined, "y").toErrorResponse()));
  assert.deepEqual(rpcError("internal", "z"), wire(RequestError.internalError(undefined, "z").toErrorResponse()));
  assert.equal(rpcError("methodNotFound").code, RequestError.methodNotFound("m").code);
});
