// Routes messages along the chain: client ⇄ component 0 ⇄ … ⇄ agent
// (contract 4). Each line is parsed once; a message that keeps its encoding
// and its id (a plain notification) is forwarded as the bytes that came in.
//
// Encodings by receiver: a proxy gets messages from its predecessor plain
// (`initialize` becomes `<dialect>/initialize`) and messages from its
// successor in a `<dialect>/successor` envelope; the agent and the client get
// everything plain. In proxy mode the chain's successor is the outer
// conductor, reached through envelopes on our own stdio.
//
// Request ids are remapped per connection; $/cancel_request is hop-local and
// follows the remapping one hop.

import {
  CANCEL_REQUEST,
  MALFORMED_ENVELOPE,
  openEnvelope,
  wrapInEnvelope,
  envelopeFromBody,
  envelopeInnerBody,
  messageBody,
  plainFromBody,
  INITIALIZE,
  dialectMethods,
  type ErrorResponse,
  errorResponse,
  isObject,
  messageKind,
  oversizedLineError,
  parseLine,
  proxyMethodRole,
  requestId,
  type ProxyDialect,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import type { Connection, ForwardedRequest } from "./connections.js";
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

  constructor(private readonly options: RouterOptions) {
    this.nodes = options.nodes;
    this.upstream = options.upstream;
    this.upstreamDialect = options.dialect;
  }

  /** A line from our stdio. */
  fromUpstream(line: Buffer): void {
    const message = this.receive(this.upstream, line);
    if (message === null) return;
    const role = proxyMethodRole(message.method);
    if (this.options.mode === "proxy" && role?.role === "successor") {
      this.routeInner(this.upstream, message, line, this.nodes.length, "up");
      return;
    }
    if (role?.role === "initialize") {
      this.upstreamDialect = role.dialect;
      this.route(this.upstream, { ...message, method: INITIALIZE }, null, -1, "down");
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

  oversized(from: Connection, byteLength: number, limit: number): void {
    from.send(errorResponse(null, oversizedLineError(byteLength, limit)));
  }

  /** Answers every request still waiting anywhere in the chain with `error`. */
  failAllPending(error: ErrorResponse): void {
    const connections = [this.upstream, ...this.processConnections()];
    for (const connection of connections) {
      for (const [id, request] of connection.pending) {
        connection.pending.delete(id);
        this.answer(request, error);
      }
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
      from.send(errorResponse(null, parsed.error));
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
      if ("id" in envelope) from.send(errorResponse(requestId(envelope), MALFORMED_ENVELOPE));
      return;
    }
    this.route(from, message, { raw, message: envelope, enveloped: true }, position, direction);
  }

  /**
   * Moves `message` from chain position `position` one process further in
   * `direction`, through any in-process components on the way.
   */
  private route(from: Connection, message: WireMessage, source: Source, position: number, direction: Direction): void {
    let current = message;
    let target = position + (direction === "down" ? 1 : -1);
    for (; target >= 0 && target < this.nodes.length; target += direction === "down" ? 1 : -1) {
      const node = this.nodes[target]!;
      if (node.kind === "process") break;
      if (direction === "down") {
        const rewritten = node.component.rewriteDownstream(current);
        if (rewritten !== null) {
          current = rewritten;
          source = null;
        }
      }
    }
    const node = this.nodes[target];
    const to = node?.kind === "process" ? node.connection : this.upstream;
    const enveloped = (direction === "up" && to.role === "proxy") || (direction === "down" && to.role === "upstream");
    this.deliver(from, to, current, source, enveloped);
  }

  private deliver(from: Connection, to: Connection, message: WireMessage, source: Source, enveloped: boolean): void {
    let outgoing = message;
    if (!enveloped && to.role === "proxy" && message.method === INITIALIZE) {
      outgoing = { ...message, method: dialectMethods(this.options.dialect).initialize };
      source = null;
    }
    let id: number | undefined;
    if ("id" in message) {
      id = to.nextId();
      to.pending.set(id, { origin: from, originId: requestId(message) });
      from.forwarded.set(idKey(message.id), { target: to, id });
    }
    const successor = enveloped ? dialectMethods(to.role === "upstream" ? this.upstreamDialect : this.options.dialect).successor : null;
    if (source !== null && !source.enveloped && successor === null && id === undefined) {
      to.send(source.raw); // a plain notification, passing on as it came
      return;
    }
    const body = source === null ? null : source.enveloped ? envelopeInnerBody(source.raw, source.message) : messageBody(source.raw, source.message);
    if (body !== null) {
      to.send(successor === null ? plainFromBody(body, id) : envelopeFromBody(body, id, successor));
      return;
    }
    const wrapped = successor === null ? (id === undefined ? outgoing : { ...outgoing, id }) : wrapInEnvelope(outgoing, id, successor);
    to.send(JSON.stringify(wrapped));
  }

  private routeResponse(from: Connection, response: WireMessage, raw: Buffer): void {
    const id = typeof response.id === "number" ? response.id : Number.NaN;
    const request = from.pending.get(id);
    if (request === undefined) {
      this.options.log(`${from.name} answered unknown request id ${JSON.stringify(response.id)}; dropped`);
      return;
    }
    from.pending.delete(id);
    request.origin.forwarded.delete(idKey(request.originId));
    const body = messageBody(raw, response);
    request.origin.send(body !== null ? plainFromBody(body, request.originId) : JSON.stringify({ ...response, id: request.originId }));
  }

  private routeCancel(from: Connection, message: WireMessage): void {
    const params = isObject(message.params) ? message.params : {};
    const forwarded = from.forwarded.get(idKey(params.requestId));
    if (forwarded === undefined) return; // already answered: nothing to cancel
    forwarded.target.send(JSON.stringify({ ...message, params: { ...params, requestId: forwarded.id } }));
  }

  private answer(request: ForwardedRequest, error: ErrorResponse): void {
    request.origin.forwarded.delete(idKey(request.originId));
    request.origin.send(errorResponse(request.originId, error));
  }
}

function idKey(id: unknown): string {
  return typeof id === "string" ? `s:${id}` : `n:${String(id)}`;
}
