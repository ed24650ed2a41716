// The agent's session config options in the toolbar (docs/webchat.md: models):
// selects of category "model" (and "model_config": the model's own settings,
// an effort level say) as pickers, and every boolean option as a
// toggle, beside the mode selector (ACP `configOptions`, set with
// session/set_config_option). Shown only when the agent offers them; the
// agent's answer (the whole list) is what the toolbar then shows.

import { h } from "./dom.js";
import type { BooleanOptionInfo, ConfigOptionInfo, SelectOptionInfo } from "./protocol.js";

/** The select categories shown in the toolbar (booleans are shown whatever their category). */
const SHOWN_CATEGORIES = new Set(["model", "model_config"]);

export class ConfigPickers {
  readonly element = h("span", { id: "config-options" });
  private shown = "";

  constructor(private readonly choose: (configId: string, value: string | boolean) => void) {}

  update(options: ConfigOptionInfo[] | undefined): void {
    const shown = (options ?? []).filter((option) => option.type === "boolean" || (option.category !== undefined && SHOWN_CATEGORIES.has(option.category)));
    const key = JSON.stringify(shown);
    // The same options: only the values are put back (a refused change, say); a rebuild would close a select the user has open.
    if (key === this.shown) return this.showValues(shown);
    this.shown = key;
    this.element.replaceChildren(...shown.map((option) => (option.type === "boolean" ? this.toggle(option) : this.select(option))));
  }

  private showValues(options: ConfigOptionInfo[]): void {
    for (const option of options) {
      const control = [...this.element.querySelectorAll<HTMLInputElement | HTMLSelectElement>("select[data-config-id], input[data-config-id]")].find(
        (each) => each.dataset.configId === option.id,
      );
      if (control instanceof HTMLInputElement) control.checked = option.currentValue === true;
      else if (control && typeof option.currentValue === "string") control.value = option.currentValue;
    }
  }

  private select(option: SelectOptionInfo): HTMLSelectElement {
    const select = h("select", {
      class: "config-option",
      "data-config-id": option.id,
      "data-category": option.category ?? "",
      "aria-label": option.name,
      title: option.description ?? option.name,
    });
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const choice of option.options) {
      const item = h("option", { value: choice.value, ...(choice.description ? { title: choice.description } : {}) }, choice.name);
      if (choice.group === undefined) {
        select.append(item);
        continue;
      }
      let group = groups.get(choice.group);
      if (!group) {
        group = h("optgroup", { label: choice.group });
        groups.set(choice.group, group);
        select.append(group);
      }
      group.append(item);
    }
    select.value = option.currentValue;
    select.addEventListener("change", () => this.choose(option.id, select.value));
    return select;
  }

  /** A switch with the option's name; its description is the tooltip. */
  private toggle(option: BooleanOptionInfo): HTMLLabelElement {
    const input = h("input", { type: "checkbox", role: "switch", class: "config-toggle-input", "data-config-id": option.id });
    input.checked = option.currentValue;
    input.addEventListener("change", () => this.choose(option.id, input.checked));
    return h(
      "label",
      { class: "config-toggle", "data-config-id": option.id, "data-category": option.category ?? "", title: option.description ?? option.name },
      input,
      h("span", { class: "config-toggle-name" }, option.name),
    );
  }
}
