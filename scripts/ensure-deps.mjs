// Runs before `npm start` and `npm test`: on a fresh clone, installs the
// locked dependencies first, so those two commands work with no setup.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/.package-lock.json")) {
  console.error("Installing dependencies (npm ci)…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { stdio: "inherit", shell: process.platform === "win32" });
  process.exit(result.status ?? 1);
}
