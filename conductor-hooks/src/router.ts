// Routes messages along the chain: client ⇄ component 0 ⇄ … ⇄ agent
// (the Proxy Chains rules in docs/proxy.md). One route, over a lazy view of each line (acp-wire's
// line-view.ts): a line laid out as JSON.stringify writes messages is routed from its first bytes
// and spliced (splice.ts), and parsed only when a decision needs the message: initialize from an
// outer conductor or to a proxy (renamed), $/cancel_request, a message an in-process component may
// rewrite or answer, the agent's errors and its initialize answer. Anything else an agent or a proxy
// parses itself, as every JSON-RPC peer must.
// A line in any other layout is parsed once. A plain notification passes on as the bytes that came in.
//
// Encodings by receiver: a proxy gets messages from its predecessor plain
// (`initialize` becomes `<dialect>/initialize`) and messages from its
// successor in a `<dialect>/successor` envelope; the agent and the client get
// everything plain. In proxy mode the chain's successor is the outer
// conductor, reached through envelopes on our own stdio.
//
// Request ids are remapped per connection (request-table.ts);
// $/cancel_request is hop-local and follows the remapping one hop.

import {
  CANCEL_REQUEST,
  INITIALIZE,
  ERROR,
  dialectMethods,
  encodeMessage,
  envelopeFromBody,
  errorResponse,
  idJson,
  isObject,
  oversizedLineError,
  plainFromBody,
  plainInitialize,
  proxyMethodRole,
  readLine,
  changedView,
  hasMethod,
  spliceableBody,
  type MethodView,
  type ErrorResponse,
  type IdLike,
  type LineView,
  type MessageView,
  type DialectMethods,
  type ProxyDialect,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import { AUTH_REQUIRED_CODE, AgentNotes, explainAgentError, explainAuthRequired, type StderrTail } from "./agent-failure.js";
import { chooseAgentHint, knownAgentFor } from "./agent-choices.js";
import type { Connection, ComponentSpec } from "./connections.js";
import { RequestTable, type AnswerWatcher } from "./request-table.js";
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
  /** Client→agent request methods `observe` sees (parsed) before they go on; the others pass it unparsed. */
  observes?: ReadonlySet<string>;
  /** Sees a request going down; what it returns may hold it back a while and hears of its answer. */
  observe?(request: WireMessage): Observation | null;
  /** Run when the chain stops (after its processes ended). */
  close?(): Promise<void>;
}

/**
 * What an in-process component does with a request it observed. `hold`: the
 * request, and every line its sender sends after it, wait until the promise
 * settles (so nothing overtakes it; the other direction flows on). `answered`:
 * told when its answer has passed back to the sender.
 */
export interface Observation {
  hold?: Promise<void>;
  answered?: AnswerWatcher;
}

export type ChainNode = { kind: "process"; connection: Connection } | { kind: "in-process"; component: InProcessComponent };

export type ChainMode = "agent" | "proxy";

type Direction = "down" | "up";

interface Hop {
  to: Connection;
  components: InProcessComponent[];
  /** The methods the components on the way may rewrite, or answer: what needs reading (the others pass unparsed). */
  rewrites: ReadonlySet<string>;
  answers: ReadonlySet<string>;
  observes: ReadonlySet<string>;
}

/** Where a message sets off from: a chain position (-1: the client's side), and which way it goes. */
interface Place {
  position: number;
  direction: Direction;
}

export interface RouterOptions {
  nodes: ChainNode[];
  upstream: Connection;
  mode: ChainMode;
  /** Dialect spoken to proxy components. */
  dialect: ProxyDialect;
  trace: Trace | null;
  log: (message: string) => void;
  /** The conductor's environment (a client with an agent picker says so in it); default this process's. */
  env?: NodeJS.ProcessEnv;
}

export class Router {
  private readonly nodes: ChainNode[];
  private readonly upstream: Connection;
  /** The methods proxy components are spoken to with. */
  private readonly proxyMethods: DialectMethods;
  /** In proxy mode, those of the dialect the outer conductor initialised us with. */
  private upstreamMethods: DialectMethods;
  private readonly requests = new RequestTable();
  /** The agent's name and login methods, from its initialize answer: to explain its "Authentication required". */
  private readonly agentNotes = new AgentNotes();

  constructor(private readonly options: RouterOptions) {
    this.nodes = options.nodes;
    this.upstream = options.upstream;
    this.proxyMethods = dialectMethods(options.dialect);
    this.upstreamMethods = this.proxyMethods;
  }

  /** Per sender held back by an observation: the lines it sent since, in order, with where they set off from. */
  private readonly held = new Map<Connection, Array<{ line: Buffer; place: Place }>>();

  /** A line from our stdio. */
  fromUpstream(line: Buffer): void {
    this.receive(this.upstream, line, this.place(-1, "down"));
  }

  /** A line from the process at chain position `index`. */
  fromComponent(index: number, line: Buffer): void {
    const node = this.nodes[index];
    if (node?.kind === "process") this.receive(node.connection, line, this.place(index, "up"));
  }

  /** The sender of an oversized line is told; the line is dropped. */
  oversized(from: Connection, byteLength: number, limit: number): void {
    from.send(errorResponse(null, oversizedLineError(byteLength, limit)));
  }

  /** Answers every request still waiting anywhere in the chain with `error`. */
  failAllPending(error: ErrorResponse): void {
    for (const request of this.requests.takeAll()) {
      request.origin.send(errorResponse(request.originId, error));
      request.onAnswer?.(() => null);
    }
  }

  processConnections(): Connection[] {
    return this.nodes.flatMap((node) => (node.kind === "process" ? [node.connection] : []));
  }

  /** Answers an unreadable line; routes the others by kind and method. `place` is that of a plain message from `from`. */
  private receive(from: Connection, line: Buffer, place: Place): void {
    const waiting = this.held.get(from);
    if (waiting !== undefined) return void waiting.push({ line, place });
    const view = readLine(line);
    if (!view.ok) {
      this.options.trace?.record(from.name, "in", JSON.stringify(line.toString()));
      from.send(errorResponse(view.id, view.error));
      return;
    }
    this.options.trace?.record(from.name, "in", line);
    if (!hasMethod(view)) return this.routeResponse(from, view);
    if (view.method === CANCEL_REQUEST) return this.routeCancel(from, view);
    const role = proxyMethodRole(view.method);
    if (role?.role === "successor" && this.acceptsEnvelopes(from)) return this.routeInner(from, view, place);
    if (role?.role === "initialize" && from === this.upstream) return this.routeInitialize(view, place);
    this.route(from, view, place);
  }

  /**
   * An envelope from `from` (whose plain messages go from `place`): its
   * message goes the other way, toward the agent from a proxy, toward the
   * client from the outer conductor.
   */
  private routeInner(from: Connection, envelope: LineView, place: Place): void {
    const opened = envelope.open();
    if (!opened.ok) {
      if (opened.id !== undefined) from.send(errorResponse(opened.id, opened.error));
      return;
    }
    const inner = from === this.upstream ? this.place(this.nodes.length, "up") : this.place(place.position, "down");
    this.route(from, opened, inner);
  }

  /** `<dialect>/initialize` from the outer conductor: the plain `initialize` it stands for, and the dialect to answer in. */
  private routeInitialize(view: LineView, place: Place): void {
    const message = this.parsedOrAnswered(this.upstream, view);
    const initialize = message === null ? null : plainInitialize(message);
    if (initialize === null) return;
    this.upstreamMethods = dialectMethods(initialize.dialect);
    this.route(this.upstream, changedView(view, initialize.message, INITIALIZE), place);
  }

  /**
   * Moves a message from `place` one process further, through any in-process
   * components on the way (which may answer it going up, or rewrite it going down).
   */
  private route(from: Connection, view: MethodView, place: Place): void {
    const hop = this.nextHop(place);
    if (place.direction === "up" && this.answeredOnTheWay(from, view, hop)) return;
    const observed = place.direction === "down" ? this.observed(from, view, hop) : NOT_OBSERVED;
    if (observed === null) return;
    if (observed.hold === undefined) return this.forward(from, view, place, hop, observed.answered);
    this.held.set(from, []);
    void observed.hold.then(() => {
      this.forward(from, view, place, hop, observed.answered);
      this.release(from);
    });
  }

  /** Rewrites a message going down, renames it for a proxy, and sends it on. */
  private forward(from: Connection, view: MethodView, place: Place, hop: Hop, onAnswer: AnswerWatcher | undefined): void {
    const rewritten = place.direction === "down" ? this.rewritten(from, view, hop) : view;
    const successor = this.successorMethod(hop.to, place.direction);
    const outgoing = rewritten === null ? null : this.renamedForProxy(from, rewritten, hop.to, successor);
    if (outgoing !== null) this.deliver(from, hop.to, outgoing, successor, onAnswer);
  }

  /**
   * What the components on the way make of a request they observe: one
   * promise to wait for (all of theirs), and who to tell of its answer. Null
   * when it had to be read and could not be (answered).
   */
  private observed(from: Connection, view: MethodView, hop: Hop): { hold?: Promise<void>; answered?: AnswerWatcher } | null {
    if (view.kind !== "request" || !hop.observes.has(view.method)) return NOT_OBSERVED;
    const message = this.parsedOrAnswered(from, view);
    if (message === null) return null;
    const holds: Array<Promise<void>> = [];
    const watchers: AnswerWatcher[] = [];
    for (const component of hop.components) {
      const observation = component.observe?.(message) ?? null;
      if (observation?.hold) holds.push(observation.hold.catch(() => {}));
      if (observation?.answered) watchers.push(observation.answered);
    }
    return {
      ...(holds.length > 0 ? { hold: Promise.all(holds).then(() => {}) } : {}),
      ...(watchers.length > 0 ? { answered: (answer) => watchers.forEach((watch) => watch(answer)) } : {}),
    };
  }

  /** Lets `from`'s lines held behind an observation go on, in order, until one of them is held in turn. */
  private release(from: Connection): void {
    const waiting = this.held.get(from) ?? [];
    this.held.delete(from);
    while (waiting.length > 0 && !this.held.has(from)) {
      const { line, place } = waiting.shift()!;
      this.receive(from, line, place);
    }
    // A line among them was held in its turn: the rest wait behind it, still in order.
    if (waiting.length > 0) this.held.get(from)!.unshift(...waiting);
  }

  /** A request going up that an in-process component answers (the editor's unsaved files): the answer goes back to `from`. */
  private answeredOnTheWay(from: Connection, view: MethodView, hop: Hop): boolean {
    if (view.kind !== "request" || !hop.answers.has(view.method)) return false;
    const message = this.parsedOrAnswered(from, view);
    if (message === null) return true;
    for (const component of hop.components) {
      const answer = component.answerUpstream?.(message, view.id ?? null) ?? null;
      if (answer === null) continue;
      this.send(from, from, answer);
      return true;
    }
    return false;
  }

  /** The message as the in-process components on the way down leave it; null when it had to be read and could not be (answered). */
  private rewritten(from: Connection, view: MethodView, hop: Hop): MethodView | null {
    if (!hop.rewrites.has(view.method)) return view;
    const message = this.parsedOrAnswered(from, view);
    if (message === null) return null;
    let current: WireMessage | null = null;
    for (const component of hop.components) current = component.rewriteDownstream(current ?? message) ?? current;
    return current === null ? view : changedView(view, current, view.method);
  }

  /** A proxy receives `initialize` plain from its predecessor as `<dialect>/initialize`; null when it had to be read and could not be (answered). */
  private renamedForProxy(from: Connection, view: MethodView, to: Connection, successor: string | null): MethodView | null {
    if (view.method !== INITIALIZE || to.role !== "proxy" || successor !== null) return view;
    const message = this.parsedOrAnswered(from, view);
    const method = this.proxyMethods.initialize;
    return message === null ? null : changedView(view, { ...message, method }, method);
  }

  /**
   * Sends a message from `from` on to `to`, in a `successor` envelope when
   * there is one (a proxy receives its successor's messages, and the outer
   * conductor ours in proxy mode, that way). Its bytes: the line as it came
   * when nothing changes (a plain notification), its body spliced when only
   * the outside does, serialised otherwise (parsed first if it was not). A
   * request gets a fresh id on `to`, remembered for its answer. A full
   * receiver holds the sender back until it drains.
   */
  private deliver(from: Connection, to: Connection, view: MessageView, successor: string | null, onAnswer?: AnswerWatcher): void {
    if (view.line !== null && successor === null && view.kind === "notification") return this.send(from, to, view.line);
    const content = spliceableBody(view, successor !== null) ?? this.parsedOrAnswered(from, view);
    if (content === null) return;
    const id = view.kind === "request" ? this.requests.remember(from, to, view.id ?? null, onAnswer) : undefined;
    this.send(from, to, Buffer.isBuffer(content) ? encodeBody(content, id, successor) : encodeMessage(content, id, successor, null));
  }

  /** The line's message; null after answering its sender why it cannot be read. */
  private parsedOrAnswered(from: Connection, view: MessageView): WireMessage | null {
    const parsed = view.parse();
    if (parsed.ok) return parsed.message;
    from.send(errorResponse(parsed.id, parsed.error));
    return null;
  }

  /** The next process from `place`, and the in-process components on the way. */
  private nextHop({ position, direction }: Place): Hop {
    const hops = this.hops[direction];
    return (hops[position + 1] ??= this.findHop(position, direction));
  }

  /** The place at `position` going `direction`: one object each, not one per line. */
  private place(position: number, direction: Direction): Place {
    return (this.places[direction][position + 1] ??= { position, direction });
  }

  private readonly places: Record<Direction, Place[]> = { down: [], up: [] };

  /** nextHop's answers by direction and position + 1: the chain does not change. */
  private readonly hops: Record<Direction, Hop[]> = { down: [], up: [] };

  private findHop(position: number, direction: Direction): Hop {
    const step = direction === "down" ? 1 : -1;
    const components: InProcessComponent[] = [];
    let to = this.upstream;
    for (let target = position + step; target >= 0 && target < this.nodes.length; target += step) {
      const node = this.nodes[target]!;
      if (node.kind === "process") {
        to = node.connection;
        break;
      }
      components.push(node.component);
    }
    const methods = (sets: Array<Iterable<string>>) => new Set(sets.flatMap((set) => [...set]));
    return {
      to,
      components,
      rewrites: methods(components.map((c) => c.rewrites)),
      answers: methods(components.map((c) => c.answers ?? [])),
      observes: methods(components.map((c) => c.observes ?? [])),
    };
  }

  /** The envelope method `to` receives messages going `direction` in, or null when they go plain. */
  private successorMethod(to: Connection, direction: Direction): string | null {
    if (direction === "up" && to.role === "proxy") return this.proxyMethods.successor;
    if (direction === "down" && to.role === "upstream") return this.upstreamMethods.successor;
    return null;
  }

  private acceptsEnvelopes(from: Connection): boolean {
    return from.role === "proxy" || (from === this.upstream && this.options.mode === "proxy");
  }

  private send(from: Connection, to: Connection, line: string | Buffer): void {
    if (!to.send(line)) from.holdUntilDrained(to);
  }

  /**
   * An answer goes back to where its request came from, with the id it had
   * there. The agent's answers are read when they may need explaining (see
   * mustReadAgentAnswer); an answer to no request we sent is logged and dropped.
   */
  private routeResponse(from: Connection, view: LineView): void {
    const key = view.numericId;
    if (!this.requests.isWaiting(from, key)) {
      if (this.parsedOrAnswered(from, view) !== null) this.options.log(`${from.name} answered unknown request id ${idJson(view.id ?? null)}; dropped`);
      return;
    }
    const body = spliceableBody(view, false);
    const mustRead = body === null || (from.role === "agent" && this.mustReadAgentAnswer(view, body));
    const message = mustRead ? this.parsedOrAnswered(from, view) : null;
    const content = body ?? message;
    if ((mustRead && message === null) || content === null) return;
    const request = this.requests.take(from, key)!;
    const explained = from.role === "agent" && message !== null ? this.explainAgentAnswer(from, message) : null;
    this.noteAnswered(from);
    if (explained !== null) this.send(from, request.origin, errorResponse(request.originId, explained));
    else
      this.send(
        from,
        request.origin,
        Buffer.isBuffer(content) ? plainFromBody(content, request.originId) : encodeMessage(content, request.originId, null, null),
      );
    // After the answer went on: whoever watches it never delays it.
    request.onAnswer?.(() => message ?? this.parsedAnswer(view));
  }

  private parsedAnswer(view: LineView): WireMessage | null {
    const parsed = view.parse();
    return parsed.ok ? parsed.message : null;
  }

  /**
   * Which of the agent's answers must be read: every one already parsed; of
   * the others, its errors and its initialize answer (until seen). Two byte
   * checks per answer.
   */
  private mustReadAgentAnswer(view: LineView, body: Buffer): boolean {
    if (view.isParsed) return true;
    return body.subarray(0, ERROR_MEMBER.length).equals(ERROR_MEMBER) || (this.agentNotes.waiting && body.includes(AUTH_METHODS_MEMBER));
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
        ...(this.options.env ? { env: this.options.env } : {}),
      });
      return explained;
    }
    // An error that already says what to do (data.details: the setup agent relaying its chosen agent's) passes as it is.
    if (error.code !== AUTH_REQUIRED_CODE || (isObject(error.data) && typeof error.data.details === "string")) return null;
    // Its own name first: the command may start with a wrapper (runuser, env) whose words mention others.
    const login = (knownAgentFor([this.agentNotes.name ?? ""]) ?? knownAgentFor(command))?.login;
    const chooser = chooseAgentHint(this.options.env);
    const explained = explainAuthRequired({
      componentName: from.name,
      command,
      notes: this.agentNotes,
      error: { code: error.code, message: error.message, data: error.data },
      ...(login ? { login } : {}),
      ...(chooser ? { alsoTry: chooser } : {}),
    });
    this.options.log(explained.data.details);
    return explained;
  }

  /** Where the agent's stderr stood at its last answer: an error is explained by what it wrote since. */
  private agentStderrMark = 0;

  private noteAnswered(from: Connection): void {
    if (from.role === "agent") this.agentStderrMark = (from as Connection & { stderrTail?: StderrTail }).stderrTail?.total ?? 0;
  }

  private routeCancel(from: Connection, view: LineView): void {
    const message = this.parsedOrAnswered(from, view);
    if (message === null) return;
    const params = isObject(message.params) ? message.params : {};
    const forwarded = this.requests.whereForwarded(from, params.requestId);
    if (forwarded === undefined) return; // already answered: nothing to cancel
    this.send(from, forwarded.target, JSON.stringify({ ...message, params: { ...params, requestId: forwarded.id } }));
  }
}

/** A message no component observes: it goes on at once. */
const NOT_OBSERVED: { hold?: Promise<void>; answered?: AnswerWatcher } = {};

const ERROR_MEMBER = Buffer.from('"error":');
const AUTH_METHODS_MEMBER = Buffer.from('"authMethods":');

/** A body (splice.ts) behind `id`, plain or in a `successor` envelope. */
function encodeBody(body: Buffer, id: IdLike | undefined, successor: string | null): Buffer {
  return successor === null ? plainFromBody(body, id) : envelopeFromBody(body, id, successor);
}
