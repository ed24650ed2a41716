// The setup steps of `npm start` and `npm test` (install, build, code-server),
// each one short line on stderr; what the tools print (npm's warnings, vsce's
// file list, apt-get) goes to one log file, whose path and last lines are
// printed only when a step fails. Node builtins only: this runs before
// `npm ci` on a fresh clone.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where the steps' output goes: SYMPOSIUM_SETUP_LOG, else out/setup.log in this clone. */
export const SETUP_LOG = process.env.SYMPOSIUM_SETUP_LOG || path.join(REPO, "out", "setup.log");

/** npm as a program to spawn: Windows has it as npm.cmd, which Node runs only through a shell. */
export const NPM = process.platform === "win32" ? { command: "npm.cmd", shell: true } : { command: "npm", shell: false };

/** Empties the log: each `npm start` keeps only its own run (`npm test` only adds to it, and only when it installs). */
export function startLog() {
  fs.mkdirSync(path.dirname(SETUP_LOG), { recursive: true });
  fs.writeFileSync(SETUP_LOG, "");
}

/**
 * Runs `command args` in the repository with its output appended to the log, printing
 * "title… done (N s)". On failure prints where the log is and its last lines, and exits.
 */
export async function step(title, command, args, { shell = false } = {}) {
  process.stderr.write(`${title}… `);
  const started = Date.now();
  fs.mkdirSync(path.dirname(SETUP_LOG), { recursive: true });
  const log = fs.openSync(SETUP_LOG, "a");
  fs.writeSync(log, `\n== ${new Date().toISOString()} ${title}: ${command} ${args.join(" ")}\n`);
  const code = await new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO, shell, stdio: ["inherit", log, log] });
    child.once("error", (error) => {
      fs.writeSync(log, `${error.message}\n`);
      resolve(1);
    });
    child.once("close", (status, signal) => resolve(status ?? signal));
  });
  fs.closeSync(log);
  if (code === 0) {
    process.stderr.write(`done (${Math.round((Date.now() - started) / 1000)} s)\n`);
    return;
  }
  process.stderr.write(`failed (${code}). Its output is in ${SETUP_LOG}; the last lines:\n${lastLines(SETUP_LOG, 15)}\n`);
  process.exit(1);
}

function lastLines(file, count) {
  return fs
    .readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(-count)
    .map((line) => `  ${line}`)
    .join("\n");
}

// As a program, one step: `node scripts/steps.mjs TITLE COMMAND ARGS…` (test/harness/start.ts installs code-server so).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [title, command, ...args] = process.argv.slice(2);
  if (!title || !command) {
    console.error("usage: node scripts/steps.mjs TITLE COMMAND [ARGS…]");
    process.exit(2);
  }
  await step(title, command, args);
}
