// Where the state file lives and how it is written, by each platform's rules:
// Windows keeps it under the user's local application data (%LOCALAPPDATA%,
// private by its ACL, never roamed), and a rename refused because a reader or
// an antivirus scanner holds the file (EPERM, EBUSY: Windows' sharing rules
// for MoveFileEx) is tried again a few times, soon, without blocking.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it, type TestContext } from "node:test";
import writeFileAtomic from "write-file-atomic";
import { directoryCandidates } from "../../../extension/src/tracker/state-file-location.js";
import { BUSY_RETRY, StateFileWriter } from "../../../extension/src/tracker/state-file-writer.js";
import { editorOn } from "../../support/editor-facts.js";
import { tempDir } from "../../support/processes.js";

function busy(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: operation not permitted, rename 'state.json.123' -> 'state.json'`), { code });
}

/** A writer whose renames fail with `code` `failures` times, then go through (write-file-atomic, for real). */
function writerFailing(file: string, code: string, failures: number) {
  const errors: string[] = [];
  let attempts = 0;
  const ignore = (): void => {};
  const instance = new StateFileWriter({
    editorFacts: () => editorOn("fn main() {}\n", [[0, 2]]),
    workspaceFolders: () => ["/project"],
    log: { info: ignore, warn: ignore, error: (message) => errors.push(message) },
    written: ignore,
    writeFile: (target, text) => {
      if (++attempts <= failures) throw busy(code);
      writeFileAtomic.sync(target, text, { mode: 0o600, fsync: false });
    },
  });
  instance.path = file;
  return { instance, errors, attempts: () => attempts };
}

const allRetriesMs = Array.from({ length: BUSY_RETRY.attempts }, (_, index) => BUSY_RETRY.firstDelayMs * 2 ** index).reduce((a, b) => a + b, 0);

/** Moves the mocked clock past every retry's time, a millisecond at a time, so that each retry a retry schedules runs too. */
function pastEveryRetry(t: TestContext): void {
  for (let ms = 0; ms <= allRetriesMs; ms++) t.mock.timers.tick(1);
}

describe("platform: the state file", () => {
  it("on Windows, lives under %LOCALAPPDATA%, then the user's temp directory", () => {
    const logged: string[] = [];
    const candidates = directoryCandidates(
      (message) => logged.push(message),
      { LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local", XDG_RUNTIME_DIR: "/run/user/1000" },
      "win32",
    );
    assert.equal(candidates[0], "C:\\Users\\me\\AppData\\Local\\Symposium");
    assert.equal(candidates[1], path.join(fs.realpathSync(os.tmpdir()), "symposium"));
    assert.equal(candidates.length, 2, "XDG_RUNTIME_DIR means nothing on Windows");
    assert.deepEqual(
      directoryCandidates((message) => logged.push(message), {}, "win32"),
      [candidates[1]],
    );
    assert.match(logged.join("\n"), /LOCALAPPDATA is not set/);
  });

  for (const code of ["EPERM", "EBUSY"]) {
    it(`writes the file after renames refused with ${code} while something held it`, (t) => {
      t.mock.timers.enable({ apis: ["setTimeout"] });
      const file = path.join(tempDir("symposium-busy-"), "state.json");
      const { instance, errors, attempts } = writerFailing(file, code, 3);
      instance.writeNow();
      assert.equal(fs.existsSync(file), false, "the first try was refused");
      pastEveryRetry(t);
      assert.equal(attempts(), 4);
      assert.ok(fs.existsSync(file), "written on a later try");
      assert.deepEqual(errors, [], "nothing to report");
      assert.deepEqual(fs.readdirSync(path.dirname(file)), ["state.json"], "no temporary file left behind");
    });
  }

  it("reports a file that stays held, once, after the retries", (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const file = path.join(tempDir("symposium-busy-"), "state.json");
    const { instance, errors, attempts } = writerFailing(file, "EBUSY", 1000);
    instance.writeNow();
    pastEveryRetry(t);
    assert.equal(attempts(), BUSY_RETRY.attempts + 1);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /cannot write the editor state file .*EBUSY/);
  });

  it("drops a pending retry when the file is being removed", (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const file = path.join(tempDir("symposium-busy-"), "state.json");
    const { instance, attempts } = writerFailing(file, "EPERM", 1);
    instance.writeNow();
    instance.reset();
    instance.path = undefined;
    pastEveryRetry(t);
    assert.equal(attempts(), 1);
    assert.equal(fs.existsSync(file), false);
  });
});
