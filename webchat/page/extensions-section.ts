// The Extensions section beside the agent picker (docs/extensions.md): the
// config's extensions in order (the first closest to the editor), each with
// enable/disable, move up/down (its buttons, Alt+↑/↓ on the row, or dragging
// it), delete, and "Add extension" (a built-in, a registry id, or a custom
// spec). The server runs the conductor's own `extensions` verbs
// (webchat/src/extensions-manager.ts) and answers with the list as it is now;
// the section says that a change applies to the next conversation.

import "./extensions-section.css";
import { h } from "./dom.js";
import type { ExtensionAction, ExtensionItem, PageMessage, ServerMessage } from "./protocol.js";

type ExtensionsRequest = Extract<PageMessage, { type: "extensions" }>;
type ExtensionsAnswer = Extract<ServerMessage, { type: "extensions" }>;

const BUILT_INS = ["sparkle", "ferris", "cargo"] as const;
const SPEC_HINT = "a path, npx:<package>, pipx:<package>, cargo:<crate>, acp:<registry id> or https://…/extension.json";

export class ExtensionsSection {
  readonly button = h(
    "button",
    {
      id: "extensions-button",
      type: "button",
      "aria-expanded": "false",
      "aria-controls": "extensions",
      title: "Extensions: what runs between the chat and the agent",
      hidden: "",
    },
    "Extensions",
  );
  readonly panel = h("section", { id: "extensions", class: "extensions-panel", role: "region", "aria-label": "Extensions", hidden: "" });
  private readonly list = h("ol", { id: "extensions-list", "aria-label": "Extensions, the first closest to the editor" });
  private readonly message = h("p", { id: "extensions-message", role: "status" });
  private readonly kind = h(
    "select",
    { id: "extension-kind", "aria-label": "Kind of extension" },
    ...BUILT_INS.map((name) => h("option", { value: name }, `${name} (built in)`)),
    h("option", { value: "custom" }, "Registry or custom…"),
  );
  private readonly spec = h("input", { id: "extension-spec", type: "text", "aria-label": "Extension to add", placeholder: SPEC_HINT, hidden: "" });
  private dragged: string | undefined;

  constructor(private readonly send: (message: ExtensionsRequest) => void) {
    this.button.addEventListener("click", () => this.toggle());
    this.kind.addEventListener("change", () => {
      this.spec.hidden = this.kind.value !== "custom";
      if (!this.spec.hidden) this.spec.focus();
    });
    const add = h("button", { id: "extension-add", type: "button" }, "Add extension");
    add.addEventListener("click", () => this.add());
    this.spec.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.add();
    });
    this.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.toggle(false);
    });
    this.panel.append(
      h("h2", {}, "Extensions"),
      h(
        "p",
        { class: "extensions-note" },
        "In order: the first is closest to the editor, the last closest to the agent. Changes apply to the next conversation.",
      ),
      this.list,
      h("div", { class: "extensions-add" }, this.kind, this.spec, add),
      this.message,
    );
  }

  /** Shows the panel (and asks for the list) or hides it. */
  toggle(open = this.panel.hidden): void {
    this.panel.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    if (open) this.request("list");
    else this.button.focus();
  }

  /** The server's answer: the list now, and what the change did. */
  show(answer: ExtensionsAnswer): void {
    const focused = (document.activeElement as HTMLElement | null)?.dataset.focusKey;
    this.list.replaceChildren(...answer.extensions.map((item) => this.row(item, answer.extensions.length)));
    if (answer.extensions.length === 0) this.list.append(h("li", { class: "extensions-empty" }, "No extensions yet."));
    this.message.textContent = answer.message ?? "";
    this.message.classList.toggle("error", !answer.ok);
    if (focused) this.list.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private row(item: ExtensionItem, count: number): HTMLLIElement {
    const enabled = h("input", { type: "checkbox", "aria-label": `Enable ${item.name}`, "data-focus-key": `enable:${item.name}` });
    enabled.checked = item.enabled;
    enabled.addEventListener("change", () => this.request(enabled.checked ? "enable" : "disable", item.name));
    const up = this.action("↑", `Move ${item.name} up`, `up:${item.name}`, () => this.request("move", item.name, "up"), item.position === 1);
    const down = this.action("↓", `Move ${item.name} down`, `down:${item.name}`, () => this.request("move", item.name, "down"), item.position === count);
    const remove = this.action("Delete", `Delete ${item.name}`, `delete:${item.name}`, () => this.request("remove", item.name), false);
    const row = h(
      "li",
      {
        class: `extension${item.enabled ? "" : " disabled"}`,
        draggable: "true",
        tabindex: "0",
        "data-name": item.name,
        "data-focus-key": `row:${item.name}`,
        title: item.source ? `from ${item.source}` : item.runs,
      },
      h("span", { class: "drag-handle", "aria-hidden": "true" }, "⠿"),
      enabled,
      h("span", { class: "extension-name" }, item.name),
      h("span", { class: "extension-runs" }, item.runs),
      up,
      down,
      remove,
    );
    row.addEventListener("keydown", (event) => {
      if (event.target !== row || !event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
      event.preventDefault();
      this.request("move", item.name, event.key === "ArrowUp" ? "up" : "down");
    });
    this.draggable(row, item);
    return row;
  }

  private action(label: string, name: string, key: string, run: () => void, disabled: boolean): HTMLButtonElement {
    const button = h("button", { type: "button", "aria-label": name, title: name, "data-focus-key": key }, label);
    button.disabled = disabled;
    button.addEventListener("click", run);
    return button;
  }

  /** Dropping a row on another moves it to that one's place. */
  private draggable(row: HTMLLIElement, item: ExtensionItem): void {
    row.addEventListener("dragstart", (event) => {
      this.dragged = item.name;
      event.dataTransfer?.setData("text/plain", item.name);
    });
    row.addEventListener("dragover", (event) => {
      if (this.dragged !== undefined && this.dragged !== item.name) event.preventDefault();
    });
    row.addEventListener("drop", (event) => {
      event.preventDefault();
      const name = this.dragged;
      this.dragged = undefined;
      if (name !== undefined && name !== item.name) this.request("move", name, item.position);
    });
    row.addEventListener("dragend", () => (this.dragged = undefined));
  }

  private add(): void {
    const spec = this.kind.value === "custom" ? this.spec.value.trim() : this.kind.value;
    if (spec === "") {
      this.message.textContent = `Name the extension: ${SPEC_HINT}.`;
      this.message.classList.add("error");
      return;
    }
    this.message.textContent = `Adding ${spec}…`;
    this.message.classList.remove("error");
    this.send({ type: "extensions", action: "add", spec });
    this.spec.value = "";
  }

  private request(action: ExtensionAction, name?: string, to?: "up" | "down" | number): void {
    this.send({ type: "extensions", action, ...(name === undefined ? {} : { name }), ...(to === undefined ? {} : { to }) });
  }
}
