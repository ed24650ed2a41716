// V8's compiled code for the conductor's bundle kept between runs (Node's
// module compile cache, Node 22.1 and later; nothing on older Node), so a
// conductor started for each conversation does not compile the same code again.
// Kept in Symposium's private folder, never in the shared temporary one: code
// read back from a folder others can write would be theirs to choose.

import * as fs from "node:fs";
import * as module from "node:module";
import * as path from "node:path";
import { defaultConfigPath } from "./config-path.js";

/** Turns the cache on in `<config folder>/cache/compile` (0700); a failure only leaves it off. */
export function enableCompileCache(env: NodeJS.ProcessEnv): void {
  const enable = (module as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache;
  if (enable === undefined) return;
  const directory = path.join(path.dirname(defaultConfigPath(env)), "cache", "compile");
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    enable(directory);
  } catch {
    // a read-only home: the conductor runs as without it
  }
}
