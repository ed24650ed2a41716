// A lazy view of one JSON-RPC line, for routers: its kind, method and id, and the body they can
// splice (splice.ts), read from its first bytes when it is laid out as JSON.stringify writes
// messages (canonical-line.ts); the line is parsed only when a decision needs the message, and
// then once. A line in any other layout is parsed as it is read. One route over this view makes
// the same decisions whichever way a line was laid out.

import { canonicalHead, openEnvelopeLine, type CanonicalHead, type RawId } from "./canonical-line.js";
import { openEnvelope, MALFORMED_ENVELOPE } from "./envelope.js";
import {
  exactId,
  isNotification,
  isRequest,
  messageKind,
  parseLine,
  type ErrorResponse,
  type IdLike,
  type MessageKind,
  type ParsedLine,
  type WireMessage,
} from "./jsonrpc.js";
import { envelopeInnerBody, mayFollowId, messageBody } from "./splice.js";

/** A message as a router reads it: a whole line, or the message inside an envelope line. */
export interface MessageView {
  readonly kind: MessageKind;
  /** A request's or notification's method; null for an answer. */
  readonly method: string | null;
  /** A request's or answer's id exactly as written (see RawId); undefined for a notification. */
  readonly id: IdLike | undefined;
  /** Its members after jsonrpc and id, to splice behind a new id or into an envelope; null: serialise the message. */
  readonly body: Buffer | null;
  /** The whole line, when it may pass on as it came (not the inside of an envelope). */
  readonly line: Buffer | null;
  /** The message, parsed on first need; or why the line cannot be read. */
  parse(): ParsedLine;
}

/** A request or notification: a view with a method. */
export type MethodView = MessageView & { readonly method: string };

export function hasMethod<View extends MessageView>(view: View): view is View & { readonly method: string } {
  return view.method !== null;
}

/**
 * `original` as changed on the way (rewritten, renamed to `method`): the same
 * kind and exact id, serialised from `message`.
 */
export function changedView(original: MessageView, message: WireMessage, method: string): MethodView {
  return new ChangedView(original, message, method);
}

/**
 * The view's body when it can go on as it is (splice.ts): into an envelope, or
 * behind the id its receiver gets (a notification has none; a body holding
 * `"id"` cannot follow one). Null: serialise the message.
 */
export function spliceableBody(view: MessageView, enveloped: boolean): Buffer | null {
  const body = view.body;
  return body !== null && (enveloped || view.kind === "notification" || mayFollowId(body)) ? body : null;
}

/** Why a line cannot be routed: the error to answer, with the id to answer it with. */
export interface LineError {
  ok: false;
  error: ErrorResponse;
  id: IdLike;
}

/**
 * Reads a line's routing facts: from its bytes when they give the kind and
 * the method (a method with escapes is parsed), otherwise by parsing it.
 */
export function readLine(line: Buffer): LineView | LineError {
  const head = canonicalHead(line);
  if (head !== null && (head.kind === "response" || head.method !== null)) return new HeadView(line, head);
  const parsed = parseLine(line);
  return parsed.ok ? new ParsedView(line, parsed.message) : parsed;
}

/** A whole line: read from its first bytes (HeadView) or parsed (ParsedView). */
export abstract class LineView implements MessageView {
  readonly ok = true;

  abstract readonly kind: MessageKind;
  abstract readonly method: string | null;
  abstract readonly id: IdLike | undefined;
  /** The id as a number, NaN when it is none: how a router finds the request it numbered. */
  abstract readonly numericId: number;
  abstract readonly body: Buffer | null;
  protected parsed: ParsedLine | null = null;

  constructor(readonly line: Buffer) {}

  /** Whether the line has been parsed (so its message costs nothing more). */
  get isParsed(): boolean {
    return this.parsed !== null;
  }

  parse(): ParsedLine {
    return (this.parsed ??= parseLine(this.line));
  }

  /**
   * The message inside this envelope line, with the envelope's id; or the
   * error to answer: the line's own when it does not parse, MALFORMED_ENVELOPE
   * when its params are not a message (id undefined: a notification, nobody
   * to answer).
   */
  open(): (MethodView & { readonly ok: true }) | { ok: false; error: ErrorResponse; id: IdLike | undefined } {
    const inner = this.openBytes();
    if (inner !== null) return new InnerView(this, inner.method, inner.body, null);
    const parsed = this.parse();
    if (!parsed.ok) return parsed;
    const opened = openEnvelope(parsed.message);
    if (opened === null || !(isRequest(opened) || isNotification(opened))) return { ok: false, error: MALFORMED_ENVELOPE, id: this.id };
    return new InnerView(this, opened.method, envelopeInnerBody(this.line, parsed.message), opened);
  }

  /** The envelope's inner method and body from the bytes, or null. */
  protected abstract openBytes(): { method: string; body: Buffer } | null;
}

/** A line whose kind, method and id its first bytes give (canonical-line.ts); its body is cut when asked for. */
class HeadView extends LineView {
  readonly kind: MessageKind;
  readonly method: string | null;
  readonly id: RawId | undefined;
  /** Where the body starts (splice.ts). */
  readonly bodyStart: number;

  constructor(line: Buffer, head: CanonicalHead) {
    super(line);
    this.kind = head.kind;
    this.method = head.kind === "response" ? null : head.method;
    this.id = head.kind === "notification" ? undefined : head.id;
    this.bodyStart = head.bodyStart;
  }

  get numericId(): number {
    return this.id === undefined ? Number.NaN : Number(this.id.json);
  }

  get body(): Buffer {
    return this.line.subarray(this.bodyStart);
  }

  protected openBytes(): { method: string; body: Buffer } | null {
    return openEnvelopeLine(this.line, this);
  }
}

/** A line in another layout, parsed as it was read. */
class ParsedView extends LineView {
  readonly kind: MessageKind;
  readonly method: string | null;

  constructor(
    line: Buffer,
    private readonly message: WireMessage,
  ) {
    super(line);
    this.parsed = { ok: true, message };
    this.kind = messageKind(message);
    this.method = isRequest(message) || isNotification(message) ? message.method : null;
  }

  get id(): IdLike | undefined {
    return isNotification(this.message) ? undefined : exactId(this.line, this.message);
  }

  get numericId(): number {
    return typeof this.message.id === "number" ? this.message.id : Number.NaN;
  }

  get body(): Buffer | null {
    return messageBody(this.line, this.message);
  }

  protected openBytes(): null {
    return null;
  }
}

/** The message inside an envelope line: its method and body from the bytes, or from the parsed envelope. */
class InnerView implements MethodView {
  readonly ok = true;
  readonly line = null;
  readonly kind: MessageKind;

  constructor(
    private readonly envelope: LineView,
    readonly method: string,
    readonly body: Buffer | null,
    /** The message, when the envelope was opened by parsing it. */
    private opened: WireMessage | null,
  ) {
    this.kind = envelope.kind;
  }

  get id(): IdLike | undefined {
    return this.envelope.id;
  }

  parse(): ParsedLine {
    if (this.opened !== null) return { ok: true, message: this.opened };
    const parsed = this.envelope.parse();
    if (!parsed.ok) return parsed;
    this.opened = openEnvelope(parsed.message);
    return this.opened === null ? { ok: false, error: MALFORMED_ENVELOPE, id: this.id ?? null } : { ok: true, message: this.opened };
  }
}

class ChangedView implements MethodView {
  readonly line = null;
  readonly body = null;
  readonly kind: MessageKind;
  readonly id: IdLike | undefined;

  constructor(
    original: MessageView,
    private readonly message: WireMessage,
    readonly method: string,
  ) {
    this.kind = original.kind;
    this.id = original.id;
  }

  parse(): ParsedLine {
    return { ok: true, message: this.message };
  }
}
