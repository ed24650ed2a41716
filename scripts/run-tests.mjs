// Runs node's test runner on the compiled test files only, in two phases:
// everything but test/e2e two files at a time, then the end-to-end files
// (each a code-server and a Chromium) one at a time, so that on a 2-core
// machine no browser test waits for a core behind another. Ends with one
// line that counts both phases. (Given a folder, Node 20's runner would also
// run every .js file under test/, fixtures too; shell globs are not portable
// to Windows' cmd.)
//
// Under CI (`CI` set) the end-to-end phase must run and skip nothing: a run
// that never opened the panel fails instead of passing.
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

const ci = isCI(process.env.CI);
const endToEndFiles = files.filter(isEndToEnd);
const phases = [
  { name: "unit", files: onlyEndToEnd ? [] : files.filter((file) => !isEndToEnd(file)), concurrency: 2, timeoutMs: 300_000 },
  { name: "end-to-end", files: endToEndFiles, concurrency: 1, timeoutMs: 900_000, mustNotSkip: ci },
].filter((phase) => phase.files.length > 0);

const totals = { pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
const problems = [];
if (ci && endToEndFiles.length === 0 && !process.env.TEST_FILTER)
  problems.push(`CI is set but there are no end-to-end tests under ${join(root, "e2e")} (build first)`);
let status = 0;
for (const phase of phases) {
  const args = ["--test", `--test-concurrency=${phase.concurrency}`, `--test-timeout=${phase.timeoutMs}`, ...runnerArgs, ...phase.files];
  const result = await runPhase(args);
  status = Math.max(status, result.code);
  if (phase.mustNotSkip && result.skips.length > 0) {
    problems.push(`CI is set, and the ${phase.name} phase skipped ${result.skips.length} test(s):\n  ${result.skips.join("\n  ")}`);
  }
}
const extra = [totals.skipped && `${totals.skipped} skipped`, totals.todo && `${totals.todo} todo`, totals.cancelled && `${totals.cancelled} cancelled`].filter(
  Boolean,
);
console.log(`\n${totals.pass} passed, ${totals.fail + totals.cancelled} failed${extra.length ? `, ${extra.join(", ")}` : ""}`);
for (const problem of problems) console.error(`FAILED: ${problem}`);
process.exit(status !== 0 || totals.fail + totals.cancelled > 0 || problems.length > 0 ? 1 : 0);

/** `CI=true` (GitHub Actions, GitLab, most services) or any other value but "false"/"0". */
function isCI(value) {
  const text = value?.trim().toLowerCase();
  return text !== undefined && text !== "" && text !== "false" && text !== "0";
}

/** Runs one phase, passing its output through; adds its closing counts to the totals and returns its skipped tests. */
function runPhase(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    const skips = [];
    let pending = "";
    const read = (line) => {
      countLine(line);
      // TAP: "ok 3 - name # SKIP reason" (Node's runner reports to a pipe in TAP).
      if (/^\s*ok \d+ - .* # SKIP\b/.test(line)) skips.push(line.trim());
    };
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      lines.forEach(read);
    });
    child.on("close", (code) => {
      read(pending);
      resolve({ code: code ?? 1, skips });
    });
  });
}

function countLine(line) {
  const match = /^# (pass|fail|skipped|todo|cancelled) (\d+)$/.exec(line.trim());
  if (match) totals[match[1]] += Number(match[2]);
}
