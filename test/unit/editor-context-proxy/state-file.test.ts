import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { describe, it } from "node:test";
import { StateFileReader } from "../../../editor-context-proxy/src/index.js";
import { tempDir } from "../../support/processes.js";
import { SEED_STATE, ageFile, writeStateFile } from "../../support/state-files.js";

const POSIX = process.platform !== "win32";
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** How many times `fs.readSync` ran while `body` did (the reader's module sees the counting one). */
function readsDuring(body: () => void): number {
  const fsModule = createRequire(import.meta.url)("node:fs") as typeof fs;
  const original = fsModule.readSync;
  let reads = 0;
  fsModule.readSync = ((...args: Parameters<typeof fs.readSync>) => {
    reads++;
    return original(...args);
  }) as typeof fs.readSync;
  syncBuiltinESMExports();
  try {
    body();
  } finally {
    fsModule.readSync = original;
    syncBuiltinESMExports();
  }
  return reads;
}

function reasonFor(file: string | undefined): string {
  const result = new StateFileReader(file).read();
  assert.equal(result.ok, false, "expected the file to be skipped");
  return (result as { reason: string }).reason;
}

describe("state file reader", () => {
  it("reads a file in exactly the format of Symposium's VS Code design", () => {
    const result = new StateFileReader(writeStateFile(SEED_STATE)).read();
    assert.ok(result.ok);
    assert.equal(result.state.activeFile, "/project/src/main.rs");
    assert.deepEqual(result.state.selections, [SEED_STATE.selection]);
  });

  it("skips, with a reason, every file it must not use", () => {
    assert.match(reasonFor(undefined), /SYMPOSIUM_EDITOR_STATE_FILE is not set/);
    assert.match(reasonFor(path.join(tempDir(), "missing.json")), /does not exist/);
    assert.match(reasonFor(tempDir()), /not a regular file \(a directory\)/);
    assert.match(reasonFor(writeStateFile("{ not json")), /not valid JSON/);
    assert.match(reasonFor(writeStateFile("[1, 2]")), /does not hold a JSON object/);
    assert.match(reasonFor(writeStateFile("null")), /does not hold a JSON object/);
    assert.match(reasonFor(writeStateFile({ activeFile: null, workspaceFolders: [] })), /names no active file/);
    const stale = writeStateFile(SEED_STATE);
    ageFile(stale, 31);
    assert.match(reasonFor(stale), /stale: last written 31 s ago/);
    const future = writeStateFile(SEED_STATE);
    ageFile(future, -3600);
    assert.match(reasonFor(future), /in the future/);
  });

  it("refuses a huge file without reading it", () => {
    const file = writeStateFile("");
    fs.truncateSync(file, 300 * 1024 * 1024); // sparse: costs no disk
    const reads = readsDuring(() => assert.match(reasonFor(file), /over the \d+-byte limit/));
    assert.equal(reads, 0, "decided from fstat, not by reading");
    assert.ok(readsDuring(() => new StateFileReader(writeStateFile(SEED_STATE)).read()) > 0, "the count sees the reader's reads");
  });

  it("never blocks on a FIFO, and refuses devices behind symlinks", { skip: POSIX ? false : "FIFOs and /dev/zero are POSIX-only" }, () => {
    const dir = tempDir();
    const fifo = path.join(dir, "state.json");
    execFileSync("mkfifo", [fifo]);
    assert.match(reasonFor(fifo), /not a regular file \(a FIFO\)/);
    const link = path.join(dir, "zero.json");
    fs.symlinkSync("/dev/zero", link);
    assert.match(reasonFor(link), /not a regular file \(a character device\)/);
  });

  it("reports an unreadable file", { skip: isRoot || !POSIX ? "root (or Windows) can read a mode-000 file" : false }, () => {
    const file = writeStateFile(SEED_STATE);
    fs.chmodSync(file, 0o000);
    assert.match(reasonFor(file), /not readable/);
  });

  it("sees a rewrite at once, even of the same size within the same second", () => {
    const file = writeStateFile({ ...SEED_STATE, languageId: "rust" });
    const reader = new StateFileReader(file);
    const first = reader.read();
    assert.ok(first.ok && first.state.languageId === "rust");
    // An atomic replace, as the tracker does it: a new inode at the same path.
    const next = `${file}.tmp`;
    fs.writeFileSync(next, JSON.stringify({ ...SEED_STATE, languageId: "ruby" }));
    fs.renameSync(next, file);
    const second = reader.read();
    assert.ok(second.ok);
    assert.equal(second.state.languageId, "ruby");
  });
});
