// Running under a conductor (the Proxy Chains rules in docs/proxy.md): the conductor speaks to us on stdio.
// Messages from the client arrive plain and are forwarded to our successor in
// an envelope; envelopes from the successor are opened and sent on toward the
// client. Responses and $/cancel_request are echoed unchanged: every request we
// send reuses the id of the request we received (ids from one sender are
// unique), so the answer to ours is, byte for byte, the answer to theirs.
// One route over a lazy view of each line (acp-wire's line-view.ts), as the
// conductor's router takes: a line laid out as JSON.stringify writes messages is
// wrapped and opened by splicing its bytes, and parsed only for prompts, initialize,
// cancellations and the agent's file requests (what we answer or echo ourselves is read
// whole first); a line in any other layout is parsed once.

import type { Readable, Writable } from "node:stream";
import {
  CANCEL_REQUEST,
  INITIALIZE,
  MAX_MESSAGE_BYTES,
  DEFAULT_PROXY_DIALECT,
  LineWriter,
  changedView,
  dialectMethods,
  encodeMessage,
  envelopeFromBody,
  errorResponse,
  hasMethod,
  oversizedLineError,
  plainFromBody,
  proxyMethodRole,
  readLine,
  readLines,
  rpcError,
  spliceableBody,
  type IdLike,
  type LineView,
  type Logger,
  type MessageView,
  type MethodView,
  type DialectMethods,
  type ProxyDialect,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import { INJECTED_METHODS, type EditorContextInjector } from "./injector.js";
import { FILE_METHODS, answerLine } from "./unsaved-files.js";

export const NO_SUCCESSOR_HELP =
  "symposium-editor-context is an ACP proxy with no agent behind it. Run it under a conductor " +
  "(which initialises it with proxy/initialize or _proxy/initialize), or let it start the agent: " +
  "symposium-editor-context -- <agent command> [args...]";

export interface ChainedProxyOptions {
  injector: EditorContextInjector;
  input: Readable;
  output: Writable;
  log: Logger;
  maxMessageBytes?: number;
}

/** Serves one conductor connection until its input ends. */
export async function runChainedProxy(options: ChainedProxyOptions): Promise<void> {
  const out = new LineWriter(options.output);
  const input = options.input;
  // Everything goes out on one stdout: while it is full, stop reading stdin (bounded memory).
  const send = (line: string | Buffer): void => {
    if (!out.writeLine(line) && !input.isPaused()) {
      input.pause();
      out.onceDrained(() => input.resume());
    }
  };
  const router = new ChainedProxyRouter(options.injector, send, options.log);
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  await readLines(input, maxBytes, {
    onLine: (line) => router.receive(line),
    onOversizedLine: (bytes) => send(errorResponse(null, oversizedLineError(bytes, maxBytes))),
  });
}

export class ChainedProxyRouter {
  /** The methods of the dialect the conductor initialised us with. */
  private methods: DialectMethods = dialectMethods(DEFAULT_PROXY_DIALECT);

  constructor(
    private readonly injector: EditorContextInjector,
    private readonly send: (line: string | Buffer) => void,
    private readonly log: Logger,
  ) {}

  /** Answers an unreadable line; echoes answers and cancellations; routes the others by method. */
  receive(line: Buffer): void {
    const view = readLine(line);
    if (!view.ok) return this.send(errorResponse(view.id, view.error));
    if (!hasMethod(view)) return this.send(line);
    // What we echo or answer ourselves is read whole first: a malformed one gets its parse error, never our reply.
    const ours = view.method === CANCEL_REQUEST || view.method === INITIALIZE;
    if (ours && this.parsedOrAnswered(view) === null) return;
    if (view.method === CANCEL_REQUEST) return this.send(line);
    const role = proxyMethodRole(view.method);
    if (role?.role === "successor") return this.fromSuccessor(view);
    if (role?.role === "initialize") return this.initialize(view, role.dialect);
    if (view.method === INITIALIZE && view.kind === "request") return this.refuseInitialize(view);
    const rewritten = this.rewritten(view);
    if (rewritten !== null) this.toSuccessor(view, rewritten);
  }

  /** `<dialect>/initialize` from the conductor: the plain `initialize` it stands for goes on, and we answer in its dialect. */
  private initialize(view: LineView & MethodView, dialect: ProxyDialect): void {
    const message = this.parsedOrAnswered(view);
    if (message === null) return;
    this.methods = dialectMethods(dialect);
    this.toSuccessor(view, changedView(view, { ...message, method: INITIALIZE }, INITIALIZE));
  }

  /** A plain `initialize` means no conductor put us in a chain: say how to run us. */
  private refuseInitialize(view: MessageView): void {
    this.send(errorResponse(view.id ?? null, rpcError("methodNotFound", NO_SUCCESSOR_HELP)));
    this.log(NO_SUCCESSOR_HELP);
  }

  /** A prompt with the editor context in front; any other message as it came. Null when it had to be read and could not be (answered). */
  private rewritten(view: MethodView): MethodView | null {
    if (!INJECTED_METHODS.has(view.method)) return view;
    const message = this.parsedOrAnswered(view);
    if (message === null) return null;
    const rewritten = this.injector.rewrite(message);
    return rewritten === null ? view : changedView(view, rewritten, view.method);
  }

  /** `inner` to our successor, in an envelope carrying `outer`'s id (exactly as it was written) if it has one. */
  private toSuccessor(outer: MessageView, inner: MessageView): void {
    const id = outer.kind === "request" ? outer.id : undefined;
    const successor = this.methods.successor;
    const body = spliceableBody(inner, true);
    if (body !== null) return this.send(envelopeFromBody(body, id, successor));
    const message = this.parsedOrAnswered(inner);
    if (message !== null) this.send(encodeMessage(message, id, successor, null));
  }

  /** Our successor's message, out of its envelope, toward the client; the agent's file requests may be answered here (unsaved-files.ts). */
  private fromSuccessor(envelope: LineView): void {
    const inner = envelope.open();
    if (!inner.ok) {
      if (inner.id !== undefined) this.send(errorResponse(inner.id, inner.error));
      else this.log(`dropped a malformed ${String(envelope.method)} notification`);
      return;
    }
    const id = envelope.kind === "request" ? envelope.id : undefined;
    if (id !== undefined && FILE_METHODS.has(inner.method) && this.answeredHere(inner, id)) return;
    const body = spliceableBody(inner, false);
    if (body !== null) return this.send(plainFromBody(body, id));
    const message = this.parsedOrAnswered(inner);
    if (message !== null) this.send(encodeMessage(message, id, null, null));
  }

  /**
   * Whether the agent's file request `inner` (its envelope's id `id`) was answered here: from the editor's
   * unsaved buffers, or with its parse error (read whole, like every line an answer rests on).
   */
  private answeredHere(inner: MessageView, id: IdLike): boolean {
    const message = this.parsedOrAnswered(inner);
    const answer = message === null ? null : this.injector.unsavedFiles.answer(message);
    if (answer !== null) this.send(answerLine(id, answer));
    return message === null || answer !== null;
  }

  /** The view's message; null after answering why it cannot be read. */
  private parsedOrAnswered(view: MessageView): WireMessage | null {
    const parsed = view.parse();
    if (parsed.ok) return parsed.message;
    this.send(errorResponse(parsed.id, parsed.error));
    return null;
  }
}
