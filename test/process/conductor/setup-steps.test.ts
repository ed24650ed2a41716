// scripts/steps.mjs, the steps of `npm start` and `npm test`'s setup (not "screens of
// install noise"): one line per step on stderr, the tools' output in the setup log, and on
// failure the log's path and last lines; `npm test` never empties that log.
// Real processes: the module runs in a child Node.

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { REPO_DIR, tempDir } from "../../support/processes.js";

const STEPS = pathToFileURL(path.join(REPO_DIR, "scripts", "steps.mjs")).href;

/** Runs one step of a tool that prints `lines` noisy lines and exits with `code`, as `npm start` would. */
function runStep(lines: number, code: number): { status: number | null; stdout: string; stderr: string; log: string; logFile: string } {
  const logFile = path.join(tempDir("symposium-steps-"), "setup.log");
  const tool = `for (let i = 1; i <= ${lines}; i++) console.log("npm warn noise " + i); process.exit(${code});`;
  const script = `import { startLog, step } from ${JSON.stringify(STEPS)};
startLog();
await step("Installing things", process.execPath, ["-e", ${JSON.stringify(tool)}]);
console.error("after the step");`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, SYMPOSIUM_SETUP_LOG: logFile },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, log: fs.readFileSync(logFile, "utf8"), logFile };
}

describe("setup steps (npm start, npm test)", () => {
  it("print one line per step and put the tool's output in the log", () => {
    const run = runStep(40, 0);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, "", "nothing on stdout");
    assert.match(run.stderr, /^Installing things… done \(\d+ s\)\nafter the step\n$/);
    assert.match(run.log, /npm warn noise 1\n[\s\S]*npm warn noise 40\n/);
  });

  it("on failure, name the log and show its last lines, then stop", () => {
    const run = runStep(40, 3);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^Installing things… failed \(3\)\. Its output is in (.+); the last lines:\n/);
    assert.ok(run.stderr.includes(run.logFile), "the log's path");
    assert.match(run.stderr, /npm warn noise 40\n/);
    assert.doesNotMatch(run.stderr, /npm warn noise 20\n/, "only the last lines");
    assert.doesNotMatch(run.stderr, /after the step/, "the steps after a failed one do not run");
  });

  it("run one step as a program (how the demo installs code-server)", () => {
    const logFile = path.join(tempDir("symposium-steps-"), "setup.log");
    const tool = 'console.log("apt-get noise"); console.error("more noise")';
    const result = spawnSync(process.execPath, [path.join(REPO_DIR, "scripts", "steps.mjs"), "Installing code-server", process.execPath, "-e", tool], {
      encoding: "utf8",
      env: { ...process.env, SYMPOSIUM_SETUP_LOG: logFile },
    });
    assert.equal(result.status, 0);
    assert.match(result.stderr, /^Installing code-server… done \(\d+ s\)\n$/);
    assert.match(fs.readFileSync(logFile, "utf8"), /apt-get noise\nmore noise\n/);
  });

  it("npm test's pretest leaves the setup log npm start wrote", () => {
    const logFile = path.join(tempDir("symposium-steps-"), "setup.log");
    fs.writeFileSync(logFile, "== npm start's build output\n");
    const result = spawnSync(process.execPath, [path.join(REPO_DIR, "scripts", "ensure-deps.mjs")], {
      encoding: "utf8",
      env: { ...process.env, SYMPOSIUM_SETUP_LOG: logFile },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(fs.readFileSync(logFile, "utf8"), "== npm start's build output\n");
  });

  it("a step makes the log's folder when nothing has yet (a fresh clone has no out/)", () => {
    const logFile = path.join(tempDir("symposium-steps-"), "out", "setup.log");
    const result = spawnSync(process.execPath, [path.join(REPO_DIR, "scripts", "steps.mjs"), "Installing", process.execPath, "-e", 'console.log("noise")'], {
      encoding: "utf8",
      env: { ...process.env, SYMPOSIUM_SETUP_LOG: logFile },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(fs.readFileSync(logFile, "utf8"), /noise\n/);
  });

  it("report a program that cannot start as a failed step", () => {
    const logFile = path.join(tempDir("symposium-steps-"), "setup.log");
    const script = `import { startLog, step } from ${JSON.stringify(STEPS)};
startLog();
await step("Running a missing tool", "symposium-no-such-program", []);`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, SYMPOSIUM_SETUP_LOG: logFile },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^Running a missing tool… failed \(1\)\. Its output is in .*\n.*ENOENT/s);
  });
});
