// The little JSON-RPC 2.0 knowledge a message router needs: what kind of
// message a parsed line is, and how to build an error answer.

import type { ErrorResponse, JsonRpcId } from "@agentclientprotocol/sdk";
import { ERROR, SESSION_PROMPT } from "./acp-constants.js";
import { RawId, canonicalHead, idText, type CanonicalHead } from "./canonical-line.js";

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

export type Screened = { kind: "parsed"; message: WireMessage } | { kind: "opaque"; head: CanonicalHead } | { kind: "error"; error: ErrorResponse; id: IdLike };

/**
 * Decides, as cheaply as it can, what the proxy must do with a client line.
 * A line laid out as JSON.stringify writes messages (see canonicalHead), that
 * is not a prompt, is forwarded unparsed, as "opaque": parsing every 1 KiB
 * message would cost the proxy more than the agent spends on it. Everything
 * else is parsed, to answer it with the exact JSON-RPC error or to rewrite it.
 * (An opaque line whose rest is not JSON reaches the agent, which answers the
 * parse error as every JSON-RPC peer must.)
 */
export function screenClientLine(line: Buffer, parsedMethods: ReadonlySet<string> = PROMPT_ONLY): Screened {
  const head = canonicalHead(line);
  if (head !== null && (head.kind === "response" || (head.method !== null && !parsedMethods.has(head.method)))) return { kind: "opaque", head };
  const parsed = parseLine(line);
  return parsed.ok ? { kind: "parsed", message: parsed.message } : { kind: "error", error: parsed.error, id: parsed.id };
}

/** What screenClientLine parses by default: the prompt, which the proxy rewrites. */
const PROMPT_ONLY: ReadonlySet<string> = new Set([SESSION_PROMPT]);

export function oversizedLineError(byteLength: number, maxBytes: number): ErrorResponse {
  return rpcError("invalidRequest", `message of ${byteLength} bytes discarded (limit ${maxBytes})`, { byteLength, maxMessageBytes: maxBytes });
}

export function errorResponse(id: IdLike, error: ErrorResponse): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(error)}}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
