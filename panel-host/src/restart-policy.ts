// When a crashed frontend is started again: with growing delays, and not at
// all once it has crashed too often in a short time (a frontend that exits at
// once would otherwise restart forever). Pure: the caller passes the clock.

export interface RestartPolicyOptions {
  /** This many crashes within `windowMs` and the host gives up. */
  maxCrashes: number;
  windowMs: number;
  /** Delay before the first restart; doubled for each further crash in the window. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = { maxCrashes: 4, windowMs: 60_000, baseDelayMs: 500, maxDelayMs: 8_000 };

export type RestartDecision = { action: "restart"; delayMs: number; crashes: number } | { action: "give-up"; crashes: number };

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** Records a crash at `now` and says what to do about it. */
  onCrash(now: number): RestartDecision {
    this.crashes = [...this.crashes.filter((time) => now - time < this.options.windowMs), now];
    const crashes = this.crashes.length;
    if (crashes >= this.options.maxCrashes) return { action: "give-up", crashes };
    const delayMs = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (crashes - 1));
    return { action: "restart", delayMs, crashes };
  }
}
