// The agent's questions (ACP elicitation, docs/webchat.md: elicitation): an
// `elicitation/create` becomes a card in the chat, a form of bounded fields or
// an http(s) address to open, and waits for the page's answer; the answer's
// values go to the agent and nowhere else (the transcript keeps only what
// became of the card). A schema the chat cannot show safely, or an address
// that is not http(s), is refused with an error naming why. Pending questions
// are cancelled with the turn and when the agent ends.

import { RequestError, type CreateElicitationRequest, type CreateElicitationResponse } from "@agentclientprotocol/sdk";
import type { Logger } from "../../acp-wire/src/index.js";
import type { TranscriptEvent } from "../page/protocol.js";
import { checkContent, elicitationFields, openableUrl, type ElicitationField, type ElicitationValue } from "../page/elicitation-fields.js";

/** At most this many questions wait at once; more are refused (an agent cannot pile up cards). */
const MAX_PENDING = 8;
const MESSAGE_CHARS = 4_000;

type Action = "accept" | "decline" | "cancel";

interface Pending {
  answer(response: CreateElicitationResponse): void;
  /** A form's fields (the answer is checked against them); none for a URL. */
  fields?: ElicitationField[];
  /** A URL question's id from the agent, which `elicitation/complete` names. */
  elicitationId?: string;
}

export class Elicitations {
  private readonly pending = new Map<string, Pending>();
  /** URL questions the user accepted, by the agent's elicitationId: `elicitation/complete` marks their card done. */
  private readonly opened = new Map<string, string>();
  private count = 0;

  constructor(
    private readonly onEvent: (event: TranscriptEvent) => void,
    private readonly log: Logger,
  ) {}

  /** `elicitation/create`: shows the card and resolves with the user's answer (or cancel). */
  create(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    const message = typeof params.message === "string" ? params.message.slice(0, MESSAGE_CHARS) : "";
    if (this.pending.size >= MAX_PENDING) return this.refuse(`the agent already waits for ${MAX_PENDING} answers`);
    const id = `elicitation-${++this.count}`;
    let shown: TranscriptEvent;
    let pending: Omit<Pending, "answer">;
    if (params.mode === "form" && "requestedSchema" in params) {
      const read = elicitationFields(params.requestedSchema);
      if ("refused" in read) return this.refuse(read.refused);
      shown = { kind: "elicitation", id, message, mode: "form", fields: read.fields };
      pending = { fields: read.fields };
    } else if (params.mode === "url" && "url" in params) {
      const url = openableUrl(params.url);
      if (!url) return this.refuse(`the chat opens only http and https addresses, not ${JSON.stringify(String(params.url).slice(0, 200))}`);
      shown = { kind: "elicitation", id, message, mode: "url", url: url.href };
      pending = { elicitationId: String(params.elicitationId) };
    } else {
      return this.refuse(`the chat does not know the elicitation mode ${JSON.stringify(String(params.mode).slice(0, 80))}`);
    }
    return new Promise((resolve) => {
      this.pending.set(id, { ...pending, answer: resolve });
      signal.addEventListener("abort", () => this.settle(id, "cancel"));
      this.onEvent(shown);
    });
  }

  /** The page's answer to card `id`; a form's content that does not fit its fields is refused (the card stays open). */
  answer(id: string, action: unknown, content: unknown): void {
    const pending = this.pending.get(id);
    if (!pending) return this.log(`ignored an answer to an elicitation that is not waiting: ${JSON.stringify(id).slice(0, 80)}`);
    if (action !== "accept" && action !== "decline" && action !== "cancel")
      return this.log(`ignored an elicitation answer with action ${JSON.stringify(action)}`);
    if (action !== "accept" || !pending.fields) return this.settle(id, action);
    const checked = checkContent(pending.fields, content);
    if ("problem" in checked) {
      this.onEvent({ kind: "notice", message: `The answer was not sent: ${checked.problem}.` });
      return;
    }
    this.settle(id, "accept", checked.content);
  }

  /** `elicitation/complete`: the agent says the URL flow the user opened is finished. */
  complete(elicitationId: string): void {
    const id = this.opened.get(elicitationId);
    if (id === undefined) return this.log(`ignored elicitation/complete for an address the user did not open: ${JSON.stringify(elicitationId).slice(0, 80)}`);
    this.opened.delete(elicitationId);
    this.onEvent({ kind: "elicitationDone", id, action: "complete" });
  }

  /** The turn was cancelled or the agent ended: every open question is answered `cancel`. */
  cancelAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, "cancel");
  }

  private settle(id: string, action: Action, content?: Record<string, ElicitationValue>): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (action === "accept" && pending.elicitationId !== undefined) {
      this.opened.set(pending.elicitationId, id);
      // An agent that never says complete: the oldest are forgotten.
      for (const old of this.opened.keys()) if (this.opened.size > MAX_PENDING * 8) this.opened.delete(old);
    }
    pending.answer(action === "accept" && content ? { action, content } : { action });
    this.onEvent({ kind: "elicitationDone", id, action });
  }

  private refuse(why: string): Promise<never> {
    this.log(`refused an elicitation: ${why}`);
    this.onEvent({ kind: "error", message: `The agent asked a question the chat cannot show: ${why}.` });
    return Promise.reject(RequestError.invalidParams(undefined, why));
  }
}
