// Runs before `npm test`, and first in `npm start`: on a fresh clone, installs
// the locked dependencies, so those two commands work with no setup. npm's
// output (on Node 20, two EBADENGINE warnings: acpx, a test-only client, and
// its commander declare Node ≥ 22) goes to the setup log, not the terminal.
// As `npm test`'s pretest it adds to that log, never empties it: the log the
// README points to after an `npm start` stays there.
import { existsSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { NPM, REPO, step } from "./steps.mjs";

/** Installs the locked dependencies (`npm ci`) unless node_modules already holds them. */
export async function ensureDependencies() {
  if (existsSync(path.join(REPO, "node_modules", ".package-lock.json"))) return;
  await step("Installing dependencies (npm ci)", NPM.command, ["ci", "--no-audit", "--no-fund"], { shell: NPM.shell });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await ensureDependencies();
