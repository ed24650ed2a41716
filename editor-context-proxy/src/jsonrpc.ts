// The little JSON-RPC 2.0 knowledge a message router needs: what kind of
// message a parsed line is, and how to build an error answer.

import type { ErrorResponse, JsonRpcId } from "@agentclientprotocol/sdk";
import { ERROR } from "./acp-constants.js";

export type { ErrorResponse, JsonRpcId };

/** A parsed JSON object from the wire; fields are checked where used. */
export type WireMessage = { [key: string]: unknown };

export type MessageKind = "request" | "notification" | "response";

export function messageKind(message: WireMessage): MessageKind {
  if (typeof message.method === "string") return "id" in message ? "request" : "notification";
  return "response";
}

export type ParsedLine = { ok: true; message: WireMessage } | { ok: false; error: ErrorResponse };

export type ErrorKind = keyof typeof ERROR;

/** An error object in the SDK's wording: "Invalid request: <detail>". */
export function rpcError(kind: ErrorKind, detail?: string, data?: unknown): ErrorResponse {
  const { code, message } = ERROR[kind];
  return { code, message: detail ? `${message}: ${detail}` : message, ...(data === undefined ? {} : { data }) };
}

/** Parses one ndjson line; returns the JSON-RPC error to answer when it is not a message object. */
export function parseLine(line: Buffer | string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(typeof line === "string" ? line : line.toString("utf8"));
  } catch {
    return { ok: false, error: rpcError("parse") };
  }
  if (Array.isArray(value)) return { ok: false, error: rpcError("invalidRequest", "JSON-RPC batches are not supported by ACP") };
  if (value === null || typeof value !== "object") return { ok: false, error: rpcError("invalidRequest", "a message must be a JSON object") };
  return { ok: true, message: value as WireMessage };
}

export function oversizedLineError(byteLength: number, maxBytes: number): ErrorResponse {
  return rpcError("invalidRequest", `message of ${byteLength} bytes discarded (limit ${maxBytes})`, { byteLength, maxMessageBytes: maxBytes });
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
