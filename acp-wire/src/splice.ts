// Re-addressing JSON-RPC messages by splicing bytes instead of re-serialising.
//
// Routers change only a message's outside: its id, or an envelope around it.
// When a line is laid out the way JSON.stringify writes messages (jsonrpc
// first, then id, then the rest), its "body" (everything after jsonrpc and
// id) can be reused byte for byte:
//
//   {"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{...}}
//                           └──────────────── body ──────────────────────┘
//
// The encoders return framed lines (ending with their newline), so a writer
// sends each in one piece. The readers return null when the layout is not the expected one, and
// the caller falls back to JSON.stringify: splicing is an optimisation that is
// never allowed to change what a message means. A body that holds the bytes
// `"id"` anywhere is declined too: a duplicate "id" member after the one we
// write would win in the receiver's parser (params with "id" keys just take
// the slower path).

import { idJson, type IdLike, type WireMessage } from "./jsonrpc.js";

const HEAD = Buffer.from('{"jsonrpc":"2.0",');
const ID_KEY = Buffer.from('"id"');

/** The bytes of `raw` after its jsonrpc and id members, or null if not laid out canonically. */
export function messageBody(raw: Buffer, message: WireMessage): Buffer | null {
  const keys = Object.keys(message);
  const hasId = keys[1] === "id";
  if (keys[0] !== "jsonrpc" || message.jsonrpc !== "2.0" || (!hasId && keys.includes("id"))) return null;
  if (raw.length < HEAD.length + 2 || !startsWith(raw, HEAD, 0) || raw[raw.length - 1] !== 0x7d) return null;
  const idPart = hasId ? Buffer.from(`"id":${JSON.stringify(message.id)},`) : NO_BYTES;
  if (!startsWith(raw, idPart, HEAD.length)) return null;
  const body = raw.subarray(HEAD.length + idPart.length);
  return body.includes(ID_KEY) ? null : body;
}

/**
 * The body of the message inside an envelope (`{method, params}` in the
 * envelope's params), or null when the layout is not the expected one or the
 * envelope carries anything else (a hop-local _meta, which must be dropped).
 */
export function envelopeInnerBody(raw: Buffer, envelope: WireMessage): Buffer | null {
  const inner = envelope.params as WireMessage | undefined;
  if (inner === undefined || inner === null || typeof inner !== "object") return null;
  const innerKeys = Object.keys(inner);
  if (innerKeys[0] !== "method" || innerKeys.length > 2 || (innerKeys.length === 2 && innerKeys[1] !== "params")) return null;
  const outerKeys = Object.keys(envelope);
  if (outerKeys[outerKeys.length - 1] !== "params" || outerKeys.length > ("id" in envelope ? 4 : 3)) return null;
  const body = messageBody(raw, envelope);
  if (body === null) return null;
  const lead = envelopeLead(String(envelope.method));
  if (!startsWith(body, lead, 0) || body.length < lead.length + 2 || body[body.length - 2] !== 0x7d) return null;
  return body.subarray(lead.length, body.length - 1);
}

/** `{"jsonrpc":"2.0",["id":id,]` + body + newline */
export function plainFromBody(body: Buffer, id: unknown): Buffer {
  return Buffer.concat([HEAD, idBytes(id), body, NEWLINE]);
}

/** `{"jsonrpc":"2.0",["id":id,]"method":successor,"params":{` + body + `}` + newline */
export function envelopeFromBody(body: Buffer, id: unknown, successorMethod: string): Buffer {
  return Buffer.concat([HEAD, idBytes(id), envelopeLead(successorMethod), body, CLOSE_LINE]);
}

const CLOSE_LINE = Buffer.from("}\n");
const NEWLINE = Buffer.from("\n");
const NO_BYTES = Buffer.alloc(0);
/** `"method":"<envelope method>","params":{` by method: there are two (proxy-dialect.ts). */
const envelopeLeads = new Map<string, Buffer>();

function envelopeLead(method: string): Buffer {
  let lead = envelopeLeads.get(method);
  if (lead === undefined) envelopeLeads.set(method, (lead = Buffer.from(`"method":${JSON.stringify(method)},"params":{`)));
  return lead;
}

function idBytes(id: unknown): Buffer {
  return id === undefined ? NO_BYTES : Buffer.from(`"id":${idJson(id)},`);
}

/**
 * The framed line for `message` with id `id` (undefined: none), in a `successor`
 * envelope when one is given. Reuses `body` (from messageBody or
 * envelopeInnerBody) when there is one; otherwise serialises the message.
 * Either way the id is written exactly (see RawId).
 */
export function encodeMessage(message: WireMessage, id: IdLike | undefined, successor: string | null, body: Buffer | null): Buffer {
  if (body !== null) return successor === null ? plainFromBody(body, id) : envelopeFromBody(body, id, successor);
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = message;
  const members =
    successor === null ? rest : { method: successor, params: { method: message.method, ...("params" in message ? { params: message.params } : {}) } };
  const json = JSON.stringify(members);
  return json === "{}" ? Buffer.from(`{"jsonrpc":"2.0"${id === undefined ? "" : `,"id":${idJson(id)}`}}\n`) : plainFromBody(Buffer.from(json.slice(1)), id);
}

/** A byte loop: for these short prefixes it is several times faster than Buffer.compare's call into C++. */
function startsWith(buffer: Buffer, prefix: Buffer, offset: number): boolean {
  if (buffer.length < offset + prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (buffer[offset + index] !== prefix[index]) return false;
  return true;
}
