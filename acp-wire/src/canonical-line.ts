// Reading a JSON-RPC line's routing facts from its bytes, without parsing it.
//
// Peers that build messages with JSON.stringify (the SDK, our own programs)
// lay them out the same way: jsonrpc first, then id, then method (and
// params), result or error. For such a line the kind, the id, the method and
// where the rest begins can be read from its first bytes, and a proxy-chain
// envelope can be opened by finding where its inner params end. Routers use
// this to forward the lines they do not change without JSON.parse (about
// 6 µs a KiB); any other layout returns null and the caller parses.

/** An id as the exact JSON text it was written with: JSON.parse rounds integers beyond 2^53. */
export class RawId {
  constructor(readonly json: string) {}
}

/**
 * A request, notification or response in JSON.stringify's layout, told apart
 * by its first bytes. `method` is null when its string has escapes (the
 * caller parses such a line); `bodyStart` is where the members after jsonrpc
 * and id begin (the body that splice.ts reuses).
 */
export type CanonicalHead =
  | { kind: "request"; id: RawId; method: string | null; bodyStart: number }
  | { kind: "notification"; method: string | null; bodyStart: number }
  | { kind: "response"; id: RawId; bodyStart: number };

const HEAD = Buffer.from('{"jsonrpc":"2.0",');
const ID_KEY = Buffer.from('"id":');
const METHOD_KEY = Buffer.from('"method":');
const RESULT_KEY = Buffer.from('"result":');
const ERROR_KEY = Buffer.from('"error":');
const INNER_METHOD = Buffer.from(',"params":{"method":');
const INNER_PARAMS = Buffer.from(',"params":');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUMBER_BYTES = new Set(Buffer.from("-+.0123456789eE"));

/**
 * Classifies a line laid out the way JSON.stringify writes messages from its
 * first bytes; null for any other layout. The id must be a number or a string
 * without escapes. The rest of the line is not validated: a receiver that
 * parses it answers what is wrong with it, as every JSON-RPC peer must.
 */
export function canonicalHead(line: Buffer): CanonicalHead | null {
  if (line[line.length - 1] !== CLOSE_BRACE || !startsWith(line, HEAD, 0)) return null;
  let at = HEAD.length;
  // serde (the Rust peers) writes a request's id last: a line that starts like a notification but holds
  // `"id":` anywhere is left to the parser (a memchr-fast scan; `"id":` inside params only costs a parse).
  if (startsWith(line, METHOD_KEY, at)) return line.includes(ID_KEY, at) ? null : { kind: "notification", method: methodAt(line, at), bodyStart: at };
  if (!startsWith(line, ID_KEY, at)) return null;
  at += ID_KEY.length;
  const end = idTokenEnd(line, at);
  if (end === -1 || line[end] !== COMMA) return null;
  const id = new RawId(line.toString("utf8", at, end));
  const bodyStart = end + 1;
  if (startsWith(line, METHOD_KEY, bodyStart)) return { kind: "request", id, method: methodAt(line, bodyStart), bodyStart };
  if (startsWith(line, RESULT_KEY, bodyStart) || startsWith(line, ERROR_KEY, bodyStart)) return { kind: "response", id, bodyStart };
  return null;
}

/** Where canonicalHead found a line's method (none: an answer; null: a method with escapes) and its body. */
export interface MethodHead {
  readonly method?: string | null;
  readonly bodyStart: number;
}

/**
 * The message inside an envelope line laid out as
 * `{…,"method":"<envelope>","params":{"method":"<inner>"[,"params":<object or array>]}}`:
 * its method, and its body in splice.ts's sense (its members after the
 * method's opening brace, through the closing one). Null for any other
 * layout, including an envelope whose params carry anything else (a hop-local
 * `_meta`, which is dropped when the envelope is opened by parsing it).
 */
export function openEnvelopeLine(line: Buffer, head: MethodHead): { method: string; body: Buffer } | null {
  if (head.method === undefined || head.method === null) return null;
  const afterMethod = head.bodyStart + METHOD_KEY.length + Buffer.byteLength(head.method) + 2;
  if (!startsWith(line, INNER_METHOD, afterMethod)) return null;
  const bodyStart = afterMethod + INNER_METHOD.length - METHOD_KEY.length;
  const method = methodAt(line, bodyStart);
  if (method === null) return null;
  let end = bodyStart + METHOD_KEY.length + Buffer.byteLength(method) + 2;
  if (startsWith(line, INNER_PARAMS, end)) {
    const value = end + INNER_PARAMS.length;
    if (line[value] !== OPEN_BRACE && line[value] !== OPEN_BRACKET) return null;
    end = compositeEnd(line, value);
  }
  if (end !== line.length - 2 || line[end] !== CLOSE_BRACE) return null;
  return { method, body: line.subarray(bodyStart, line.length - 1) };
}

/** The JSON text of the top-level "id" member of an object line, or null (any layout). */
export function idText(raw: Buffer): string | null {
  const head = canonicalHead(raw);
  if (head !== null && head.kind !== "notification") return head.id.json;
  // Any other layout: walk the top level, skipping nested values and strings.
  let depth = 0;
  let key: string | null = null;
  let expectKey = false;
  for (let at = 0; at < raw.length; at++) {
    const byte = raw[at]!;
    if (byte === QUOTE) {
      const end = stringEnd(raw, at);
      if (end === -1) return null;
      if (depth === 1 && expectKey) key = JSON.parse(raw.toString("utf8", at, end)) as string;
      at = end - 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (depth === 1 && key === "id") return null;
      depth++;
      expectKey = depth === 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    } else if (depth === 1 && byte === COMMA) {
      expectKey = true;
    } else if (depth === 1 && byte === 0x3a) {
      expectKey = false;
      if (key === "id") {
        let start = at + 1;
        while (raw[start] === 0x20 || raw[start] === 0x09 || raw[start] === 0x0d || raw[start] === 0x0a) start++;
        const end = idTokenEnd(raw, start);
        return end === -1 ? null : raw.toString("utf8", start, end);
      }
    }
  }
  return null;
}

/** The escape-free string after `"method":` at `at`, or null. */
function methodAt(line: Buffer, at: number): string | null {
  const start = at + METHOD_KEY.length;
  if (line[start] !== QUOTE) return null;
  const end = idTokenEnd(line, start);
  return end === -1 ? null : line.toString("utf8", start + 1, end - 1);
}

/** The end of a number or escape-free string token starting at `at`; -1 if it is neither. */
function idTokenEnd(line: Buffer, at: number): number {
  if (line[at] === QUOTE) {
    for (let end = at + 1; end < line.length; end++) {
      if (line[end] === QUOTE) return end + 1;
      if (line[end] === BACKSLASH || line[end]! < 0x20) return -1;
    }
    return -1;
  }
  let end = at;
  while (end < line.length && NUMBER_BYTES.has(line[end]!)) end++;
  return end === at ? -1 : end;
}

/** The end of the string token starting at `at` (escapes skipped), or -1. */
function stringEnd(raw: Buffer, at: number): number {
  for (let quote = raw.indexOf(QUOTE, at + 1); quote !== -1; quote = raw.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (raw[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return -1;
}

/**
 * The end of the object or array starting at `at`, or -1 if it does not
 * close: brackets counted outside strings (a structural scan, not a
 * validation; the receiver parses what it gets).
 */
function compositeEnd(line: Buffer, at: number): number {
  let depth = 0;
  for (let index = at; index < line.length; index++) {
    const byte = line[index];
    if (byte === QUOTE) {
      index = stringEnd(line, index) - 1;
      if (index < 0) return -1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) return index + 1;
  }
  return -1;
}

/** A byte loop: for these short prefixes it is several times faster than Buffer.compare's call into C++. */
export function startsWith(buffer: Buffer, prefix: Buffer, offset: number): boolean {
  if (buffer.length < offset + prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (buffer[offset + index] !== prefix[index]) return false;
  return true;
}
