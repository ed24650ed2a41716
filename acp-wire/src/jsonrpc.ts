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

export type Screened = { kind: "parsed"; message: WireMessage } | { kind: "opaque" } | { kind: "error"; error: ErrorResponse };

const PROMPT_METHOD = Buffer.from('"session/prompt"');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Decides, as cheaply as it can, what the proxy must do with a client line.
 * A line that may be a prompt is parsed. Any other line that is shaped like a
 * JSON object (starts with `{`, ends with `}`) is forwarded unparsed, as
 * "opaque": parsing every 1 KiB message would cost the proxy more than the
 * agent spends on it. Everything else is parsed, to answer it with the exact
 * JSON-RPC error. (An object-shaped line that is not JSON reaches the agent,
 * which answers the parse error as every JSON-RPC peer must.)
 */
export function screenClientLine(line: Buffer): Screened {
  if (line.includes(PROMPT_METHOD) || !looksLikeObject(line)) {
    const parsed = parseLine(line);
    return parsed.ok ? { kind: "parsed", message: parsed.message } : { kind: "error", error: parsed.error };
  }
  return { kind: "opaque" };
}

function looksLikeObject(line: Buffer): boolean {
  let first = 0;
  while (first < line.length && isSpace(line[first]!)) first++;
  let last = line.length - 1;
  while (last > first && isSpace(line[last]!)) last--;
  return line[first] === OPEN_BRACE && line[last] === CLOSE_BRACE;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
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
