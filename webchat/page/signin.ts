// The sign-in card (docs/webchat.md: sign-in): the agent's auth methods as
// buttons that send `authenticate`, or, for a method that needs a terminal,
// the exact command to run there, or, for an older `env_var` method, the
// variables to set; then "Send again" resends the prompt that failed, in one click.
// A sign-in under way shows what the agent writes meanwhile (an address to
// open, a code), how long the chat waits, and Cancel.

import { h, revealBidi } from "./dom.js";
import type { TranscriptEvent } from "./protocol.js";

export interface SignInActions {
  authenticate(signInId: string, methodId: string): void;
  /** Sends `text` as a new prompt (the one the sign-in interrupted). */
  resend(text: string): void;
  /** Starts the agent afresh (a new conversation): for a sign-in asked before any session, once done in a terminal. */
  retry(): void;
  /** Stops waiting for the pending sign-in on card `signInId`. */
  cancel(signInId: string): void;
}

type SignIn = TranscriptEvent & { kind: "signIn" };
type SignInDone = TranscriptEvent & { kind: "signInDone" };
type SignInProgress = TranscriptEvent & { kind: "signInProgress" };

export function signInCard(event: SignIn, actions: SignInActions): HTMLElement {
  const methods = event.methods.map((method) => {
    const description = method.description ? [h("div", { class: "meta" }, ...revealBidi(method.description))] : [];
    if (method.envVars !== undefined) return envVarRow(method.name, method.envVars, description, event.retryText === undefined);
    if (method.command === undefined) {
      const button = h("button", { class: "signin-method primary", "data-method-id": method.id }, ...revealBidi(method.name));
      button.addEventListener("click", () => {
        const card = button.closest<HTMLElement>(".signin")!;
        for (const each of card.querySelectorAll<HTMLButtonElement>(".signin-method")) each.disabled = true;
        showPending(card, method.name, event.id, actions);
        actions.authenticate(event.id, method.id);
      });
      return h("div", { class: "signin-row" }, button, ...description);
    }
    const copy = h("button", { class: "signin-copy", title: "Copy the command" }, "Copy");
    copy.addEventListener(
      "click",
      () =>
        void navigator.clipboard?.writeText(method.command!).then(
          () => (copy.textContent = "Copied"),
          () => {},
        ),
    );
    return h(
      "div",
      { class: "signin-row terminal-method", "data-method-id": method.id },
      h("div", { class: "signin-name" }, ...revealBidi(method.name)),
      ...description,
      h("div", { class: "meta" }, `Needs a terminal: run this command there, then press ${event.retryText === undefined ? "Try again" : "Send again"}.`),
      h("div", { class: "signin-command-row" }, h("pre", { class: "signin-command" }, ...revealBidi(method.command)), copy),
    );
  });
  // Asked before a session opened: after signing in elsewhere (a terminal), the agent is started again.
  const resend = event.retryText === undefined ? [retryButton(actions)] : [resendButton(event.retryText, actions)];
  return h(
    "div",
    { class: "signin", "data-signin-id": event.id, role: "group", "aria-label": "Sign in" },
    h("div", { class: "signin-title" }, event.message),
    ...methods,
    h("div", { class: "signin-actions" }, ...resend),
    h("div", { class: "meta signin-outcome", role: "status" }),
  );
}

/**
 * The card while its sign-in is pending: which method, that the agent's own
 * output follows (its address or code: on a remote window a browser the agent
 * opens opens on the server, not here), Cancel, and the time limit once known.
 */
function showPending(card: HTMLElement, methodName: string, signInId: string, actions: SignInActions): void {
  card.querySelector(".signin-pending")?.remove();
  card.querySelector(".signin-outcome")!.textContent = "";
  const cancel = h("button", { class: "signin-cancel", title: "Stop waiting for this sign-in" }, "Cancel");
  cancel.addEventListener("click", () => {
    cancel.disabled = true;
    actions.cancel(signInId);
  });
  const pending = h(
    "div",
    { class: "signin-pending", role: "status", "aria-live": "polite" },
    h(
      "div",
      { class: "signin-pending-title" },
      h("span", { class: "signin-spinner", "aria-hidden": "true" }),
      "Signing in with ",
      ...revealBidi(methodName),
      "…",
    ),
    h(
      "div",
      { class: "meta signin-pending-hint" },
      "Waiting for the agent. If it shows an address or a code, it appears here: open the address in a browser yourself.",
    ),
    h("pre", { class: "signin-output", hidden: "" }),
    h("div", { class: "signin-actions" }, cancel),
  );
  card.querySelector(".signin-actions")!.before(pending);
}

/** What the agent wrote so far, and how long the chat waits. */
export function showSignInProgress(card: HTMLElement, event: SignInProgress): void {
  const pending = card.querySelector<HTMLElement>(".signin-pending");
  if (pending === null) return; // a page that attached mid-sign-in has no pending state to fill: the outcome follows
  const minutes = Math.max(1, Math.round(event.limitMs / 60_000));
  pending.querySelector(".signin-pending-hint")!.textContent =
    event.lines.length > 0
      ? `The agent says (open an address in a browser yourself; the chat gives up after ${minutes} min):`
      : `Waiting for the agent (the chat gives up after ${minutes} min). If it shows an address or a code, it appears here.`;
  const output = pending.querySelector<HTMLElement>(".signin-output")!;
  output.textContent = event.lines.join("\n");
  output.hidden = event.lines.length === 0;
}

/**
 * A method that wants variables in the agent's environment (an older `env_var` method): what to set,
 * and no button (authenticate would only fail until they are set; the chat sets no secret itself).
 */
function envVarRow(name: string, vars: string[], description: HTMLElement[], beforeSession: boolean): HTMLElement {
  const names = vars.length > 0 ? vars.join(", ") : "the variables its documentation names";
  const where = "in the environment the chat starts agents with (the shell or the system VS Code was started from)";
  return h(
    "div",
    { class: "signin-row env-method" },
    h("div", { class: "signin-name" }, ...revealBidi(name)),
    ...description,
    h("div", { class: "meta" }, `Set ${names} ${where}, restart the chat, then press ${beforeSession ? "Try again" : "Send again"}.`),
  );
}

/** The method's outcome on its card: signed in (Send again becomes the next step), or why not. */
export function showSignInDone(card: HTMLElement, event: SignInDone): void {
  card.querySelector(".signin-pending")?.remove();
  card.querySelector(".signin-output.kept")?.remove();
  if (!event.ok && event.output?.length) {
    // What the agent said while it tried: often why it failed (a server it could not reach).
    card.querySelector(".signin-outcome")!.before(h("pre", { class: "signin-output kept" }, event.output.join("\n")));
  }
  const outcome = card.querySelector<HTMLElement>(".signin-outcome")!;
  card.classList.toggle("signed-in", event.ok);
  const method = card.querySelector<HTMLElement>(`[data-method-id="${CSS.escape(event.methodId)}"]`);
  outcome.textContent = event.ok ? `Signed in${method?.textContent ? ` with ${method.textContent}` : ""}.` : (event.message ?? "The sign-in failed.");
  outcome.classList.toggle("error-text", !event.ok);
  for (const button of card.querySelectorAll<HTMLButtonElement>(".signin-method")) button.disabled = event.ok;
  if (event.ok) card.querySelector(".signin-retry")?.remove(); // the session starts in this same conversation
  if (event.ok && document.hasFocus()) card.querySelector<HTMLButtonElement>(".signin-resend")?.focus();
}

function retryButton(actions: SignInActions): HTMLElement {
  const button = h("button", { class: "signin-retry", title: "Start the agent again, in a new conversation (after signing in)" }, "Try again");
  button.addEventListener("click", () => actions.retry());
  return button;
}

function resendButton(text: string, actions: SignInActions): HTMLElement {
  const button = h("button", { class: "signin-resend", title: `Send again: ${text.slice(0, 200)}` }, "Send again");
  button.addEventListener("click", () => actions.resend(text));
  return button;
}
