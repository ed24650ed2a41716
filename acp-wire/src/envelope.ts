// Proxy-chain envelopes as objects (the Proxy Chains rules in docs/proxy.md): `{method, params}` of the
// wrapped message in the envelope's params; the envelope carries the id.
// splice.ts does the same on bytes when it can; these are the fallback.

import { isObject, rpcError, type ErrorResponse, type WireMessage } from "./jsonrpc.js";

export const MALFORMED_ENVELOPE: ErrorResponse = rpcError("invalidParams", "envelope params need a string `method`");

/** The message inside `envelope`, with the envelope's id if it has one; null when malformed. */
export function openEnvelope(envelope: WireMessage): WireMessage | null {
  const inner = envelope.params;
  if (!isObject(inner) || typeof inner.method !== "string") return null;
  return {
    jsonrpc: "2.0",
    ...("id" in envelope ? { id: envelope.id } : {}),
    method: inner.method,
    ...("params" in inner ? { params: inner.params } : {}),
  };
}
