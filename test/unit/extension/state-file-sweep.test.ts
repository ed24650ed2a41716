// Editor-state files of ended windows (an extension host
// killed before it could remove its files) are removed when a window starts,
// with their unsaved snapshots; a live window's file, a file just left by a
// reloading window, and other files stay. Real files, a real dead process.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { ENDED_WINDOW_MS, sweepEndedWindows } from "../../../extension/src/tracker/state-file-location.js";
import { tempDir } from "../../support/processes.js";

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

function write(dir: string, name: string, text: string, ageMs: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(file, when, when);
  return file;
}

const id = (n: number) => n.toString(16).padStart(32, "0");
const stateName = (n: number) => `editor-state-${id(n)}.json`;
const snapshotName = (n: number) => `editor-state-${id(n)}.unsaved-${"ab".repeat(8)}.txt`;

describe("sweeping the state files of ended windows", () => {
  it("removes an ended window's state file and snapshots; keeps live, just-left and foreign files", async () => {
    const dir = tempDir("symposium-sweep-");
    const dead = await deadPid();
    const old = ENDED_WINDOW_MS + 60_000;
    const ended = write(dir, stateName(1), JSON.stringify({ writerPid: dead }), old);
    const endedSnapshot = write(dir, snapshotName(1), "fn secret() {}", old);
    const orphanSnapshot = write(dir, snapshotName(9), "fn orphan() {}", old);
    // A live writer (this test's parent process), even if its file is old: a slow window, not an ended one.
    const live = write(dir, stateName(2), JSON.stringify({ writerPid: process.ppid }), old);
    const liveSnapshot = write(dir, snapshotName(2), "fn live() {}", old);
    // A window that is reloading: its writer just ended, its next host reuses the path.
    const justLeft = write(dir, stateName(3), JSON.stringify({ writerPid: dead }), 5_000);
    const freshOrphan = write(dir, snapshotName(8), "fn fresh() {}", 5_000);
    const foreign = write(dir, "notes.txt", "not ours", old);
    const lines: string[] = [];

    assert.equal(
      sweepEndedWindows(dir, (line) => lines.push(line)),
      3,
    );

    for (const gone of [ended, endedSnapshot, orphanSnapshot]) assert.equal(fs.existsSync(gone), false, `${path.basename(gone)} removed`);
    for (const kept of [live, liveSnapshot, justLeft, freshOrphan, foreign]) assert.equal(fs.existsSync(kept), true, `${path.basename(kept)} kept`);
    assert.match(lines.join("\n"), /removed 3 editor-state file\(s\) of ended windows/);
  });

  it("does nothing (and does not throw) for a missing directory", () => {
    assert.equal(
      sweepEndedWindows(path.join(tempDir("symposium-sweep-"), "missing"), () => {}),
      0,
    );
  });
});
