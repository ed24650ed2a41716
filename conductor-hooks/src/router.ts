// Routes messages along the chain: client ⇄ component 0 ⇄ … ⇄ agent
// (the Proxy Chains rules in docs/proxy.md). Every line is parsed once and
// routed on its message; a message that goes on unchanged leaves as the bytes
// it came in (its ids kept, below), so what no component touches reaches the
// other side byte for byte.
//
// Encodings by receiver: a proxy gets messages from its predecessor plain
// (`initialize` becomes `<dialect>/initialize`) and messages from its
// successor in a `<dialect>/successor` envelope; the agent and the client get
// everything plain. In proxy mode the chain's successor is the outer
// conductor, reached through envelopes on our own stdio.
//
// Request ids: a connection that receives requests from one sender only (the
// agent, the client; in proxy mode the outer conductor) gets them with the
// ids that sender gave them, which are unique already. A proxy process hears
// from both sides, so its requests get fresh ids (request-table.ts).
// $/cancel_request is hop-local and follows its request one hop.

import {
  CANCEL_REQUEST,
  INITIALIZE,
  MALFORMED_ENVELOPE,
  dialectMethods,
  encodeMessage,
  envelopeInnerBody,
  errorResponse,
  exactId,
  idJson,
  isObject,
  isRequest,
  isResponse,
  messageBody,
  openEnvelope,
  oversizedLineError,
  parseLine,
  plainInitialize,
  proxyMethodRole,
  rpcError,
  type DialectMethods,
  type ErrorResponse,
  type IdLike,
  type ProxyDialect,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import type { Connection } from "./connections.js";
import { RequestTable, type AnswerWatcher } from "./request-table.js";
import type { Trace } from "./trace.js";

/** A component that runs inside the conductor, at its place in the chain. Each hook is optional. */
/** A component's stdout lines that are no message, logged at most this many (a broken one could print without end). */
const STRAY_LINES_LOGGED = 50;
// eslint-disable-next-line no-control-regex -- matching terminal escapes is the point
const TERMINAL_ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007]*\u0007|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

export interface InProcessComponent {
  name: string;
  /** The methods whose messages `rewriteDownstream` may change. */
  rewrites?: ReadonlySet<string>;
  /** A message going down, changed (a copy), or null to let it go on as it is. */
  rewriteDownstream?(message: WireMessage): WireMessage | null;
  /** Agent→client request methods `answerUpstream` may answer in the client's place. */
  answers?: ReadonlySet<string>;
  /** The whole answer line to request `message` (its id `id`) going up, or null to let it go on. */
  answerUpstream?(message: WireMessage, id: IdLike): string | null;
  /** Client→agent request methods `observe` sees before they go on. */
  observes?: ReadonlySet<string>;
  /** Sees a request going down; what it returns may hold it back a while and hears of its answer. */
  observe?(request: WireMessage): Observation | null;
  /** Sees each answer coming back up from the process after it; returns the answer to pass on instead, or null. */
  reviseAnswer?(answer: WireMessage): WireMessage | null;
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

/** `agent`: the chain ends in the agent. `proxy`: the chain is itself a proxy, its successor the outer conductor on our stdio. */
export type ChainMode = "agent" | "proxy";

type Direction = "down" | "up";

interface Hop {
  to: Connection;
  components: InProcessComponent[];
  /** The methods the components on the way may rewrite, answer or observe: only these are offered to them. */
  rewrites: ReadonlySet<string>;
  answers: ReadonlySet<string>;
  observes: ReadonlySet<string>;
}

/** Where a message sets off from: a chain position (-1: the client's side), and which way it goes. */
interface Place {
  position: number;
  direction: Direction;
}

/**
 * A message on its way. `line`: the bytes it came in, while it goes on
 * unchanged and plain; `body`: its members after jsonrpc and id as bytes, when
 * known (an opened envelope's), for splice.ts to reuse; `id`: a request's id
 * exactly as its sender wrote it.
 */
interface Traveling {
  message: WireMessage;
  line: Buffer | null;
  body: Buffer | null;
  id?: IdLike;
}

export interface RouterOptions {
  nodes: ChainNode[];
  upstream: Connection;
  mode: ChainMode;
  /** Dialect spoken to proxy components. */
  dialect: ProxyDialect;
  trace: Trace | null;
  log: (message: string) => void;
  /** In proxy mode, what a plain `initialize` from our client is refused with (it means no conductor is in front of us). */
  noSuccessorHelp?: string;
}

export class Router {
  private readonly nodes: ChainNode[];
  private readonly upstream: Connection;
  /** The methods proxy components are spoken to with. */
  private readonly proxyMethods: DialectMethods;
  /** In proxy mode, those of the dialect the outer conductor initialised us with. */
  private upstreamMethods: DialectMethods;
  private readonly requests = new RequestTable();
  /** The connections that receive requests from one sender only: they keep that sender's ids. */
  private readonly keepsIds: ReadonlySet<Connection>;
  /** Each process connection's chain position. */
  private readonly positions = new Map<Connection, number>();

  constructor(private readonly options: RouterOptions) {
    this.nodes = options.nodes;
    this.upstream = options.upstream;
    this.proxyMethods = dialectMethods(options.dialect);
    this.upstreamMethods = this.proxyMethods;
    this.nodes.forEach((node, position) => node.kind === "process" && this.positions.set(node.connection, position));
    this.keepsIds = this.soleSenderReceivers();
  }

  /** Per sender held back by an observation: the lines it sent since, in order, with where they set off from. */
  private readonly held = new Map<Connection, Array<{ line: Buffer; place: Place }>>();
  /** How many stray lines each component had logged (STRAY_LINES_LOGGED at most). */
  private readonly strayLines = new Map<Connection, number>();

  /**
   * A component's stdout line that is no message, logged as text: an agent that prints for a person there (Gemini
   * CLI's sign-in address, when it cannot open a browser) is read in the log and by the chat's sign-in card.
   */
  private logStrayLine(from: Connection, line: Buffer): void {
    const count = this.strayLines.get(from) ?? 0;
    if (count >= STRAY_LINES_LOGGED) return;
    // Terminal escapes (Gemini switches to the alternate screen first) and control characters dropped.
    const text = withoutNewline(line).toString("utf8").replace(TERMINAL_ESCAPE, "").replace(CONTROL_CHARACTERS, "").trim();
    if (text === "") return;
    this.strayLines.set(from, count + 1);
    this.options.log(`${from.name} wrote on stdout, not a message: ${text.slice(0, 2000)}`);
  }

  /** A line from our stdio (`framed`: the same with its newline, when at hand). */
  fromUpstream(line: Buffer, framed: Buffer | null = null): void {
    this.receive(this.upstream, framed ?? line, this.place(-1, "down"));
  }

  /** A line from the process at chain position `index`. */
  fromComponent(index: number, line: Buffer, framed: Buffer | null = null): void {
    const node = this.nodes[index];
    if (node?.kind === "process") this.receive(node.connection, framed ?? line, this.place(index, "up"));
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

  /** Answers an unreadable line; routes the others by kind and method. `place` is that of a plain message from `from`. */
  private receive(from: Connection, line: Buffer, place: Place): void {
    const waiting = this.held.get(from);
    if (waiting !== undefined) return void waiting.push({ line, place });
    const parsed = parseLine(line);
    if (!parsed.ok) {
      this.options.trace?.record(from.name, "in", JSON.stringify(withoutNewline(line).toString()));
      if (from === this.upstream) return void from.send(errorResponse(parsed.id, parsed.error));
      // Gemini CLI prints "Enter the authorization code: " with no newline, so its answer follows on the same line.
      const start = line.indexOf("{");
      const message = start > 0 ? line.subarray(start) : null;
      this.logStrayLine(from, message === null ? line : line.subarray(0, start));
      if (message !== null && parseLine(message).ok) return this.receive(from, message, place);
      from.send(errorResponse(parsed.id, parsed.error));
      return;
    }
    this.options.trace?.record(from.name, "in", line);
    const message = parsed.message;
    if (isResponse(message)) return this.routeResponse(from, message, line);
    const traveling: Traveling = { message, line, body: null, ...(isRequest(message) ? { id: exactId(withoutNewline(line), message) } : {}) };
    if (message.method === CANCEL_REQUEST) return this.routeCancel(from, message, line, place);
    const role = proxyMethodRole(message.method);
    if (role?.role === "successor" && this.acceptsEnvelopes(from)) return this.routeInner(from, traveling, place);
    if (from === this.upstream && role?.role === "initialize") return this.routeInitialize(traveling, place);
    if (from === this.upstream && message.method === INITIALIZE && this.options.mode === "proxy") return this.refuseInitialize(traveling);
    this.route(from, traveling, place);
  }

  /**
   * An envelope from `from` (whose plain messages go from `place`): its
   * message goes the other way, toward the agent from a proxy, toward the
   * client from the outer conductor.
   */
  private routeInner(from: Connection, envelope: Traveling, place: Place): void {
    const message = openEnvelope(envelope.message);
    if (message === null) {
      if (envelope.id !== undefined) from.send(errorResponse(envelope.id, MALFORMED_ENVELOPE));
      else this.options.log(`${from.name}: dropped a malformed ${String(envelope.message.method)} notification`);
      return;
    }
    const inner = from === this.upstream ? this.place(this.nodes.length, "up") : this.place(place.position, "down");
    const body = envelope.line === null ? null : envelopeInnerBody(withoutNewline(envelope.line), envelope.message);
    this.route(from, { message, line: null, body, ...(envelope.id !== undefined ? { id: envelope.id } : {}) }, inner);
  }

  /** `<dialect>/initialize` from the outer conductor: the plain `initialize` it stands for, and the dialect to answer in. */
  private routeInitialize(traveling: Traveling, place: Place): void {
    const initialize = plainInitialize(traveling.message)!;
    this.upstreamMethods = dialectMethods(initialize.dialect);
    this.route(this.upstream, { ...traveling, message: initialize.message, line: null, body: null }, place);
  }

  /** A plain `initialize` to a chain that is a proxy: no conductor is in front of it, so there is no agent to reach. */
  private refuseInitialize(traveling: Traveling): void {
    const help = this.options.noSuccessorHelp ?? "this conductor runs as a proxy (`proxy` mode): run it under another conductor";
    this.options.log(help);
    if (traveling.id !== undefined) this.upstream.send(errorResponse(traveling.id, rpcError("methodNotFound", help)));
  }

  /**
   * Moves a message from `place` one process further, through any in-process
   * components on the way (which may answer it going up, or rewrite it going down).
   */
  private route(from: Connection, traveling: Traveling, place: Place): void {
    const hop = this.nextHop(place);
    if (place.direction === "up" && this.answeredOnTheWay(from, traveling, hop)) return;
    const observed = place.direction === "down" ? this.observed(traveling, hop) : NOT_OBSERVED;
    if (observed.hold === undefined) return this.forward(from, traveling, place, hop, observed.answered);
    this.held.set(from, []);
    void observed.hold.then(() => {
      this.forward(from, traveling, place, hop, observed.answered);
      this.release(from);
    });
  }

  /** Rewrites a message going down, renames it for a proxy, and sends it on. */
  private forward(from: Connection, traveling: Traveling, place: Place, hop: Hop, onAnswer: AnswerWatcher | undefined): void {
    const rewritten = place.direction === "down" ? this.rewritten(traveling, hop) : traveling;
    const successor = this.successorMethod(hop.to, place.direction);
    this.deliver(from, hop.to, this.renamedForProxy(rewritten, hop.to, successor), successor, onAnswer);
  }

  /** What the components on the way make of a request they observe: one promise to wait for (all of theirs), and who to tell of its answer. */
  private observed({ message }: Traveling, hop: Hop): Observation {
    if (!isRequest(message) || !hop.observes.has(message.method)) return NOT_OBSERVED;
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
  private answeredOnTheWay(from: Connection, { message, id }: Traveling, hop: Hop): boolean {
    if (!isRequest(message) || !hop.answers.has(message.method)) return false;
    for (const component of hop.components) {
      const answer = component.answerUpstream?.(message, id ?? null) ?? null;
      if (answer === null) continue;
      this.send(from, from, answer);
      return true;
    }
    return false;
  }

  /** The message as the in-process components on the way down leave it. */
  private rewritten(traveling: Traveling, hop: Hop): Traveling {
    if (typeof traveling.message.method !== "string" || !hop.rewrites.has(traveling.message.method)) return traveling;
    let current: WireMessage | null = null;
    for (const component of hop.components) current = component.rewriteDownstream?.(current ?? traveling.message) ?? current;
    return current === null ? traveling : { ...traveling, message: current, line: null, body: null };
  }

  /** A proxy receives `initialize` plain from its predecessor as `<dialect>/initialize`. */
  private renamedForProxy(traveling: Traveling, to: Connection, successor: string | null): Traveling {
    if (traveling.message.method !== INITIALIZE || to.role !== "proxy" || successor !== null) return traveling;
    return { ...traveling, message: { ...traveling.message, method: this.proxyMethods.initialize }, line: null, body: null };
  }

  /**
   * Sends a message from `from` on to `to`, in a `successor` envelope when
   * there is one (a proxy receives its successor's messages, and the outer
   * conductor ours in proxy mode, that way). A request keeps its id when `to`
   * hears from no one else, and gets a fresh one otherwise, remembered for
   * its answer. A full receiver holds the sender back until it drains.
   */
  private deliver(from: Connection, to: Connection, traveling: Traveling, successor: string | null, onAnswer?: AnswerWatcher): void {
    const { id } = traveling;
    const sentId = id === undefined ? undefined : this.requests.remember(from, to, id, this.keepsIds.has(to), onAnswer);
    this.send(from, to, encoded(traveling, sentId, successor));
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
      rewrites: methods(components.map((c) => c.rewrites ?? [])),
      answers: methods(components.map((c) => c.answers ?? [])),
      observes: methods(components.map((c) => c.observes ?? [])),
    };
  }

  /** The connections that only ever receive requests from one other: the hops' targets, counted by sender. */
  private soleSenderReceivers(): Set<Connection> {
    const senders = new Map<Connection, Set<Connection>>();
    const note = (from: Connection, place: Place): void => {
      const to = this.nextHop(place).to;
      senders.set(to, (senders.get(to) ?? new Set()).add(from));
    };
    note(this.upstream, this.place(-1, "down"));
    if (this.options.mode === "proxy") note(this.upstream, this.place(this.nodes.length, "up"));
    this.nodes.forEach((node, position) => {
      if (node.kind !== "process") return;
      note(node.connection, this.place(position, "up"));
      if (node.connection.role === "proxy") note(node.connection, this.place(position, "down"));
    });
    return new Set([...senders].flatMap(([to, from]) => (from.size === 1 ? [to] : [])));
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
   * there, through whatever in-process component revises the answers of the
   * process that gave it (the agent's errors explained); an answer to no request
   * we sent is logged and dropped.
   */
  private routeResponse(from: Connection, message: WireMessage, line: Buffer): void {
    const id = exactId(withoutNewline(line), message);
    const request = this.requests.take(from, id);
    if (request === undefined) return this.options.log(`${from.name} answered unknown request id ${idJson(id)}; dropped`);
    const revised = this.revisedAnswer(from, request.origin, message);
    const answer: Traveling = revised === null ? { message, line, body: null } : { message: revised, line: null, body: null };
    const keptId = idJson(request.originId) === idJson(id);
    this.send(from, request.origin, encoded(answer, keptId ? undefined : request.originId, null, keptId ? id : undefined));
    // After the answer went on: whoever watches it never delays it.
    request.onAnswer?.(() => revised ?? message);
  }

  /** The answer as the components between a process and the asker's side revise it; null when none does. */
  private revisedAnswer(from: Connection, origin: Connection, answer: WireMessage): WireMessage | null {
    const position = this.positions.get(from);
    if (position === undefined || (this.positions.get(origin) ?? -1) > position) return null;
    let revised: WireMessage | null = null;
    for (const component of this.nextHop(this.place(position, "up")).components) revised = component.reviseAnswer?.(revised ?? answer) ?? revised;
    return revised;
  }

  /**
   * A cancellation follows its request one hop, with the id it has there. One for a request we do not know
   * (answered already, or named by an id the sender's own peer gave it: the Rust reference conductor passes
   * the client's on) goes on as it came, to where the sender's requests go: whoever sent that request there
   * may know it, and an id nobody knows is ignored.
   */
  private routeCancel(from: Connection, message: WireMessage, line: Buffer, place: Place): void {
    const params = isObject(message.params) ? message.params : {};
    const forwarded = this.requests.whereForwarded(from, params.requestId);
    if (forwarded === undefined) return this.send(from, this.nextHop(place).to, line);
    if (forwarded.kept) return this.send(from, forwarded.target, line);
    this.send(from, forwarded.target, JSON.stringify({ ...message, params: { ...params, requestId: forwarded.id } }));
  }
}

/** A message no component observes: it goes on at once. */
const NOT_OBSERVED: Observation = {};

/**
 * The line for a message: the bytes it came in when it goes on plain with its
 * own id (`keptId`, or none given), its body spliced behind a new id or into an
 * envelope when the bytes allow (splice.ts), serialised otherwise.
 */
function encoded(traveling: Traveling, id: IdLike | undefined, successor: string | null, keptId: IdLike | undefined = traveling.id): Buffer {
  const { message, line } = traveling;
  const sameId = id === undefined || (keptId !== undefined && idJson(id) === idJson(keptId));
  if (line !== null && successor === null && sameId) return line;
  const body = traveling.body ?? (line === null ? null : messageBody(withoutNewline(line), message));
  return encodeMessage(message, id ?? keptId, successor, body);
}

/** A line without its frame: what splice.ts and the id reader look at. */
function withoutNewline(line: Buffer): Buffer {
  return line[line.length - 1] === 0x0a ? line.subarray(0, line.length - 1) : line;
}
