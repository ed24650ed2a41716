// Routes messages along the chain: client ⇄ component 0 ⇄ … ⇄ agent
// (the Proxy Chains rules in docs/proxy.md). A line laid out as JSON.stringify writes messages is
// routed from its first bytes and spliced (acp-wire's canonical-line.ts and splice.ts), never parsed,
// unless it must be read whole: initialize, $/cancel_request, a message an in-process component may
// rewrite. Any other line is parsed once. A plain notification passes on as the bytes that came in.
//
// Encodings by receiver: a proxy gets messages from its predecessor plain
// (`initialize` becomes `<dialect>/initialize`) and messages from its
// successor in a `<dialect>/successor` envelope; the agent and the client get
// everything plain. In proxy mode the chain's successor is the outer
// conductor, reached through envelopes on our own stdio.
//
// Request ids are remapped per connection (request-table.ts);
// $/cancel_request is hop-local and follows the remapping one hop. About 300
// lines: the parsed route and the unparsed one stay side by side, so that they
// visibly make the same decisions (test/router-routes.test.ts checks that they do).

import {
  CANCEL_REQUEST,
  canonicalHead,
  envelopeFromBody,
  openEnvelopeLine,
  plainFromBody,
  RawId,
  mayFollowId,
  MALFORMED_ENVELOPE,
  openEnvelope,
  encodeMessage,
  envelopeInnerBody,
  messageBody,
  INITIALIZE,
  ERROR,
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
import { AUTH_REQUIRED_CODE, AgentNotes, explainAgentError, explainAuthRequired, type StderrTail } from "./agent-failure.js";
import { knownAgentFor } from "./agent-choices.js";
import type { Connection, ComponentSpec } from "./connections.js";
import { RequestTable } from "./request-table.js";
import type { Trace } from "./trace.js";

/** A component that runs inside the conductor and may rewrite messages going down. */
export interface InProcessComponent {
  name: string;
  /** The methods whose messages `rewriteDownstream` may change; the others pass it unparsed. */
  rewrites: ReadonlySet<string>;
  rewriteDownstream(message: WireMessage): WireMessage | null;
  /** Agent→client request methods `answerUpstream` may answer in the client's place; the others pass it unparsed. */
  answers?: ReadonlySet<string>;
  /** The whole answer line to request `message` (its id `id`) going up, or null to let it go on. */
  answerUpstream?(message: WireMessage, id: IdLike): string | null;
}

export type ChainNode = { kind: "process"; connection: Connection } | { kind: "in-process"; component: InProcessComponent };

export type ChainMode = "agent" | "proxy";

type Direction = "down" | "up";

interface Hop {
  to: Connection;
  components: InProcessComponent[];
}

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
  private readonly requests = new RequestTable();
  /** The agent's name and login methods, from its initialize answer: to explain its "Authentication required". */
  private readonly agentNotes = new AgentNotes();

  constructor(private readonly options: RouterOptions) {
    this.nodes = options.nodes;
    this.upstream = options.upstream;
    this.upstreamDialect = options.dialect;
  }

  /** A line from our stdio. */
  fromUpstream(line: Buffer): void {
    if (this.routeUnparsed(this.upstream, line, -1, "down")) return;
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
    if (this.routeUnparsed(node.connection, line, index, "up")) return;
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
    for (const request of this.requests.takeAll()) request.origin.send(errorResponse(request.originId, error));
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
    const hop = this.nextHop(position, direction);
    if (direction === "up" && this.answeredOnTheWay(from, message, source, hop)) return;
    for (const component of hop.components) {
      const rewritten = direction === "down" ? component.rewriteDownstream(current) : null;
      if (rewritten !== null) {
        current = rewritten;
        reusable = false;
      }
    }
    this.deliver(from, hop.to, current, source, reusable, this.successorMethod(hop.to, direction) !== null);
  }

  /** A request going up that an in-process component answers (the editor's unsaved files): the answer goes back to `from`. */
  private answeredOnTheWay(from: Connection, message: WireMessage, source: Source, hop: Hop): boolean {
    if (!("id" in message) || typeof message.method !== "string" || !hop.components.some((component) => component.answers?.has(message.method as string)))
      return false;
    const id = source === null ? (message.id as IdLike) : exactId(source.raw, source.message);
    for (const component of hop.components) {
      const answer = component.answerUpstream?.(message, id) ?? null;
      if (answer === null) continue;
      this.send(from, from, answer);
      return true;
    }
    return false;
  }

  /** The next process from chain position `position` in `direction`, and the in-process components on the way. */
  private nextHop(position: number, direction: Direction): Hop {
    const hops = this.hops[direction];
    return (hops[position + 1] ??= this.findHop(position, direction));
  }

  /** nextHop's answers by direction and position + 1: the chain does not change. */
  private readonly hops: Record<Direction, Hop[]> = { down: [], up: [] };

  private findHop(position: number, direction: Direction): Hop {
    const step = direction === "down" ? 1 : -1;
    const components: InProcessComponent[] = [];
    for (let target = position + step; target >= 0 && target < this.nodes.length; target += step) {
      const node = this.nodes[target]!;
      if (node.kind === "process") return { to: node.connection, components };
      components.push(node.component);
    }
    return { to: this.upstream, components };
  }

  /** The envelope method `to` receives messages going `direction` in, or null when they go plain. */
  private successorMethod(to: Connection, direction: Direction): string | null {
    if (direction === "up" && to.role === "proxy") return dialectMethods(this.options.dialect).successor;
    if (direction === "down" && to.role === "upstream") return dialectMethods(this.upstreamDialect).successor;
    return null;
  }

  /**
   * The unparsed route (see the header): false when the line must be parsed.
   * `position` and `direction` are those of a plain message from `from`; an
   * envelope goes the other way.
   */
  private routeUnparsed(from: Connection, line: Buffer, position: number, direction: Direction): boolean {
    const head = canonicalHead(line);
    if (head === null) return false;
    if (head.kind === "response")
      return !this.mustReadAgentAnswer(from, line, head.bodyStart) && this.forwardResponse(from, head.id, line.subarray(head.bodyStart), line);
    let method = head.method;
    let body = line.subarray(head.bodyStart);
    let role = method === null ? null : proxyMethodRole(method);
    const enveloped = role?.role === "successor" && this.acceptsEnvelopes(from);
    if (enveloped) {
      const inner = openEnvelopeLine(line, head);
      if (inner === null) return false;
      ({ method, body } = inner);
      role = proxyMethodRole(method);
      [position, direction] = from === this.upstream ? [this.nodes.length, "up"] : [position, "down"];
    }
    if (method === null || method === CANCEL_REQUEST || method === INITIALIZE || role !== null) return false;
    const hop = this.nextHop(position, direction);
    if (direction === "down" && hop.components.some((component) => component.rewrites.has(method))) return false;
    if (direction === "up" && hop.components.some((component) => component.answers?.has(method))) return false;
    const successor = this.successorMethod(hop.to, direction);
    if (!enveloped && successor === null && head.kind === "notification") {
      this.options.trace?.record(from.name, "in", line);
      this.send(from, hop.to, line);
      return true;
    }
    if (successor === null && head.kind === "request" && !mayFollowId(body)) return false;
    this.options.trace?.record(from.name, "in", line);
    const id = head.kind === "request" ? this.requests.remember(from, hop.to, head.id) : undefined;
    this.send(from, hop.to, successor === null ? plainFromBody(body, id) : envelopeFromBody(body, id, successor));
    return true;
  }

  private acceptsEnvelopes(from: Connection): boolean {
    return from.role === "proxy" || (from === this.upstream && this.options.mode === "proxy");
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
    const id = "id" in message ? this.requests.remember(from, to, source !== null ? exactId(source.raw, source.message) : (message.id as IdLike)) : undefined;
    const successor = enveloped ? this.successorMethod(to, to.role === "upstream" ? "down" : "up") : null;
    let line: string | Buffer;
    if (source !== null && reusable && !source.enveloped && successor === null && id === undefined) {
      line = source.raw; // a plain notification, passing on as it came
    } else {
      const body =
        source === null || !reusable ? null : source.enveloped ? envelopeInnerBody(source.raw, source.message) : messageBody(source.raw, source.message);
      line = encodeMessage(outgoing, id, successor, body);
    }
    this.send(from, to, line);
  }

  private send(from: Connection, to: Connection, line: string | Buffer): void {
    if (!to.send(line)) from.holdUntilDrained(to);
  }

  private routeResponse(from: Connection, response: WireMessage, raw: Buffer): void {
    const request = this.requests.take(from, typeof response.id === "number" ? response.id : Number.NaN);
    if (request === undefined) this.options.log(`${from.name} answered unknown request id ${JSON.stringify(response.id)}; dropped`);
    else {
      const explained = from.role === "agent" ? this.explainAgentAnswer(from, response) : null;
      this.noteAnswered(from);
      if (explained !== null) this.send(from, request.origin, errorResponse(request.originId, explained));
      else this.send(from, request.origin, encodeMessage(response, request.originId, null, messageBody(raw, response)));
    }
  }

  /**
   * The agent's answers the unparsed route must leave to routeResponse: its
   * initialize answer (until seen) and its errors. Two byte checks per answer.
   */
  private mustReadAgentAnswer(from: Connection, line: Buffer, bodyStart: number): boolean {
    if (from.role !== "agent") return false;
    return (
      line.subarray(bodyStart, bodyStart + ERROR_MEMBER.length).equals(ERROR_MEMBER) ||
      (this.agentNotes.waiting && line.includes(AUTH_METHODS_MEMBER, bodyStart))
    );
  }

  /** Notes the agent's initialize answer; an "Authentication required" gets which agent and what to do. Null: pass it on as it came. */
  private explainAgentAnswer(from: Connection, response: WireMessage): ErrorResponse | null {
    if ("result" in response) {
      if (this.agentNotes.waiting) this.agentNotes.observe(response.result);
      return null;
    }
    const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string") return null;
    const agent = from as Connection & { spec?: ComponentSpec; stderrTail?: StderrTail };
    const command = agent.spec?.command ?? [];
    if (error.code === ERROR.internal.code && error.message === ERROR.internal.message) {
      // A bare "Internal error" often has its reason only on the agent's stderr (an adapter whose CLI could not start).
      const explained = explainAgentError({
        name: this.agentNotes.name ?? from.name,
        command,
        method: "a request",
        error: { code: error.code, message: error.message, data: error.data },
        stderrLines: agent.stderrTail?.since(this.agentStderrMark) ?? [],
      });
      return explained;
    }
    // An error that already says what to do (data.details: the setup agent relaying its chosen agent's) passes as it is.
    if (error.code !== AUTH_REQUIRED_CODE || (isObject(error.data) && typeof error.data.details === "string")) return null;
    // Its own name first: the command may start with a wrapper (runuser, env) whose words mention others.
    const login = (knownAgentFor([this.agentNotes.name ?? ""]) ?? knownAgentFor(command))?.login;
    const explained = explainAuthRequired({
      componentName: from.name,
      command,
      notes: this.agentNotes,
      error: { code: error.code, message: error.message, data: error.data },
      ...(login ? { login } : {}),
    });
    this.options.log(explained.data.details);
    return explained;
  }

  /** routeResponse from the line's bytes; false when it must be parsed (an unknown id is logged there). */
  private forwardResponse(from: Connection, id: RawId, body: Buffer, raw: Buffer): boolean {
    const key = Number(id.json);
    if (!mayFollowId(body) || !this.requests.isWaiting(from, key)) return false;
    this.options.trace?.record(from.name, "in", raw);
    const request = this.requests.take(from, key)!;
    this.noteAnswered(from);
    this.send(from, request.origin, plainFromBody(body, request.originId));
    return true;
  }

  /** Where the agent's stderr stood at its last answer: an error is explained by what it wrote since. */
  private agentStderrMark = 0;

  private noteAnswered(from: Connection): void {
    if (from.role === "agent") this.agentStderrMark = (from as Connection & { stderrTail?: StderrTail }).stderrTail?.total ?? 0;
  }

  private routeCancel(from: Connection, message: WireMessage): void {
    const params = isObject(message.params) ? message.params : {};
    const forwarded = this.requests.whereForwarded(from, params.requestId);
    if (forwarded === undefined) return; // already answered: nothing to cancel
    this.send(from, forwarded.target, JSON.stringify({ ...message, params: { ...params, requestId: forwarded.id } }));
  }
}

const ERROR_MEMBER = Buffer.from('"error":');
const AUTH_METHODS_MEMBER = Buffer.from('"authMethods":');
