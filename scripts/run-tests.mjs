// Runs node's test runner on the compiled test files only, in phases, one per folder of test/:
//
//   unit      test/unit/<component>/ (and bench/'s own tests): in-process, two files at a time
//   process   test/process/: our programs as real processes with fixture agents, two at a time
//   interop   test/interop/: third-party peers (Rust conductors, published adapters, acpx)
//   toad      test/toad/: the real Toad, one file at a time
//   e2e       test/e2e/: code-server + Chromium, one file a run, once per VS Code target
//
// so that on a 2-core machine no browser test waits for a core behind another. Ends with one
// line that counts every phase. (Given a folder, Node 20's runner would also run every .js file
// under test/, fixtures too; shell globs are not portable to Windows' cmd.) A test file in no
// phase's folder fails the run, named, instead of never running. After each run, whatever it left
// running (a chat host a code-server started detached) is stopped and named on stderr.
// Every skipped test and every skipped group (a `describe` skipped whole, which Node's own count
// leaves out; scripts/skip-reporter.mjs) is named, with its reason, just before the closing line,
// and counted in it.
//
// Under CI (`CI` set) the end-to-end phase must run and skip nothing: a run that never opened the
// panel fails instead of passing. A TEST_FILTER that matches no file of the phases run fails too,
// naming the phase its files are in.
//
//   TEST_FILTER=webchat node scripts/run-tests.mjs   only files whose path contains "webchat"
//   node scripts/run-tests.mjs --phase=process       only the process phase (--phase=unit,process: both)
//   node scripts/run-tests.mjs --unit                only the unit phase (= --phase=unit)
//   node scripts/run-tests.mjs --e2e                 only the end-to-end phases (= --phase=e2e)
//   SYMPOSIUM_VSCODE=newest node scripts/run-tests.mjs --e2e   only on the newest VS Code
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join("out", "test");
/** The phases in the order they run; a test file belongs to the phase of test/'s folder it is in. */
const PHASES = ["unit", "process", "interop", "toad", "e2e"];
/** Which phase a compiled test file is in, or undefined for one in no phase's folder. */
function phaseOf(file) {
  // bench/ holds the unit tests of its own report writer (it may import test/, not the reverse).
  if (file.startsWith(join("out", "bench") + sep)) return "unit";
  const folder = relative(root, file).split(sep)[0];
  return PHASES.includes(folder) ? folder : undefined;
}
const allFiles = [root, join("out", "bench")]
  .filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".test.js"))
      .map((file) => join(dir, file)),
  )
  .sort();
const filter = process.env.TEST_FILTER;
const files = allFiles.filter((file) => !filter || file.includes(filter));
/** Set in each run's environment: what still carries it after the run, the run left behind. */
const RUN_MARK = "SYMPOSIUM_TEST_RUN";
const chosen = choosePhases(process.argv.slice(2));
const runnerArgs = process.argv.slice(2).filter((arg) => arg !== "--e2e" && arg !== "--unit" && !arg.startsWith("--phase="));
/** Beside TAP on stdout, a reporter that writes each skipped test and group to a file of the run's own. */
const SKIP_REPORTER = pathToFileURL(join(fileURLToPath(new URL(".", import.meta.url)), "skip-reporter.mjs")).href;

const ci = isCI(process.env.CI);
const filesOf = (phase) => files.filter((file) => phaseOf(file) === phase);
const endToEndFiles = filesOf("e2e");
// The end-to-end phase runs once on each VS Code of test/harness/vscode-targets.json (the oldest
// engines.vscode promises, and the newest), or on the one SYMPOSIUM_VSCODE names.
const VSCODE_TARGET_ENV = "SYMPOSIUM_VSCODE";
// A target's `notYet` names the end-to-end files that do not pass on it yet, each with why: they
// are not run there, and the run says so before its closing line.
const allTargets = JSON.parse(readFileSync(new URL("../test/harness/vscode-targets.json", import.meta.url), "utf8")).targets;
const targets = process.env[VSCODE_TARGET_ENV] ? allTargets.filter((target) => target.name === process.env[VSCODE_TARGET_ENV]) : allTargets;
const notRun = [];
const runsOn = (target) => (file) => {
  const reason = Object.entries(target.notYet ?? {}).find(([name]) => file.includes(name))?.[1];
  if (reason) notRun.push(`${file} on VS Code ${target.vscode} (${target.name}): ${reason}`);
  return !reason;
};
/** The phases other than end-to-end: how many files at a time, and each file's time limit. */
const NODE_PHASES = [
  { name: "unit", concurrency: 2, timeoutMs: 120_000 },
  { name: "process", concurrency: 2, timeoutMs: 300_000 },
  { name: "interop", concurrency: 2, timeoutMs: 300_000 },
  // Each runs Toad's Python and a Chromium: one at a time, like the end-to-end files.
  { name: "toad", concurrency: 1, timeoutMs: 300_000 },
];
const phases = [
  ...NODE_PHASES.filter(({ name }) => chosen.has(name)).map((phase) => ({ ...phase, files: filesOf(phase.name), env: {} })),
  ...(chosen.has("e2e") ? targets : []).map((target) => ({
    name: `end-to-end (VS Code: ${target.name})`,
    files: endToEndFiles.filter(runsOn(target)),
    concurrency: 1,
    timeoutMs: 900_000,
    mustNotSkip: ci,
    env: { [VSCODE_TARGET_ENV]: target.name },
  })),
].filter((phase) => phase.files.length > 0);

const totals = { pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
/** Every skipped test and group of every run: `{ file, names, group, reason }`. */
const skipped = [];
const problems = [];
if (ci && chosen.has("e2e") && endToEndFiles.length === 0 && !filter)
  problems.push(`CI is set but there are no end-to-end tests under ${join(root, "e2e")} (build first)`);
for (const file of files.filter((file) => phaseOf(file) === undefined))
  problems.push(
    `${file} is in no phase's folder (${PHASES.map((phase) => join(root, phase)).join(", ")}), so it never runs: move its source, or remove a stale build (out/)`,
  );
if (filter && phases.length === 0) problems.push(unmatchedFilter(filter));
// Turn checkpoints the tests' conductors record go to a folder of this run's, never the user's ~/.symposium.
const checkpoints = mkdtempSync(join(tmpdir(), "symposium-test-checkpoints-"));
process.env.SYMPOSIUM_CHECKPOINTS_DIR ??= checkpoints;
let status = 0;
for (const phase of phases) {
  // End-to-end files one run each, so that what one leaves running is stopped before the next starts.
  const batches = phase.concurrency === 1 ? phase.files.map((file) => [file]) : [phase.files];
  const skips = [];
  for (const batch of batches) {
    const mark = randomUUID();
    const result = await runPhase(phase, batch, { ...process.env, ...phase.env, [RUN_MARK]: mark });
    await stopLeftovers(mark, batch.length === 1 ? `${batch[0]} (${phase.name})` : `the ${phase.name} phase`);
    status = Math.max(status, result.code);
    skips.push(...result.skips);
  }
  skipped.push(...skips);
  if (phase.mustNotSkip && skips.length > 0) {
    problems.push(`CI is set, and the ${phase.name} phase skipped ${skips.length} test(s) or group(s):\n  ${skips.map(describeSkip).join("\n  ")}`);
  }
}
// Node's "# skipped" counts skipped tests only; a group skipped whole counts once here.
totals.skipped = skipped.length;
if (skipped.length > 0) console.log(`\nSkipped:\n  ${skipped.map(describeSkip).join("\n  ")}`);
if (notRun.length > 0) console.log(`\nNot run on a VS Code where it does not pass yet (test/harness/vscode-targets.json):\n  ${notRun.join("\n  ")}`);
const extra = [totals.skipped && `${totals.skipped} skipped`, totals.todo && `${totals.todo} todo`, totals.cancelled && `${totals.cancelled} cancelled`].filter(
  Boolean,
);
rmSync(checkpoints, { recursive: true, force: true });
console.log(`\n${totals.pass} passed, ${totals.fail + totals.cancelled} failed${extra.length ? `, ${extra.join(", ")}` : ""}`);
for (const problem of problems) console.error(`FAILED: ${problem}`);
process.exit(status !== 0 || totals.fail + totals.cancelled > 0 || problems.length > 0 ? 1 : 0);

/** The phases `--phase=a,b` (repeatable), `--unit` and `--e2e` name; all of them when none is named. */
function choosePhases(args) {
  const named = args.flatMap((arg) => {
    if (arg === "--unit") return ["unit"];
    if (arg === "--e2e") return ["e2e"];
    return arg.startsWith("--phase=") ? arg.slice("--phase=".length).split(",") : [];
  });
  const unknown = named.filter((name) => !PHASES.includes(name));
  if (unknown.length > 0) {
    console.error(`run-tests: no phase ${unknown.join(", ")}; the phases are ${PHASES.join(", ")}`);
    process.exit(2);
  }
  return new Set(named.length > 0 ? named : PHASES);
}

/** Why a TEST_FILTER run ran nothing: the files it matches are in phases not chosen, or there are none. */
function unmatchedFilter(text) {
  const elsewhere = files.filter((file) => phaseOf(file) !== undefined && !chosen.has(phaseOf(file)));
  if (elsewhere.length === 0) return `TEST_FILTER=${text} matches no test file under ${root} (build first?)`;
  const where = [...new Set(elsewhere.map(phaseOf))].join(",");
  return `TEST_FILTER=${text} matches no test file of the phases run (${[...chosen].join(", ")}); it matches ${elsewhere.join(", ")}: run with --phase=${where}`;
}

/** `CI=true` (GitHub Actions, GitLab, most services) or any other value but "false"/"0". */
function isCI(value) {
  const text = value?.trim().toLowerCase();
  return text !== undefined && text !== "" && text !== "false" && text !== "0";
}

/**
 * Runs `files` of `phase` under Node's test runner, passing its TAP through; adds its closing
 * counts to the totals and returns its skipped tests and groups (scripts/skip-reporter.mjs).
 */
function runPhase(phase, files, env) {
  const skipsDir = mkdtempSync(join(tmpdir(), "symposium-skips-"));
  const skipsFile = join(skipsDir, "skipped.jsonl");
  const args = [
    "--test",
    `--test-concurrency=${phase.concurrency}`,
    `--test-timeout=${phase.timeoutMs}`,
    "--test-reporter=tap",
    "--test-reporter-destination=stdout",
    `--test-reporter=${SKIP_REPORTER}`,
    `--test-reporter-destination=${skipsFile}`,
    ...runnerArgs,
    ...files,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"], env });
    let pending = "";
    const read = (line) => countLine(line);
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      lines.forEach(read);
    });
    child.on("close", (code) => {
      read(pending);
      const skips = existsSync(skipsFile)
        ? readFileSync(skipsFile, "utf8")
            .split("\n")
            .filter((line) => line.trim() !== "")
            .map((line) => JSON.parse(line))
        : [];
      rmSync(skipsDir, { recursive: true, force: true });
      resolve({ code: code ?? 1, skips });
    });
  });
}

/** "test/unit/x.test.ts › group › test (whole group): reason", named by the source file a reader edits. */
function describeSkip({ file, names, group, reason }) {
  const source = relative(process.cwd(), file)
    .replace(/^out[\\/]/, "")
    .replace(/\.js$/, ".ts");
  return `${[source, ...names].join(" › ")}${group ? " (whole group)" : ""}${reason ? `: ${reason}` : ""}`;
}

function countLine(line) {
  const match = /^# (pass|fail|skipped|todo|cancelled) (\d+)$/.exec(line.trim());
  if (match) totals[match[1]] += Number(match[2]);
}

/**
 * Stops what a run left running: every process that inherited its mark (Linux: /proc) and is
 * still there 2 s after the run, such as a chat host a test's code-server started detached.
 * Says so on stderr; elsewhere the harness's own cleanup (CodeServer.stop) is all there is.
 */
async function stopLeftovers(mark, what) {
  if (process.platform !== "linux") return;
  if (marked(mark).length === 0) return;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const left = marked(mark);
  if (left.length === 0) return;
  console.error(
    `run-tests: ${what} left ${left.length} process(es) running; stopping them:\n  ${left.map(({ pid, command }) => `${pid} ${command}`).join("\n  ")}`,
  );
  const { stopProcessTree } = await import("../out/acp-wire/src/processes.js");
  await Promise.all(left.map(({ pid }) => stopProcessTree(pid)));
}

/** Processes whose environment carries RUN_MARK=mark, with their command lines. */
function marked(mark) {
  const wanted = `${RUN_MARK}=${mark}`;
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(wanted)) return [];
        return [{ pid: Number(pid), command: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 160) }];
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });
}
