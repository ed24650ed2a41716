// The little JSON-RPC 2.0 knowledge a message router needs: what kind of
// message a parsed line is, and how to build an error answer.

import type { ErrorResponse, JsonRpcId } from "@agentclientprotocol/sdk";
import { ERROR } from "./acp-constants.js";
import { RawId, idText } from "./exact-id.js";

export { RawId };

export type { ErrorResponse, JsonRpcId };

/** A parsed JSON object from the wire; fields are checked where used. */
export type WireMessage = Record<string, unknown>;

export type MessageKind = "request" | "notification" | "response";

// The three kinds, as type guards that narrow (vscode-jsonrpc's Message.isRequest and siblings): a
// method and an id make a request, a method alone a notification, and anything without a method is
// taken for an answer (its id, result and error are checked where they are used). An id is any
// JSON value here, as it came; exactId reads it exactly.

/** A request: a method and an id. */
export type RequestMessage = WireMessage & { method: string; id: unknown; params?: unknown };

/** A notification: a method and no id. */
export type NotificationMessage = WireMessage & { method: string; id?: undefined; params?: unknown };

/** An answer: no string method; an id, and a result or an error when it is well formed. */
export type ResponseMessage = WireMessage & { id?: unknown; result?: unknown; error?: unknown };

export function isRequest(message: WireMessage): message is RequestMessage {
  return typeof message.method === "string" && "id" in message;
}

export function isNotification(message: WireMessage): message is NotificationMessage {
  return typeof message.method === "string" && !("id" in message);
}

export function isResponse(message: WireMessage): message is ResponseMessage {
  return typeof message.method !== "string";
}

export function messageKind(message: WireMessage): MessageKind {
  return isRequest(message) ? "request" : isNotification(message) ? "notification" : "response";
}

export type ParsedLine = { ok: true; message: WireMessage } | { ok: false; error: ErrorResponse; id: IdLike };

export type ErrorKind = keyof typeof ERROR;

/** An error object in the SDK's wording: "Invalid request: <detail>". */
export function rpcError(kind: ErrorKind, detail?: string, data?: unknown): ErrorResponse {
  const { code, message } = ERROR[kind];
  return { code, message: detail ? `${message}: ${detail}` : message, ...(data === undefined ? {} : { data }) };
}

export type IdLike = JsonRpcId | RawId;

export function idJson(id: unknown): string {
  return id instanceof RawId ? id.json : JSON.stringify(id);
}

/**
 * Parses one ndjson line; returns the JSON-RPC error to answer when it is not
 * a JSON-RPC 2.0 message object (with the id to answer it with: a request's
 * own id, null otherwise).
 */
export function parseLine(line: Buffer | string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(typeof line === "string" ? line : line.toString("utf8"));
  } catch {
    return { ok: false, error: rpcError("parse"), id: null };
  }
  if (Array.isArray(value)) return { ok: false, error: rpcError("invalidRequest", "JSON-RPC batches are not supported by ACP"), id: null };
  if (value === null || typeof value !== "object") return { ok: false, error: rpcError("invalidRequest", "a message must be a JSON object"), id: null };
  const message = value as WireMessage;
  if (message.jsonrpc !== "2.0") {
    const id = isRequest(message) ? exactId(typeof line === "string" ? Buffer.from(line) : line, message) : null;
    return { ok: false, error: rpcError("invalidRequest", 'a message needs "jsonrpc": "2.0"'), id };
  }
  return { ok: true, message };
}

/**
 * The message's id, exactly as written when it is a number (see RawId);
 * null when it has no usable id.
 */
export function exactId(raw: Buffer, message: WireMessage): IdLike {
  const id = message.id;
  if (typeof id === "string") return id;
  if (typeof id !== "number") return null;
  const text = idText(raw);
  return text === null ? id : new RawId(text);
}

export function oversizedLineError(byteLength: number, maxBytes: number): ErrorResponse {
  return rpcError("invalidRequest", `message of ${byteLength} bytes discarded (limit ${maxBytes})`, { byteLength, maxMessageBytes: maxBytes });
}

export function errorResponse(id: IdLike, error: ErrorResponse): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(error)}}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
