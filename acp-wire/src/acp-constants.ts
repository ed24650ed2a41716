// The few ACP constants the proxy's hot path needs, checked against the SDK's
// own constants at compile time (`satisfies` their literal types), without
// loading the SDK at run time: its generated schemas cost ~20 MB and ~0.2 s
// in a process that starts with every chat session. test/unit/acp-wire/acp-constants.test.ts
// checks them against the SDK's run-time values too.

import type * as acp from "@agentclientprotocol/sdk";
import type * as acpUnstable from "@agentclientprotocol/sdk/unstable";

type Sdk = typeof acp;

export const SESSION_PROMPT = "session/prompt" satisfies Sdk["AGENT_METHODS"]["session_prompt"];
/** The requests that open a session and name the MCP servers it gets (the editor's tools are added to them). */
export const SESSION_NEW = "session/new" satisfies Sdk["AGENT_METHODS"]["session_new"];
export const SESSION_LOAD = "session/load" satisfies Sdk["AGENT_METHODS"]["session_load"];
export const SESSION_RESUME = "session/resume" satisfies Sdk["AGENT_METHODS"]["session_resume"];
export const INITIALIZE = "initialize" satisfies Sdk["AGENT_METHODS"]["initialize"];
export const CANCEL_REQUEST = "$/cancel_request" satisfies Sdk["PROTOCOL_METHODS"]["cancel_request"];
export const RFD_PROXY_INITIALIZE = "proxy/initialize" satisfies (typeof acpUnstable)["PROXY_METHODS"]["proxy_initialize"];
export const RFD_PROXY_SUCCESSOR = "proxy/successor" satisfies (typeof acpUnstable)["PROXY_METHODS"]["proxy_successor"];

/** The SDK's DEFAULT_MAX_MESSAGE_BYTES: the longest line an ACP peer accepts. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** JSON-RPC 2.0 error codes, with the SDK's RequestError wording. */
export const ERROR = {
  parse: { code: -32700, message: "Parse error" },
  invalidRequest: { code: -32600, message: "Invalid request" },
  methodNotFound: { code: -32601, message: "Method not found" },
  invalidParams: { code: -32602, message: "Invalid params" },
  internal: { code: -32603, message: "Internal error" },
} as const satisfies Record<string, { code: acp.ErrorResponse["code"]; message: string }>;
