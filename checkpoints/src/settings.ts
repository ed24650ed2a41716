// The store's settings and where they come from (the environment): apart from
// the store, so the conductor decides whether checkpoints are on without
// loading the store, which it loads once a session needs it.

import * as os from "node:os";
import * as path from "node:path";
import type { Logger } from "../../acp-wire/src/index.js";

export interface CheckpointSettings {
  /** The store's folder (created 0700): `checkpoints` in Symposium's config folder. */
  directory: string;
  /** The most turn records kept per project; older ones are pruned. */
  maxTurns: number;
  /** How long a prompt may wait for its before-turn snapshot; past it the turn is not recorded (said in its record). */
  budgetMs: number;
  /** Files larger than this are not stored. */
  maxFileBytes: number;
  /** A snapshot still running after this long is stopped (it goes on after the budget, so the next one finds a warm index). */
  hardLimitMs: number;
  log: Logger;
}

export const DEFAULT_SETTINGS = { maxTurns: 100, budgetMs: 1_000, maxFileBytes: 5 * 1024 * 1024, hardLimitMs: 60_000 };

/** Environment variables that change the defaults (the conductor reads them; docs/checkpoints.md). */
export const CHECKPOINT_ENV = {
  off: "SYMPOSIUM_CHECKPOINTS",
  directory: "SYMPOSIUM_CHECKPOINTS_DIR",
  maxTurns: "SYMPOSIUM_CHECKPOINTS_MAX_TURNS",
  budgetMs: "SYMPOSIUM_CHECKPOINTS_BUDGET_MS",
  maxFileBytes: "SYMPOSIUM_CHECKPOINTS_MAX_FILE_BYTES",
} as const;

/** The store's folder: $SYMPOSIUM_CHECKPOINTS_DIR, else `checkpoints` beside the config file ($SYMPOSIUM_CONFIG, else ~/.symposium/config.jsonc). */
export function checkpointsDirectory(env: NodeJS.ProcessEnv, configFolder?: string): string {
  const folder = configFolder ?? (env.SYMPOSIUM_CONFIG ? path.dirname(env.SYMPOSIUM_CONFIG) : path.join(os.homedir(), ".symposium"));
  return env[CHECKPOINT_ENV.directory] || path.join(folder, "checkpoints");
}

/** The settings from the environment, the store beside the config file in `configFolder`; null when turned off (SYMPOSIUM_CHECKPOINTS=0). */
export function settingsFromEnvironment(env: NodeJS.ProcessEnv, configFolder: string, log: Logger): CheckpointSettings | null {
  if (env[CHECKPOINT_ENV.off] === "0" || env[CHECKPOINT_ENV.off] === "off") return null;
  const number = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return env[name] && Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    directory: checkpointsDirectory(env, configFolder),
    maxTurns: Math.floor(number(CHECKPOINT_ENV.maxTurns, DEFAULT_SETTINGS.maxTurns)),
    budgetMs: number(CHECKPOINT_ENV.budgetMs, DEFAULT_SETTINGS.budgetMs),
    maxFileBytes: number(CHECKPOINT_ENV.maxFileBytes, DEFAULT_SETTINGS.maxFileBytes),
    hardLimitMs: DEFAULT_SETTINGS.hardLimitMs,
    log,
  };
}
