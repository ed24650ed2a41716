// The first lines of a file, for the locations find_references and
// find_definitions list (editor-tools/src/read-disk.ts readLeadingLines): read
// only as far as the last line shown, never past the byte bound (issue 44: a
// page of references used to read each of up to 100 files whole).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { readDisk, readLeadingLines } from "../../../editor-tools/src/read-disk.js";
import { scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();

describe("readLeadingLines", () => {
  const dir = scratch("symposium-lines-");
  const big = path.join(dir, "big.ts");
  const lines = Array.from({ length: 200_000 }, (_, index) => `const line${index} = ${index}; // ${"x".repeat(40)}`);
  fs.writeFileSync(big, lines.join("\r\n"));

  it("reads a 10 MB file only as far as the lines asked for", () => {
    assert.ok(fs.statSync(big).size > 10_000_000);
    const first = readLeadingLines(big, [dir], 3, 4 * 1024 * 1024);
    assert.deepEqual(first.lines, lines.slice(0, 3));
    assert.ok(first.bytesRead <= 64 * 1024, `read ${first.bytesRead} bytes for 3 lines`);
    const thousand = readLeadingLines(big, [dir], 1000, 4 * 1024 * 1024);
    assert.equal(thousand.lines[999], lines[999]);
    assert.ok(thousand.bytesRead <= 64 * 1024 * 2, `read ${thousand.bytesRead} bytes for 1,000 lines of ~60 bytes`);
  });

  it("never reads past the byte bound; a line cut by it is left out", () => {
    const bounded = readLeadingLines(big, [dir], 200_000, 100_000);
    assert.equal(bounded.bytesRead, 100_000);
    assert.ok(bounded.lines.length > 1000 && bounded.lines.length < 2000);
    assert.deepEqual(bounded.lines, lines.slice(0, bounded.lines.length), "whole lines only");
    assert.deepEqual(readLeadingLines(big, [dir], 5, 0), { lines: [], bytesRead: 0 });
  });

  it(
    "a short file: all its lines; opened step by step inside its folder: a link out, a directory, a path outside refused",
    { skip: process.platform === "win32" },
    () => {
      const small = path.join(dir, "small.ts");
      fs.writeFileSync(small, "a\nb");
      assert.deepEqual(readLeadingLines(small, [dir], 10, 1024).lines, ["a", "b"]);
      fs.symlinkSync(small, path.join(dir, "link.ts"));
      assert.deepEqual(readLeadingLines(path.join(dir, "link.ts"), [dir], 1, 1024).lines, ["a"], "a link that stays inside is read");
      const outside = scratch("symposium-lines-outside-");
      fs.writeFileSync(path.join(outside, "secret.ts"), "secret");
      fs.symlinkSync(path.join(outside, "secret.ts"), path.join(dir, "out.ts"));
      assert.throws(() => readLeadingLines(path.join(dir, "out.ts"), [dir], 1, 1024), /refused: it leads outside the project directory through a symlink/);
      assert.throws(() => readDisk(path.join(dir, "out.ts"), [dir]), /refused: it leads outside the project directory through a symlink/);
      fs.mkdirSync(path.join(dir, "folder.ts"));
      assert.throws(() => readDisk(path.join(dir, "folder.ts"), [dir]), /folder\.ts is not a regular file/);
      assert.throws(() => readDisk(path.join(outside, "secret.ts"), [dir]), /is outside the workspace folders/);
      assert.equal(readDisk(small, [outside, dir]), "a\nb", "the folder that holds it is used");
    },
  );
});
