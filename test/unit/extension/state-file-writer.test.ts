// The tracker's writer (extension/src/tracker/state-file-writer.ts) outside VS Code:
// a burst of changes is one write after the debounce, unchanged content is
// not rewritten, the file is private and holds what the builder built.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { buildStateFile, parseEditorState, type EditorFacts } from "../../../editor-state/src/index.js";
import { StateFileWriter } from "../../../extension/src/tracker/state-file-writer.js";
import { editorOn } from "../../support/editor-facts.js";
import { tempDir } from "../../support/processes.js";

const TEXT = "fn main() {\n    run();\n}\n";

/** TEXT with one selection [0, end), as the tracker reads it off VS Code. */
const facts = (end: number): EditorFacts => editorOn(TEXT, [[0, end]]);

function writer(file: string, end: { value: number }, errors: string[] = []) {
  let writes = 0;
  const ignore = (): void => {};
  const instance = new StateFileWriter({
    editorFacts: () => facts(end.value),
    workspaceFolders: () => ["/project"],
    log: { info: ignore, warn: ignore, error: (message) => errors.push(message) },
    written: () => writes++,
  });
  instance.path = file;
  return { instance, writes: () => writes };
}

describe("StateFileWriter", () => {
  it("writes a burst of changes once, 100 ms after the last, as the builder built it", (t) => {
    // The debounce reads the clock and sets timers: both are the test's, so the 100 ms is exact.
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
    const file = path.join(tempDir(), "state.json");
    const end = { value: 1 };
    const { instance, writes } = writer(file, end);
    for (let i = 2; i <= 10; i++) {
      end.value = i;
      instance.schedule();
      t.mock.timers.tick(20);
    }
    assert.equal(writes(), 0, "nothing written while changes keep coming");
    t.mock.timers.tick(79);
    assert.equal(writes(), 0, "nothing written 99 ms after the last change");
    t.mock.timers.tick(1);
    assert.equal(writes(), 1, "one write 100 ms after the last change");
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    const built = buildStateFile({ editor: facts(10), workspaceFolders: ["/project"], writerPid: process.pid, now: new Date(written.updatedAt as string) });
    assert.deepEqual(written, JSON.parse(JSON.stringify(built)));
    assert.equal(parseEditorState(written)?.selections[0]?.text, TEXT.slice(0, 10), "the proxy reads what was written");
    if (process.platform !== "win32") assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it("previews the latest selection at once, while the write waits for the debounce (the status bar's text)", (t) => {
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
    const file = path.join(tempDir(), "state.json");
    const end = { value: 1 };
    const { instance, writes } = writer(file, end);
    end.value = 6;
    instance.schedule();
    assert.equal(parseEditorState(instance.preview())?.selections[0]?.text, TEXT.slice(0, 6), "the preview has the selection now");
    assert.equal(writes(), 0, "and nothing is written yet");
    assert.equal(fs.existsSync(file), false);
    t.mock.timers.tick(100);
    assert.equal(writes(), 1, "the write follows after the debounce");
  });

  it("does not rewrite unchanged content; refresh only touches the file's time", () => {
    const file = path.join(tempDir(), "state.json");
    const { instance, writes } = writer(file, { value: 4 });
    instance.writeNow();
    instance.writeNow();
    assert.equal(writes(), 1);
    const old = new Date(Date.now() - 20_000);
    fs.utimesSync(file, old, old);
    const before = fs.readFileSync(file, "utf8");
    instance.refresh();
    assert.equal(fs.readFileSync(file, "utf8"), before);
    assert.ok(Date.now() - fs.statSync(file).mtimeMs < 5_000, "refresh made the file fresh");
  });

  it("logs a failed write once and writes again on the next change once it can", () => {
    const dir = tempDir();
    const file = path.join(dir, "gone", "state.json");
    const end = { value: 2 };
    const errors: string[] = [];
    const { instance, writes } = writer(file, end, errors);
    instance.writeNow();
    end.value = 3;
    instance.writeNow();
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0]!, /cannot write the editor state file .*retrying on the next change/);
    fs.mkdirSync(path.dirname(file), { mode: 0o700 });
    instance.writeNow();
    assert.equal(writes(), 1);
  });
});
