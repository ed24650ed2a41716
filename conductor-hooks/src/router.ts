// Routes messages along the chain: client ⇄ component 0 ⇄ … ⇄ agent
// (the Proxy Chains rules in docs/proxy.md). Each line is parsed once; a message that keeps its encoding
// and its id (a plain notification) is forwarded as the bytes that came in.
//
// Encodings by receiver: a proxy gets messages from its predecessor plain
// (`initialize` becomes `<dialect>/initialize`) and messages from its
// successor in a `<dialect>/successor` envelope; the agent and the client get
// everything plain. In proxy mode the chain's successor is the outer
// conductor, reached through envelopes on our own stdio.
//
// Request ids are remapped per connection (the router owns those tables);
// $/cancel_request is hop-local and follows the remapping one hop. Slightly
// over 250 lines: the tables and the routes that read them stay together.

import {
  CANCEL_REQUEST,
  MALFORMED_ENVELOPE,
  openEnvelope,
  encodeMessage,
  envelopeInnerBody,
  messageBody,
  INITIALIZE,
  dialectMethods,
  type ErrorResponse,
  type IdLike,
  errorResponse,
  exactId,
  isObject,
  messageKind,
  oversizedLineError,
  parseLine,
  plainInitialize,
  proxyMethodRole,
  type ProxyDialect,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import type { Connection } from "./connections.js";
import type { Trace } from "./trace.js";

/** A component that runs inside the conductor and may rewrite messages going down. */
export interface InProcessComponent {
  name: string;
  rewriteDownstream(message: WireMessage): WireMessage | null;
}

export type ChainNode = { kind: "process"; connection: Connection } | { kind: "in-process"; component: InProcessComponent };

export type ChainMode = "agent" | "proxy";

type Direction = "down" | "up";

/** The line a routed message came from, while its bytes may still be reused (see splice.ts). */
type Source = { raw: Buffer; message: WireMessage; enveloped: boolean } | null;

/** A request the conductor forwarded: where its answer must go back to, and the id it had there (exactly). */
interface ForwardedRequest {
  origin: Connection;
  originId: IdLike;
  originKey: string;
}

export interface RouterOptions {
  nodes: ChainNode[];
  upstream: Connection;
  mode: ChainMode;
  /** Dialect spoken to proxy components. */
  dialect: ProxyDialect;
  trace: Trace | null;
  log: (message: string) => void;
}

export class Router {
  private readonly nodes: ChainNode[];
  private readonly upstream: Connection;
  /** In proxy mode, the dialect the outer conductor initialised us with. */
  private upstreamDialect: ProxyDialect;
  /** Per connection: requests the conductor sent on it, by the id it gave them. */
  private readonly pending = new Map<Connection, Map<number, ForwardedRequest>>();
  /** Per connection: requests received on it and forwarded, by their id there: where they went. */
  private readonly forwarded = new Map<Connection, Map<string, { target: Connection; id: number }>>();
  private readonly lastId = new Map<Connection, number>();

  constructor(private readonly options: RouterOptions) {
    this.nodes = options.nodes;
    this.upstream = options.upstream;
    this.upstreamDialect = options.dialect;
    for (const connection of [this.upstream, ...this.processConnections()]) {
      this.pending.set(connection, new Map());
      this.forwarded.set(connection, new Map());
    }
  }

  /** A line from our stdio. */
  fromUpstream(line: Buffer): void {
    const message = this.receive(this.upstream, line);
    if (message === null) return;
    if (this.options.mode === "proxy" && proxyMethodRole(message.method)?.role === "successor") {
      this.routeInner(this.upstream, message, line, this.nodes.length, "up");
      return;
    }
    const initialize = plainInitialize(message);
    if (initialize !== null) {
      this.upstreamDialect = initialize.dialect;
      this.route(this.upstream, initialize.message, { raw: line, message, enveloped: false }, -1, "down", false);
      return;
    }
    this.route(this.upstream, message, { raw: line, message, enveloped: false }, -1, "down");
  }

  /** A line from the process at chain position `index`. */
  fromComponent(index: number, line: Buffer): void {
    const node = this.nodes[index];
    if (node?.kind !== "process") return;
    const message = this.receive(node.connection, line);
    if (message === null) return;
    if (node.connection.role === "proxy" && proxyMethodRole(message.method)?.role === "successor") {
      this.routeInner(node.connection, message, line, index, "down");
      return;
    }
    this.route(node.connection, message, { raw: line, message, enveloped: false }, index, "up");
  }

  /** The sender of an oversized line is told; the line is dropped. */
  oversized(from: Connection, byteLength: number, limit: number): void {
    from.send(errorResponse(null, oversizedLineError(byteLength, limit)));
  }

  /** Answers every request still waiting anywhere in the chain with `error`. */
  failAllPending(error: ErrorResponse): void {
    for (const [connection, requests] of this.pending) {
      for (const [id, request] of requests) {
        requests.delete(id);
        this.forwarded.get(request.origin)!.delete(request.originKey);
        request.origin.send(errorResponse(request.originId, error));
      }
      void connection;
    }
  }

  processConnections(): Connection[] {
    return this.nodes.flatMap((node) => (node.kind === "process" ? [node.connection] : []));
  }

  /** Parses a line, answers malformed ones, and routes responses and cancellations. */
  private receive(from: Connection, line: Buffer): WireMessage | null {
    const parsed = parseLine(line);
    if (!parsed.ok) {
      this.options.trace?.record(from.name, "in", JSON.stringify(line.toString()));
      from.send(errorResponse(parsed.id, parsed.error));
      return null;
    }
    this.options.trace?.record(from.name, "in", line);
    const message = parsed.message;
    if (messageKind(message) === "response") {
      this.routeResponse(from, message, line);
      return null;
    }
    if (message.method === CANCEL_REQUEST) {
      this.routeCancel(from, message);
      return null;
    }
    return message;
  }

  private routeInner(from: Connection, envelope: WireMessage, raw: Buffer, position: number, direction: Direction): void {
    const message = openEnvelope(envelope);
    if (message === null) {
      if ("id" in envelope) from.send(errorResponse(exactId(raw, envelope), MALFORMED_ENVELOPE));
      return;
    }
    this.route(from, message, { raw, message: envelope, enveloped: true }, position, direction);
  }

  /**
   * Moves `message` from chain position `position` one process further in
   * `direction`, through any in-process components on the way (which may
   * rewrite it going down). `reusable` is false when `message` differs from
   * its source's bytes.
   */
  private route(from: Connection, message: WireMessage, source: Source, position: number, direction: Direction, reusable = true): void {
    let current = message;
    const step = direction === "down" ? 1 : -1;
    let target = position + step;
    for (; target >= 0 && target < this.nodes.length; target += step) {
      const node = this.nodes[target]!;
      if (node.kind === "process") break;
      const rewritten = direction === "down" ? node.component.rewriteDownstream(current) : null;
      if (rewritten !== null) {
        current = rewritten;
        reusable = false;
      }
    }
    const node = this.nodes[target];
    const to = node?.kind === "process" ? node.connection : this.upstream;
    const enveloped = (direction === "up" && to.role === "proxy") || (direction === "down" && to.role === "upstream");
    this.deliver(from, to, current, source, reusable, enveloped);
  }

  /**
   * Sends `message` from `from` to `to`, deciding, in order:
   * 1. its method: a proxy receives `initialize` as `<dialect>/initialize`;
   * 2. its id: a request gets a fresh id on `to`, remembered for its answer;
   * 3. its envelope: a proxy receives its successor's messages, and the outer
   *    conductor ours (proxy mode), in a `<dialect>/successor` envelope;
   * 4. its bytes: the source's bytes as they came when nothing changed (a
   *    plain notification), its body spliced when only the outside changed,
   *    serialised otherwise.
   * A full receiver holds `from` back until it drains.
   */
  private deliver(from: Connection, to: Connection, message: WireMessage, source: Source, reusable: boolean, enveloped: boolean): void {
    let outgoing = message;
    if (!enveloped && to.role === "proxy" && message.method === INITIALIZE) {
      outgoing = { ...message, method: dialectMethods(this.options.dialect).initialize };
      reusable = false;
    }
    const id = "id" in message ? this.remember(from, to, source !== null ? exactId(source.raw, source.message) : message.id as IdLike) : undefined;
    const successor = enveloped ? dialectMethods(to.role === "upstream" ? this.upstreamDialect : this.options.dialect).successor : null;
    let line: string | Buffer;
    if (source !== null && reusable && !source.enveloped && successor === null && id === undefined) {
      line = source.raw; // a plain notification, passing on as it came
    } else {
      const body = source === null || !reusable ? null : source.enveloped ? envelopeInnerBody(source.raw, source.message) : messageBody(source.raw, source.message);
      line = encodeMessage(outgoing, id, successor, body);
    }
    this.send(from, to, line);
  }

  /** Gives a request a fresh id on `to` and remembers where its answer goes. */
  private remember(from: Connection, to: Connection, originId: IdLike): number {
    const id = (this.lastId.get(to) ?? 0) + 1;
    this.lastId.set(to, id);
    const originKey = idKey(originId);
    this.pending.get(to)!.set(id, { origin: from, originId, originKey });
    this.forwarded.get(from)!.set(originKey, { target: to, id });
    return id;
  }

  private send(from: Connection, to: Connection, line: string | Buffer): void {
    if (!to.send(line)) from.holdUntilDrained(to);
  }

  private routeResponse(from: Connection, response: WireMessage, raw: Buffer): void {
    const id = typeof response.id === "number" ? response.id : Number.NaN;
    const request = this.pending.get(from)!.get(id);
    if (request === undefined) {
      this.options.log(`${from.name} answered unknown request id ${JSON.stringify(response.id)}; dropped`);
      return;
    }
    this.pending.get(from)!.delete(id);
    this.forwarded.get(request.origin)!.delete(request.originKey);
    this.send(from, request.origin, encodeMessage(response, request.originId, null, messageBody(raw, response)));
  }

  private routeCancel(from: Connection, message: WireMessage): void {
    const params = isObject(message.params) ? message.params : {};
    const forwarded = this.forwarded.get(from)!.get(idKey(params.requestId));
    if (forwarded === undefined) return; // already answered: nothing to cancel
    this.send(from, forwarded.target, JSON.stringify({ ...message, params: { ...params, requestId: forwarded.id } }));
  }
}

function idKey(id: unknown): string {
  if (typeof id === "string") return `s:${id}`;
  return `n:${typeof id === "object" && id !== null && "json" in id ? String((id as { json: string }).json) : String(id)}`;
}
