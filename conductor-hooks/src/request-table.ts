// The conductor's request ids (the Proxy Chains rules in docs/proxy.md). A
// request it forwards keeps its id when the connection it goes to hears from
// no one else, and gets a fresh id there otherwise, since ids are only unique
// per sender; this table remembers, per connection, where each answer goes
// back and with which id, and lets a $/cancel_request follow its request one hop.

import { RawId, type IdLike, type WireMessage } from "../../acp-wire/src/index.js";
import type { Connection } from "./connections.js";

/** A request the conductor forwarded: where its answer must go back to, and the id it had there (exactly). */
export interface ForwardedRequest {
  origin: Connection;
  originId: IdLike;
  originKey: string;
  /** Told when the answer passes back (an in-process component's observation, router.ts). */
  onAnswer?: AnswerWatcher;
}

/** Given a way to read the answer (null: the chain failed it). */
export type AnswerWatcher = (answer: () => WireMessage | null) => void;

/** Where a request received on a connection went: the connection, and its id there (`kept`: the same one). */
export interface ForwardedTo {
  target: Connection;
  id: IdLike;
  kept: boolean;
}

export class RequestTable {
  /** Per connection: requests the conductor sent on it, by the id they have there. */
  private readonly pending = new Map<Connection, Map<string, ForwardedRequest>>();
  /** Per connection: requests received on it and forwarded, by their id there: where they went. */
  private readonly forwarded = new Map<Connection, Map<string, ForwardedTo>>();
  private readonly lastId = new Map<Connection, number>();

  /** Sends a request received on `from` on to `to` with its own id (`keep`) or a fresh one, and remembers where its answer goes. */
  remember(from: Connection, to: Connection, originId: IdLike, keep: boolean, onAnswer?: AnswerWatcher): IdLike {
    const id = keep ? originId : this.freshId(to);
    const originKey = idKey(originId);
    tableOf(this.pending, to).set(idKey(id), { origin: from, originId, originKey, ...(onAnswer ? { onAnswer } : {}) });
    tableOf(this.forwarded, from).set(originKey, { target: to, id, kept: keep });
    return id;
  }

  /** The request sent on `connection` with id `id`, forgotten now that it is answered. */
  take(connection: Connection, id: IdLike): ForwardedRequest | undefined {
    const key = idKey(id);
    const request = this.pending.get(connection)?.get(key);
    if (request === undefined) return undefined;
    this.pending.get(connection)!.delete(key);
    this.forwarded.get(request.origin)!.delete(request.originKey);
    return request;
  }

  /** Where the request received on `from` with id `originId` went, while it waits. */
  whereForwarded(from: Connection, originId: unknown): ForwardedTo | undefined {
    return this.forwarded.get(from)?.get(idKey(originId));
  }

  /** Every request still waiting, forgotten. */
  takeAll(): ForwardedRequest[] {
    const all = [...this.pending.values()].flatMap((requests) => [...requests.values()]);
    this.pending.clear();
    this.forwarded.clear();
    return all;
  }

  private freshId(to: Connection): number {
    const id = (this.lastId.get(to) ?? 0) + 1;
    this.lastId.set(to, id);
    return id;
  }
}

function tableOf<K, V>(tables: Map<Connection, Map<K, V>>, connection: Connection): Map<K, V> {
  let table = tables.get(connection);
  if (table === undefined) tables.set(connection, (table = new Map<K, V>()));
  return table;
}

/** One key per id however it reached us: parsed (a string or a number) or as its exact text (RawId: `1` and `1.0` are one id). */
function idKey(id: unknown): string {
  if (!(id instanceof RawId)) return typeof id === "string" ? `s:${id}` : `n:${String(id)}`;
  if (id.json.startsWith('"')) return `s:${JSON.parse(id.json) as string}`;
  const value = Number(id.json);
  return `n:${Number.isSafeInteger(value) ? value : id.json}`;
}
