// The agent's questions as cards (docs/webchat.md: elicitation). A form: one
// input per field, checked as elicitation-fields.ts checks it (the server
// checks again), a secret field as a password input that is emptied once
// sent and never written into the page's HTML (so neither the kept transcript
// nor the history holds it). An address: shown whole, opened outside the
// frame (VS Code's browser through the bridge) only when the user asks.
// Submit, Decline and Cancel answer the agent.

import "./acp-features.css";
import { h, revealBidi } from "./dom.js";
import { checkValue } from "./elicitation-fields.js";
import { openOutside } from "./bridge.js";
import type { ElicitationEvent, ElicitationField, ElicitationValue, TranscriptEvent } from "./protocol.js";

export interface ElicitationAnswer {
  id: string;
  action: "accept" | "decline" | "cancel";
  content?: Record<string, ElicitationValue>;
}

const OUTCOMES = { accept: "Answered.", decline: "Declined.", cancel: "Cancelled.", complete: "Done: the agent says the page you opened has finished." };
const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date" };

/** One input of a form: how to read its value back. */
interface FieldInput {
  field: ElicitationField;
  element: HTMLElement;
  problem: HTMLElement;
  read(): unknown;
}

export class ElicitationCards {
  private readonly cards = new Map<string, HTMLElement>();

  constructor(
    private readonly root: HTMLElement,
    private readonly answer: (answer: ElicitationAnswer) => void,
  ) {}

  clear(): void {
    this.cards.clear();
  }

  /** Shows `event` when it is an elicitation's (true), else leaves it to the transcript view (false). */
  add(event: TranscriptEvent): boolean {
    if (event.kind === "elicitation") {
      const card = event.mode === "url" ? this.urlCard(event) : this.formCard(event);
      this.cards.set(event.id, card);
      this.root.append(card);
      card.scrollIntoView({ block: "nearest" });
      return true;
    }
    if (event.kind === "elicitationDone") {
      const card = this.cards.get(event.id);
      if (card) settled(card, event.action);
      return true;
    }
    return false;
  }

  private formCard(event: ElicitationEvent & { mode: "form" }): HTMLElement {
    const inputs = (Array.isArray(event.fields) ? event.fields : []).map(fieldInput);
    const submit = h("button", { type: "submit", class: "primary elicitation-submit" }, "Submit");
    const form = h("form", { class: "elicitation-form", novalidate: "" }, ...inputs.map(fieldRow), h("div", { class: "elicitation-actions" }, submit));
    const card = this.card(event, form);
    form.querySelector(".elicitation-actions")!.append(...this.refusals(event.id));
    form.addEventListener("submit", (submitted) => {
      submitted.preventDefault();
      const content = readForm(inputs);
      if (content === null) return;
      for (const input of inputs) if (input.field.secret) (input.element as HTMLInputElement).value = ""; // not kept on the page
      this.answer({ id: event.id, action: "accept", content });
      card.classList.add("answering");
    });
    return card;
  }

  private urlCard(event: ElicitationEvent & { mode: "url" }): HTMLElement {
    const open = h("button", { class: "primary elicitation-open" }, "Open in the browser");
    open.addEventListener("click", () => {
      openOutside(event.url);
      this.answer({ id: event.id, action: "accept" });
    });
    const host = URL.canParse(event.url) ? new URL(event.url).host : "";
    const address = h("div", { class: "elicitation-url" }, h("strong", {}, ...revealBidi(host)), h("code", {}, ...revealBidi(event.url)));
    return this.card(event, address, h("div", { class: "elicitation-actions" }, open, ...this.refusals(event.id)));
  }

  private card(event: ElicitationEvent, ...body: HTMLElement[]): HTMLElement {
    return h(
      "div",
      { class: `elicitation ${event.mode}`, "data-elicitation-id": event.id },
      h("div", { class: "elicitation-title" }, "The agent asks"),
      h("div", { class: "elicitation-message" }, ...revealBidi(event.message)),
      ...body,
      h("div", { class: "elicitation-outcome meta", role: "status" }),
    );
  }

  private refusals(id: string): HTMLElement[] {
    return (["decline", "cancel"] as const).map((action) => {
      const button = h("button", { type: "button", class: `elicitation-${action}` }, action === "decline" ? "Decline" : "Cancel");
      button.addEventListener("click", () => this.answer({ id, action }));
      return button;
    });
  }
}

function settled(card: HTMLElement, action: keyof typeof OUTCOMES): void {
  card.classList.remove("answering");
  card.classList.add("settled", action);
  for (const control of card.querySelectorAll<HTMLInputElement | HTMLButtonElement | HTMLSelectElement>("input, button, select")) {
    control.disabled = true;
    if (control instanceof HTMLInputElement && control.type === "password") control.value = "";
  }
  card.querySelector(".elicitation-outcome")!.textContent = OUTCOMES[action] ?? "";
}

function fieldRow(input: FieldInput): HTMLElement {
  const { field } = input;
  const label = h(
    "label",
    { for: input.element.id },
    ...revealBidi(field.label),
    field.required ? h("span", { class: "required", title: "required" }, " *") : "",
  );
  const description = field.description ? [h("div", { class: "meta" }, ...revealBidi(field.description))] : [];
  return h("div", { class: `elicitation-field ${field.kind}`, "data-field": field.name }, label, input.element, ...description, input.problem);
}

let inputCount = 0;

/** The input for `field`; a secret one is a password input with no autocomplete, never given a value attribute. */
function fieldInput(field: ElicitationField): FieldInput {
  const id = `elicitation-input-${++inputCount}`;
  const problem = h("div", { class: "elicitation-problem", role: "alert" });
  if (field.kind === "boolean") {
    const box = h("input", { type: "checkbox", id });
    box.checked = field.default === true;
    return { field, element: box, problem, read: () => box.checked };
  }
  if (field.kind === "choice") {
    const select = h("select", { id }, ...(field.required ? [] : [h("option", { value: "" }, "—")]), ...(field.choices ?? []).map(choiceOption));
    if (typeof field.default === "string") select.value = field.default;
    return { field, element: select, problem, read: () => select.value };
  }
  if (field.kind === "multi") {
    const boxes = (field.choices ?? []).map((choice) => {
      const box = h("input", { type: "checkbox", value: choice.value });
      box.checked = Array.isArray(field.default) && field.default.includes(choice.value);
      return h("label", { class: "elicitation-choice" }, box, ...revealBidi(choice.title));
    });
    const group = h("div", { id, role: "group" }, ...boxes);
    return { field, element: group, problem, read: () => [...group.querySelectorAll<HTMLInputElement>("input:checked")].map((box) => box.value) };
  }
  const numeric = field.kind === "number" || field.kind === "integer";
  const type = field.secret ? "password" : numeric ? "number" : (INPUT_TYPES[field.format ?? ""] ?? "text");
  const input = h("input", { type, id, autocomplete: field.secret ? "off" : "on", spellcheck: "false" });
  if (numeric) input.step = field.kind === "integer" ? "1" : "any";
  if (!field.secret && field.default !== undefined) input.value = String(field.default);
  return { field, element: input, problem, read: () => (numeric ? (input.value === "" ? "" : Number(input.value)) : input.value) };
}

function choiceOption(choice: { value: string; title: string }): HTMLElement {
  return h("option", { value: choice.value }, choice.title);
}

/** The form's content, or null (each problem shown under its field) when a field does not fit. */
function readForm(inputs: FieldInput[]): Record<string, ElicitationValue> | null {
  const content: Record<string, ElicitationValue> = {};
  let ok = true;
  for (const input of inputs) {
    const value = input.read();
    const empty = value === "" || (Array.isArray(value) && value.length === 0 && !input.field.required);
    const problem = empty ? (input.field.required ? "is required" : null) : checkValue(input.field, value);
    input.problem.textContent = problem === null ? "" : `${input.field.label} ${problem}.`;
    input.element.setAttribute("aria-invalid", String(problem !== null));
    if (problem !== null) ok = false;
    else if (!empty) content[input.field.name] = value as ElicitationValue;
  }
  if (!ok) inputs.find((input) => input.problem.textContent !== "")?.element.focus();
  return ok ? content : null;
}
