// Running under a conductor (the Proxy Chains rules in docs/proxy.md): the conductor speaks to us on stdio.
// Messages from the client arrive plain and are forwarded to our successor in
// an envelope; envelopes from the successor are opened and sent on toward the
// client. Responses and $/cancel_request are echoed unchanged: every request we
// send reuses the id of the request we received (ids from one sender are
// unique), so the answer to ours is, byte for byte, the answer to theirs.
// Lines laid out as JSON.stringify writes messages are wrapped and opened by
// splicing their bytes (acp-wire's canonical-line.ts); only prompts,
// initialize and other layouts are parsed.

import type { Readable, Writable } from "node:stream";
import {
  CANCEL_REQUEST,
  INITIALIZE,
  MAX_MESSAGE_BYTES,
  encodeMessage,
  errorResponse,
  exactId,
  isRequest,
  isResponse,
  oversizedLineError,
  parseLine,
  plainInitialize,
  rpcError,
  type WireMessage,
  type Logger,
  LineWriter,
  readLines,
  DEFAULT_PROXY_DIALECT,
  dialectMethods,
  proxyMethodRole,
  type ProxyDialect,
  envelopeInnerBody,
  messageBody,
  MALFORMED_ENVELOPE,
  openEnvelope,
  canonicalHead,
  openEnvelopeLine,
  mayFollowId,
  plainFromBody,
  envelopeFromBody,
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
  private dialect: ProxyDialect = DEFAULT_PROXY_DIALECT;

  constructor(
    private readonly injector: EditorContextInjector,
    private readonly send: (line: string | Buffer) => void,
    private readonly log: Logger,
  ) {}

  receive(line: Buffer): void {
    if (this.forwardUnparsed(line)) return;
    const parsed = parseLine(line);
    if (!parsed.ok) {
      this.send(errorResponse(parsed.id, parsed.error));
      return;
    }
    const message = parsed.message;
    if (isResponse(message) || message.method === CANCEL_REQUEST) {
      this.send(line);
      return;
    }
    const initialize = plainInitialize(message);
    if (initialize !== null) {
      this.dialect = initialize.dialect;
      this.toSuccessor(message, line, initialize.message, null);
    } else if (proxyMethodRole(message.method)?.role === "successor") {
      this.fromSuccessor(message, line);
    } else if (isRequest(message) && message.method === INITIALIZE) {
      this.send(errorResponse(exactId(line, message), rpcError("methodNotFound", NO_SUCCESSOR_HELP)));
      this.log(NO_SUCCESSOR_HELP);
    } else {
      const rewritten = this.injector.rewrite(message);
      this.toSuccessor(message, line, rewritten ?? message, rewritten === null ? line : null);
    }
  }

  /** The parsed route's decisions, from the line's bytes; false when it must be parsed. */
  private forwardUnparsed(line: Buffer): boolean {
    const head = canonicalHead(line);
    if (head === null) return false;
    if (head.kind === "response") return (this.send(line), true);
    const method = head.method;
    if (method === null || method === CANCEL_REQUEST || method === INITIALIZE || INJECTED_METHODS.has(method)) return false;
    const id = head.kind === "request" ? head.id : undefined;
    const role = proxyMethodRole(method);
    if (role?.role === "successor") {
      const inner = openEnvelopeLine(line, head);
      // The agent's file requests may be answered here (unsaved-files.ts): parsed.
      if (inner === null || FILE_METHODS.has(inner.method) || (id !== undefined && !mayFollowId(inner.body))) return false;
      this.send(plainFromBody(inner.body, id));
      return true;
    }
    if (role !== null) return false;
    this.send(envelopeFromBody(line.subarray(head.bodyStart), id, dialectMethods(this.dialect).successor));
    return true;
  }

  /**
   * Wraps `inner` in an envelope that carries `outer`'s id (exactly as it was
   * written), if it has one. `raw` is `inner`'s original line when it is
   * unchanged, for splicing.
   */
  private toSuccessor(outer: WireMessage, outerLine: Buffer, inner: WireMessage, raw: Buffer | null): void {
    const id = isRequest(outer) ? exactId(outerLine, outer) : undefined;
    const body = raw === null ? null : messageBody(raw, inner);
    this.send(encodeMessage(inner, id, dialectMethods(this.dialect).successor, body));
  }

  private fromSuccessor(envelope: WireMessage, raw: Buffer): void {
    const message = openEnvelope(envelope);
    const id = isRequest(envelope) ? exactId(raw, envelope) : undefined;
    const answer = message !== null && id !== undefined ? this.injector.unsavedFiles.answer(message) : null;
    if (answer !== null) this.send(answerLine(id!, answer));
    else if (message !== null) this.send(encodeMessage(message, id, null, envelopeInnerBody(raw, envelope)));
    else if (id !== undefined) this.send(errorResponse(id, MALFORMED_ENVELOPE));
    else this.log(`dropped a malformed ${String(envelope.method)} notification`);
  }
}
