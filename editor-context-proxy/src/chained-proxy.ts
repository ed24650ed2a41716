// Running under a conductor (contract 4): the conductor speaks to us on stdio.
// Messages from the client arrive plain and are forwarded to our successor in
// an envelope; envelopes from the successor are opened and sent on toward the
// client. Responses and $/cancel_request are echoed unchanged: every request we
// send reuses the id of the request we received (ids from one sender are
// unique), so the answer to ours is, byte for byte, the answer to theirs.

import type { Readable, Writable } from "node:stream";
import { CANCEL_REQUEST, INITIALIZE, MAX_MESSAGE_BYTES, errorResponse, messageKind, oversizedLineError, parseLine, requestId, rpcError, type WireMessage, type Logger, LineWriter, readLines, DEFAULT_PROXY_DIALECT, dialectMethods, proxyMethodRole, type ProxyDialect, envelopeFromBody, envelopeInnerBody, messageBody, plainFromBody, MALFORMED_ENVELOPE, openEnvelope, wrapInEnvelope } from "../../acp-wire/src/index.js";
import type { EditorContextInjector } from "./injector.js";

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
  const router = new ChainedProxyRouter(options.injector, (line) => out.writeLine(line), options.log);
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  await readLines(options.input, maxBytes, {
    onLine: (line) => router.receive(line),
    onOversizedLine: (bytes) => out.writeLine(errorResponse(null, oversizedLineError(bytes, maxBytes))),
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
    const parsed = parseLine(line);
    if (!parsed.ok) {
      this.send(errorResponse(null, parsed.error));
      return;
    }
    const message = parsed.message;
    const kind = messageKind(message);
    if (kind === "response" || message.method === CANCEL_REQUEST) {
      this.send(line);
      return;
    }
    const role = proxyMethodRole(message.method);
    if (role?.role === "initialize") {
      this.dialect = role.dialect;
      this.toSuccessor(message, { ...message, method: INITIALIZE }, null);
    } else if (role?.role === "successor") {
      this.fromSuccessor(message, line);
    } else if (message.method === INITIALIZE && kind === "request") {
      this.send(errorResponse(requestId(message), rpcError("methodNotFound", NO_SUCCESSOR_HELP)));
      this.log(NO_SUCCESSOR_HELP);
    } else {
      const rewritten = this.injector.rewrite(message);
      this.toSuccessor(message, rewritten ?? message, rewritten === null ? line : null);
    }
  }

  /**
   * Wraps `inner` in an envelope that carries `outer`'s id, if it has one.
   * `raw` is `inner`'s original line when it is unchanged, for splicing.
   */
  private toSuccessor(outer: WireMessage, inner: WireMessage, raw: Buffer | null): void {
    const successor = dialectMethods(this.dialect).successor;
    const body = raw === null ? null : messageBody(raw, inner);
    if (body !== null) {
      this.send(envelopeFromBody(body, outer.id, successor));
      return;
    }
    this.send(JSON.stringify(wrapInEnvelope(inner, outer.id, successor)));
  }

  private fromSuccessor(envelope: WireMessage, raw: Buffer): void {
    const body = envelopeInnerBody(raw, envelope);
    if (body !== null) {
      this.send(plainFromBody(body, envelope.id));
      return;
    }
    const message = openEnvelope(envelope);
    if (message !== null) this.send(JSON.stringify(message));
    else if ("id" in envelope) this.send(errorResponse(requestId(envelope), MALFORMED_ENVELOPE));
    else this.log(`dropped a malformed ${String(envelope.method)} notification`);
  }
}
