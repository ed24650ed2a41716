// scripts/run-tests.mjs names and counts what was skipped (issue 32: "1 skipped"
// while whole groups were): a skipped test, and a `describe` skipped whole (whose
// tests Node's own count leaves out), each named with its reason just before the
// closing line, which keeps its "N passed, N failed, N skipped" form. The real
// runner runs a small test file written for the test, in a folder of its own.

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO_DIR, tempDir } from "../support/processes.js";

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

/** Runs the real runner in a folder holding `files` (paths under out/test) and returns what it printed. */
function runTests(files: Record<string, string>, env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const dir = tempDir("symposium-run-tests-");
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, "out", "test", name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  // Not this run's: NODE_TEST_CONTEXT would make the inner runner report to ours instead of printing.
  const { CI: _ci, TEST_FILTER: _filter, NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  // One VS Code target: the end-to-end phase runs once (the runner repeats it per target otherwise).
  const result = spawnSync(process.execPath, [RUN_TESTS], { cwd: dir, encoding: "utf8", env: { ...inherited, SYMPOSIUM_VSCODE: "oldest", ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("npm test's closing lines (scripts/run-tests.mjs)", () => {
  it("count a group skipped whole and name every skipped test and group with its reason", () => {
    const run = runTests({ "fake.test.js": FAKE_TESTS }, {});
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /\nSkipped:\n {2}test\/fake\.test\.ts › the adapters \(whole group\): adapters not installed \(run scripts\/install-agent-adapters\.sh\)\n {2}test\/fake\.test\.ts › the chat › reads an unreadable file: runs as root\n\n2 passed, 0 failed, 2 skipped\n$/,
    );
  });

  it("under CI, fail an end-to-end phase that skipped a group, naming it", () => {
    const run = runTests({ "fake.test.js": FAKE_TESTS.replace(/\{ skip: "runs as root" \}, /, ""), "e2e/browser.test.js": FAKE_TESTS }, { CI: "true" });
    assert.equal(run.status, 1);
    assert.match(run.stdout, /\n5 passed, 0 failed, 3 skipped\n$/);
    assert.match(
      run.stderr,
      /FAILED: CI is set, and the end-to-end \(VS Code: oldest\) phase skipped 2 test\(s\) or group\(s\):\n {2}test\/e2e\/browser\.test\.ts › the adapters \(whole group\)/,
    );
  });
});
