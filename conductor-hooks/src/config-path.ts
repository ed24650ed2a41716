// Where the config file is by default: in its own module, with nothing but
// Node's, for the conductor's entry (compile-cache.ts) to read before the rest loads.

import * as os from "node:os";
import * as path from "node:path";

export const CONFIG_ENV = "SYMPOSIUM_CONFIG";

/** $SYMPOSIUM_CONFIG, else ~/.symposium/config.jsonc. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env[CONFIG_ENV] || path.join(os.homedir(), ".symposium", "config.jsonc");
}
