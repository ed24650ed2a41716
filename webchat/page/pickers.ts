// The model picker (docs/webchat.md: models): the agent's session config
// options of category "model" (ACP `configOptions`, set with
// session/set_config_option), one select each, beside the mode selector.
// Shown only when the agent offers one.

import { h } from "./dom.js";
import type { ConfigOptionInfo } from "./protocol.js";

/** The config option categories shown in the toolbar. */
const SHOWN_CATEGORIES = new Set(["model"]);

export class ConfigPickers {
  readonly element = h("span", { id: "config-options" });
  private shown = "";

  constructor(private readonly choose: (configId: string, value: string) => void) {}

  update(options: ConfigOptionInfo[] | undefined): void {
    const shown = (options ?? []).filter((option) => option.category !== undefined && SHOWN_CATEGORIES.has(option.category));
    const key = JSON.stringify(shown);
    if (key === this.shown) return; // a rebuild would close a select the user has open
    this.shown = key;
    this.element.replaceChildren(...shown.map((option) => this.select(option)));
  }

  private select(option: ConfigOptionInfo): HTMLSelectElement {
    const select = h("select", {
      class: "config-option",
      "data-config-id": option.id,
      "data-category": option.category ?? "",
      "aria-label": option.name,
      title: option.name,
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
}
