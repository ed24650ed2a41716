// The context meter in the header (docs/webchat.md: usage): the agent's last
// usage_update as tokens used of the window (the server already dropped
// absurd figures, webchat/src/usage.ts), and the session's cost when given.

import { h } from "./dom.js";
import type { UsageInfo } from "./protocol.js";

export class UsageMeter {
  private readonly meter = h("meter", { min: "0", max: "1", low: "0.7", high: "0.9", optimum: "0" });
  private readonly label = h("span", { class: "usage-label" });
  readonly element = h("span", { id: "usage-meter", hidden: "" }, this.meter, this.label);

  show(usage: UsageInfo | undefined): void {
    this.element.hidden = usage === undefined;
    if (!usage) return;
    const share = usage.size > 0 ? Math.min(1, usage.used / usage.size) : 0;
    this.meter.value = share;
    const cost = usage.cost ? ` · ${costText(usage.cost)}` : "";
    this.label.textContent = `${tokens(usage.used)} / ${tokens(usage.size)}${cost}`;
    this.element.title = `Context: ${usage.used.toLocaleString()} of ${usage.size.toLocaleString()} tokens (${Math.round(share * 100)}%)${cost ? `; session cost ${costText(usage.cost!)}` : ""}`;
  }
}

/** 1234 → "1.2k", 200000 → "200k", 1500000 → "1.5M". */
function tokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trim(count / 1000)}k`;
  return `${trim(count / 1_000_000)}M`;
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, "");
}

function costText(cost: { amount: number; currency: string }): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: cost.currency, maximumFractionDigits: 4 }).format(cost.amount);
  } catch {
    return `${cost.amount.toFixed(2)} ${cost.currency}`; // "credits" and other units that are not currencies
  }
}
