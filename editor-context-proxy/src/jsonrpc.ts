// The little JSON-RPC 2.0 knowledge a message router needs: what kind of
// message a parsed line is, and how to build an error answer. Error codes and
// messages come from the ACP SDK's RequestError.

import { RequestError } from "@agentclientprotocol/sdk";
import type { AnyMessage, ErrorResponse, JsonRpcId } from "@agentclientprotocol/sdk";

export type { AnyMessage, JsonRpcId };

/** A parsed JSON object from the wire; fields are checked where used. */
export type WireMessage = { [key: string]: unknown };

export type MessageKind = "request" | "notification" | "response";

export function messageKind(message: WireMessage): MessageKind {
  if (typeof message.method === "string") return "id" in message ? "request" : "notification";
  return "response";
}

export type ParsedLine =
  | { ok: true; message: WireMessage }
  | { ok: false; error: ErrorResponse };

/** Parses one ndjson line; returns the JSON-RPC error to answer when it is not a message object. */
export function parseLine(line: Buffer | string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(typeof line === "string" ? line : line.toString("utf8"));
  } catch {
    return { ok: false, error: RequestError.parseError().toErrorResponse() };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      error: RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported by ACP").toErrorResponse(),
    };
  }
  if (value === null || typeof value !== "object") {
    return { ok: false, error: RequestError.invalidRequest(undefined, "a message must be a JSON object").toErrorResponse() };
  }
  return { ok: true, message: value as WireMessage };
}

export function oversizedLineError(byteLength: number, maxBytes: number): ErrorResponse {
  return RequestError.invalidRequest(
    { byteLength, maxMessageBytes: maxBytes },
    `message of ${byteLength} bytes discarded (limit ${maxBytes})`,
  ).toErrorResponse();
}

export function errorResponse(id: JsonRpcId, error: ErrorResponse): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

export function requestId(message: WireMessage): JsonRpcId {
  const id = message.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

export function isObject(value: unknown): value is { [key: string]: unknown } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
