// Runs node's test runner on the compiled test files only, in two phases:
// everything but test/e2e two files at a time, then the end-to-end files
// (each a code-server and a Chromium) one at a time, so that on a 2-core
// machine no browser test waits for a core behind another. Ends with one
// line that counts both phases. (Given a folder, Node 20's runner would also
// run every .js file under test/, fixtures too; shell globs are not portable
// to Windows' cmd.)
//
//   TEST_FILTER=webchat node scripts/run-tests.mjs   only files whose path contains "webchat"
//   node scripts/run-tests.mjs --e2e                 only the end-to-end phase
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, sep } from "node:path";

const root = join("out", "test");
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith(".test.js"))
  .filter((file) => !process.env.TEST_FILTER || file.includes(process.env.TEST_FILTER))
  .map((file) => join(root, file))
  .sort();
const isEndToEnd = (file) => file.includes(`${sep}e2e${sep}`);
const onlyEndToEnd = process.argv.includes("--e2e");
const runnerArgs = process.argv.slice(2).filter((arg) => arg !== "--e2e");

const phases = [
  { files: onlyEndToEnd ? [] : files.filter((file) => !isEndToEnd(file)), concurrency: 2, timeoutMs: 300_000 },
  { files: files.filter(isEndToEnd), concurrency: 1, timeoutMs: 900_000 },
].filter((phase) => phase.files.length > 0);

const totals = { pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
let status = 0;
for (const phase of phases) {
  const args = ["--test", `--test-concurrency=${phase.concurrency}`, `--test-timeout=${phase.timeoutMs}`, ...runnerArgs, ...phase.files];
  status = Math.max(status, await runPhase(args));
}
const extra = [totals.skipped && `${totals.skipped} skipped`, totals.todo && `${totals.todo} todo`, totals.cancelled && `${totals.cancelled} cancelled`].filter(Boolean);
console.log(`\n${totals.pass} passed, ${totals.fail + totals.cancelled} failed${extra.length ? `, ${extra.join(", ")}` : ""}`);
process.exit(status !== 0 || totals.fail + totals.cancelled > 0 ? 1 : 0);

/** Runs one phase, passing its output through and adding its closing counts to the totals. */
function runPhase(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let pending = "";
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) countLine(line);
    });
    child.on("close", (code) => {
      countLine(pending);
      resolve(code ?? 1);
    });
  });
}

function countLine(line) {
  const match = /^# (pass|fail|skipped|todo|cancelled) (\d+)$/.exec(line.trim());
  if (match) totals[match[1]] += Number(match[2]);
}
