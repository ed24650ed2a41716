// The tracker's half of "the agent sees what the user sees",
// outside VS Code: the real writer (state-file-writer.ts) with the real
// snapshot store (unsaved-snapshots.ts) on the real file system, read back
// with the proxy's own reader (editor-context-proxy/src/state-file.ts).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { MAX_SNAPSHOTS_TOTAL_BYTES, MAX_SNAPSHOT_BYTES, isSnapshotName, parseUnsavedDocuments } from "../../../editor-state/src/index.js";
import { StateFileReader } from "../../../editor-context-proxy/src/state-file.js";
import { UnsavedFiles } from "../../../editor-context-proxy/src/unsaved-files.js";
import { ProjectFiles } from "../../../webchat/src/project-files.js";
import { StateFileWriter } from "../../../extension/src/tracker/state-file-writer.js";
import { UnsavedSnapshots, type UnsavedDocumentFacts } from "../../../extension/src/tracker/unsaved-snapshots.js";
import { editorOn } from "../../support/editor-facts.js";
import { tempDir } from "../../support/processes.js";
import { SEED_STATE } from "../../support/state-files.js";

const POSIX = process.platform !== "win32";

/** A dirty document as the tracker sees it; `reads` counts copies of its text. */
function dirty(file: string, text: string, version = 2): UnsavedDocumentFacts & { reads: number } {
  const document = { path: file, version, length: text.length, reads: 0, text: () => (document.reads++, text) };
  return document;
}

/** A window: writer + snapshots on a state file in a fresh 0700 directory; `documents` is what is dirty now. */
function window(documents: { current: UnsavedDocumentFacts[] }) {
  const dir = tempDir("symposium-window-");
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, "editor-state-00112233445566778899aabbccddeeff.json");
  const warnings: string[] = [];
  const log = {
    info: (message: string) => void message,
    warn: (message: string) => warnings.push(message),
    error: (message: string) => warnings.push(message),
  };
  const snapshots = new UnsavedSnapshots(log);
  const writer = new StateFileWriter({
    editorFacts: () => editorOn("fn main() {}\n", [[0, 2]]),
    workspaceFolders: () => ["/project"],
    unsavedDocuments: (stateFile) => snapshots.sync(stateFile, documents.current),
    log,
    written: () => snapshots.removeObsolete(file),
  });
  writer.path = file;
  const listed = () => parseUnsavedDocuments(JSON.parse(fs.readFileSync(file, "utf8")));
  const snapshotFiles = () =>
    fs
      .readdirSync(dir)
      .filter((name) => name.includes(".unsaved-"))
      .sort();
  return { dir, file, writer, snapshots, warnings, log, listed, snapshotFiles };
}

describe("unsaved documents in the state file", () => {
  it("writes one private snapshot per dirty document, listed with path and version, read back by the proxy", () => {
    const docs = { current: [dirty("/project/src/a.rs", "a, unsaved\n", 3), dirty("/project/src/b.rs", "b: ünïcödé 🦀\n", 9)] };
    const w = window(docs);
    w.writer.writeNow();
    const listed = w.listed();
    assert.deepEqual(
      listed.map(({ path, version }) => [path, version]),
      [
        ["/project/src/a.rs", 3],
        ["/project/src/b.rs", 9],
      ],
    );
    for (const [index, entry] of listed.entries()) {
      assert.ok(isSnapshotName(entry.snapshot), String(entry.snapshot));
      const snapshot = path.join(w.dir, entry.snapshot);
      assert.equal(fs.readFileSync(snapshot, "utf8"), docs.current[index]!.text());
      if (POSIX) assert.equal(fs.statSync(snapshot).mode & 0o777, 0o600);
    }
    if (POSIX) assert.equal(fs.statSync(w.dir).mode & 0o777, 0o700);
    const read = new StateFileReader(w.file).read();
    assert.ok(read.ok);
    assert.deepEqual(read.unsaved, listed, "the proxy's reader sees the same list");
    const answer = new UnsavedFiles(w.file, () => new StateFileReader(w.file).read()).answer({
      jsonrpc: "2.0",
      id: 1,
      method: "fs/read_text_file",
      params: { path: "/project/src/b.rs" },
    });
    assert.deepEqual(answer, { result: { content: "b: ünïcödé 🦀\n" } });
  });

  it("rewrites a snapshot only for a new version, and removes it after a state file without it is written (save, revert, close)", () => {
    const a = dirty("/project/a.rs", "one");
    const docs = { current: [a] };
    const w = window(docs);
    w.writer.writeNow();
    const [first] = w.snapshotFiles();
    w.writer.refresh();
    w.writer.writeNow();
    assert.equal(a.reads, 1, "an unchanged version is not copied again");
    const a2 = dirty("/project/a.rs", "one, two", 3);
    docs.current = [a2];
    w.writer.writeNow();
    assert.deepEqual(w.snapshotFiles(), [first], "same document, same snapshot name");
    assert.equal(fs.readFileSync(path.join(w.dir, first!), "utf8"), "one, two");
    assert.equal(w.listed()[0]!.version, 3);
    docs.current = []; // saved, reverted or closed: no longer dirty
    w.writer.writeNow();
    assert.deepEqual(w.listed(), []);
    assert.ok(!("unsavedDocuments" in (JSON.parse(fs.readFileSync(w.file, "utf8")) as object)), "no list when nothing is unsaved");
    assert.deepEqual(w.snapshotFiles(), [], "its snapshot is gone");
  });

  it("removes every snapshot when the window closes, and sweeps those a crashed window left", () => {
    const docs = { current: [dirty("/project/a.rs", "a"), dirty("/project/b.rs", "b")] };
    const w = window(docs);
    w.writer.writeNow();
    assert.equal(w.snapshotFiles().length, 2);
    const leftover = path.join(w.dir, `${path.basename(w.file, ".json")}.unsaved-deadbeefdeadbeef.txt`);
    fs.writeFileSync(leftover, "from a crashed extension host");
    const otherWindows = path.join(w.dir, "editor-state-ffffffffffffffffffffffffffffffff.unsaved-0000000000000000.txt");
    fs.writeFileSync(otherWindows, "another window's");
    fs.unlinkSync(w.file);
    w.snapshots.removeAll(w.file);
    assert.deepEqual(w.snapshotFiles(), [path.basename(otherWindows)], "this window's are gone, another window's stay");
    // A new window reusing this state file's path (a reload) sweeps what a crash left behind.
    fs.writeFileSync(leftover, "from a crashed extension host");
    const again = new UnsavedSnapshots(w.log);
    again.sync(w.file, []);
    assert.ok(!fs.existsSync(leftover));
  });

  it(`caps a snapshot at ${MAX_SNAPSHOT_BYTES} bytes and all of them at ${MAX_SNAPSHOTS_TOTAL_BYTES}; a document over the caps is listed without one`, () => {
    const big = (name: string, bytes: number) => dirty(`/project/${name}`, "x".repeat(bytes));
    // 3-byte characters: under the cap in characters, over it in UTF-8 bytes.
    const wide = dirty("/project/wide.txt", "€".repeat(MAX_SNAPSHOT_BYTES / 2));
    const fill = Array.from({ length: 8 }, (_, index) => big(`fill-${index}`, MAX_SNAPSHOT_BYTES)); // exactly the total cap
    const docs = { current: [big("huge", MAX_SNAPSHOT_BYTES + 1), wide, ...fill, big("one-more", 1)] };
    const w = window(docs);
    w.writer.writeNow();
    const listed = w.listed();
    assert.equal(listed.length, 11, "every unsaved document is listed");
    assert.equal(listed[0]!.snapshot, null, "over the per-file cap");
    assert.equal(docs.current[0]!.reads, 0, "its length alone decided: the text was never copied");
    assert.equal(listed[1]!.snapshot, null, "over the cap in UTF-8 bytes");
    assert.ok(
      listed.slice(2, 10).every((entry) => entry.snapshot !== null),
      "the next 16 MiB are written",
    );
    assert.equal(listed[10]!.snapshot, null, "past the total cap");
    const bytes = w.snapshotFiles().reduce((sum, name) => sum + fs.statSync(path.join(w.dir, name)).size, 0);
    assert.equal(bytes, MAX_SNAPSHOTS_TOTAL_BYTES);
  });

  it("answers line and limit exactly as the built-in chat reads a file on disk (webchat/src/project-files.ts)", async () => {
    const cases = ["", "one", "one\n", "one\ntwo", "one\ntwo\n", "\n\n", "a\nb\nc\nd\n€ and 🦀\n"];
    const project = tempDir("symposium-lines-");
    const disk = await ProjectFiles.open(project);
    for (const [index, text] of cases.entries()) {
      const docs = { current: [dirty(path.join(project, `f${index}.txt`), text)] };
      const w = window(docs);
      w.writer.writeNow();
      fs.writeFileSync(path.join(project, `f${index}.txt`), text);
      const files = new UnsavedFiles(w.file, () => new StateFileReader(w.file).read());
      for (const line of [undefined, 0, 1, 2, 3, 7]) {
        for (const limit of [undefined, 0, 1, 2, 5]) {
          const answer = files.answer({
            jsonrpc: "2.0",
            id: 1,
            method: "fs/read_text_file",
            params: { path: path.join(project, `f${index}.txt`), line, limit },
          });
          const expected = await disk.read(path.join(project, `f${index}.txt`), line, limit);
          assert.deepEqual(answer, { result: { content: expected } }, `${JSON.stringify(text)} line ${line} limit ${limit}`);
        }
      }
    }
  });

  it("parses older trackers' files (no list) and drops bad entries one by one", () => {
    assert.deepEqual(parseUnsavedDocuments(SEED_STATE), []);
    assert.deepEqual(
      parseUnsavedDocuments({
        unsavedDocuments: [
          { path: "/p/a", version: 1, snapshot: "ok.txt" },
          { path: "/p/b", version: 2, snapshot: "../escape" },
          { path: "/p/c", version: 3, snapshot: "/abs/path" },
          { path: "/p/d", version: 4, snapshot: ".." },
          { path: "/p/e", version: 5, snapshot: "sub\\dir" },
          { path: "", version: 1, snapshot: "x" },
          { path: "/p/f", version: 0, snapshot: "x" },
          "junk",
        ],
      }),
      [
        { path: "/p/a", version: 1, snapshot: "ok.txt" },
        { path: "/p/b", version: 2, snapshot: null },
        { path: "/p/c", version: 3, snapshot: null },
        { path: "/p/d", version: 4, snapshot: null },
        { path: "/p/e", version: 5, snapshot: null },
      ],
    );
  });
});
