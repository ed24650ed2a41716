// A request's id exactly as it was written: JSON.parse rounds integers
// beyond 2^53, and a router must answer with the id it was asked with.

/** An id as the exact JSON text it was written with. */
export class RawId {
  constructor(readonly json: string) {}
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUMBER_BYTES = new Set(Buffer.from("-+.0123456789eE"));

/** The JSON text of the top-level "id" member of an object line, or null (any layout). */
export function idText(raw: Buffer): string | null {
  // Walk the top level, skipping nested values and strings (the id is near the start of most lines).
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
