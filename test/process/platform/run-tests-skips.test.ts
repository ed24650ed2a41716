// scripts/run-tests.mjs names and counts what was skipped (a closing "1 skipped" once
// hid whole groups skipped): a skipped test, and a `describe` skipped whole (whose
// tests Node's own count leaves out), each named with its reason just before the
// closing line, which keeps its "N passed, N failed, N skipped" form. It runs each
// folder of test/ as a phase of its own, and runs no file outside them silently.
// The real runner runs small test files written for the test, in a folder of its own.

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO_DIR, tempDir } from "../../support/processes.js";

const RUN_TESTS = path.join(REPO_DIR, "scripts", "run-tests.mjs");

const FAKE_TESTS = `const { describe, it } = require("node:test");
describe("the adapters", { skip: "adapters not installed (run scripts/install-agent-adapters.sh)" }, () => {
  it("one", () => {});
  it("two", () => {});
});
describe("the chat", () => {
  it("answers", () => {});
  it("reads an unreadable file", { skip: "runs as root" }, () => {});
  it("sees the theme", () => {});
});
`;

/** A test file whose one test, named `name`, passes. */
const passing = (name: string) => `require("node:test").it(${JSON.stringify(name)}, () => {});\n`;

/** Runs the real runner in a folder holding `files` (paths under out/test) and returns what it printed. */
function runTests(files: Record<string, string>, env: NodeJS.ProcessEnv, args: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const dir = tempDir("symposium-run-tests-");
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, "out", "test", name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  // Not this run's: NODE_TEST_CONTEXT would make the inner runner report to ours instead of printing.
  const { CI: _ci, TEST_FILTER: _filter, NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  // One VS Code target: the end-to-end phase runs once (the runner repeats it per target otherwise).
  const result = spawnSync(process.execPath, [RUN_TESTS, ...args], { cwd: dir, encoding: "utf8", env: { ...inherited, SYMPOSIUM_VSCODE: "oldest", ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("npm test's closing lines (scripts/run-tests.mjs)", () => {
  it("count a group skipped whole and name every skipped test and group with its reason", () => {
    const run = runTests({ "unit/fake.test.js": FAKE_TESTS }, {});
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /\nSkipped:\n {2}test\/unit\/fake\.test\.ts › the adapters \(whole group\): adapters not installed \(run scripts\/install-agent-adapters\.sh\)\n {2}test\/unit\/fake\.test\.ts › the chat › reads an unreadable file: runs as root\n\n2 passed, 0 failed, 2 skipped\n$/,
    );
  });

  it("under CI, fail an end-to-end phase that skipped a group, naming it", () => {
    const run = runTests({ "process/fake.test.js": FAKE_TESTS.replace(/\{ skip: "runs as root" \}, /, ""), "e2e/browser.test.js": FAKE_TESTS }, { CI: "true" });
    assert.equal(run.status, 1);
    assert.match(run.stdout, /\n5 passed, 0 failed, 3 skipped\n$/);
    assert.match(
      run.stderr,
      /FAILED: CI is set, and the end-to-end \(VS Code: oldest\) phase skipped 2 test\(s\) or group\(s\):\n {2}test\/e2e\/browser\.test\.ts › the adapters \(whole group\)/,
    );
  });

  it("run only the phases named, and fail a filter that matches files of the others only, naming them", () => {
    const files = { "unit/a.test.js": passing("a"), "process/b.test.js": passing("b"), "toad/c.test.js": passing("c") };
    const processOnly = runTests(files, {}, ["--phase=process"]);
    assert.equal(processOnly.status, 0, processOnly.stderr);
    assert.match(processOnly.stdout, /\n1 passed, 0 failed\n$/);
    assert.match(processOnly.stdout, /\nok 1 - b\n/);
    const elsewhere = runTests(files, { TEST_FILTER: "c.test" }, ["--unit"]);
    assert.equal(elsewhere.status, 1);
    assert.match(
      elsewhere.stderr,
      /FAILED: TEST_FILTER=c\.test matches no test file of the phases run \(unit\); it matches out\/test\/toad\/c\.test\.js: run with --phase=toad/,
    );
  });

  it("fail a run that holds a test file in no phase's folder, naming it", () => {
    const run = runTests({ "unit/a.test.js": passing("a"), "stray.test.js": passing("stray") }, {});
    assert.equal(run.status, 1);
    assert.match(run.stdout, /\n1 passed, 0 failed\n$/);
    assert.match(run.stderr, /FAILED: out\/test\/stray\.test\.js is in no phase's folder/);
  });
});
