// The conductor's request ids (the Proxy Chains rules in docs/proxy.md). A request it forwards gets
// a fresh id on the connection it goes to, since ids are only unique per sender; this table
// remembers, per connection, where each answer goes back and with which id, and lets a
// $/cancel_request follow its request one hop.

import { RawId, type IdLike, type WireMessage } from "../../acp-wire/src/index.js";
import type { Connection } from "./connections.js";

/** A request the conductor forwarded: where its answer must go back to, and the id it had there (exactly). */
export interface ForwardedRequest {
  origin: Connection;
  originId: IdLike;
  originKey: string;
  /** Told when the answer passes back (an in-process component's observation, router.ts); the answer parsed only if asked. */
  onAnswer?: AnswerWatcher;
}

/** Given a way to read the answer (null: it could not be read, or the chain failed it). */
export type AnswerWatcher = (answer: () => WireMessage | null) => void;

export class RequestTable {
  /** Per connection: requests the conductor sent on it, by the id it gave them. */
  private readonly pending = new Map<Connection, Map<number, ForwardedRequest>>();
  /** Per connection: requests received on it and forwarded, by their id there: where they went. */
  private readonly forwarded = new Map<Connection, Map<string, { target: Connection; id: number }>>();
  private readonly lastId = new Map<Connection, number>();

  /** Gives a request received on `from` a fresh id on `to`, and remembers where its answer goes. */
  remember(from: Connection, to: Connection, originId: IdLike, onAnswer?: AnswerWatcher): number {
    const id = (this.lastId.get(to) ?? 0) + 1;
    this.lastId.set(to, id);
    const originKey = idKey(originId);
    tableOf(this.pending, to).set(id, { origin: from, originId, originKey, ...(onAnswer ? { onAnswer } : {}) });
    tableOf(this.forwarded, from).set(originKey, { target: to, id });
    return id;
  }

  /** Whether the request sent on `connection` with id `id` still waits for its answer. */
  isWaiting(connection: Connection, id: number): boolean {
    return this.pending.get(connection)?.has(id) ?? false;
  }

  /** The request sent on `connection` with id `id`, forgotten now that it is answered. */
  take(connection: Connection, id: number): ForwardedRequest | undefined {
    const request = this.pending.get(connection)?.get(id);
    if (request === undefined) return undefined;
    this.pending.get(connection)!.delete(id);
    this.forwarded.get(request.origin)!.delete(request.originKey);
    return request;
  }

  /** Where the request received on `from` with id `originId` went, while it waits. */
  whereForwarded(from: Connection, originId: unknown): { target: Connection; id: number } | undefined {
    return this.forwarded.get(from)?.get(idKey(originId));
  }

  /** Every request still waiting, forgotten. */
  takeAll(): ForwardedRequest[] {
    const all = [...this.pending.values()].flatMap((requests) => [...requests.values()]);
    this.pending.clear();
    this.forwarded.clear();
    return all;
  }
}

function tableOf<K, V>(tables: Map<Connection, Map<K, V>>, connection: Connection): Map<K, V> {
  let table = tables.get(connection);
  if (table === undefined) tables.set(connection, (table = new Map<K, V>()));
  return table;
}

/** One key per id however it reached us: parsed (a string or a number) or as its exact text (RawId). */
function idKey(id: unknown): string {
  if (id instanceof RawId) return id.json.startsWith('"') ? `s:${JSON.parse(id.json) as string}` : `n:${id.json}`;
  return typeof id === "string" ? `s:${id}` : `n:${String(id)}`;
}
