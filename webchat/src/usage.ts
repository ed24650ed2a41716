// The agent's `usage_update` (docs/webchat.md: usage) as the context meter
// shows it: figures that are not finite, negative or absurd are dropped, and
// `used` is clamped to the window's size, so a confused agent cannot break the
// header.

import type { UsageInfo } from "../page/protocol.js";

/** More tokens than any model's window (a billion): a larger figure is a mistake. */
const MAX_TOKENS = 1e9;
/** A cost beyond this (in any unit) is not shown. */
const MAX_COST = 1e9;

/** The meter's figures, or undefined when the update has none worth showing. */
export function usageInfo(update: { used?: unknown; size?: unknown; cost?: unknown }): UsageInfo | undefined {
  const size = tokens(update.size);
  const used = tokens(update.used);
  if (size === undefined || size === 0 || used === undefined) return undefined;
  const usage: UsageInfo = { used: Math.min(used, size), size };
  const cost = update.cost as { amount?: unknown; currency?: unknown } | null | undefined;
  if (
    typeof cost?.amount === "number" &&
    Number.isFinite(cost.amount) &&
    cost.amount >= 0 &&
    cost.amount <= MAX_COST &&
    typeof cost.currency === "string" &&
    /^[\p{L}\p{N} ._-]{1,16}$/u.test(cost.currency)
  )
    usage.cost = { amount: cost.amount, currency: cost.currency };
  return usage;
}

function tokens(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_TOKENS ? Math.round(value) : undefined;
}
