// A turn undone is marked so in its record (`undoneAt`), which the built-in chat
// follows to stop offering its Undo; a Rewind past it does not undo it again, and
// a record with a malformed mark is refused as damaged.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { readRecord } from "../../../checkpoints/src/turn-record.js";
import { scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();

async function opened(): Promise<CheckpointStore> {
  const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(scratch("ckpt-undone-"), "checkpoints"), log: () => {} });
  assert.ok(store, "git is on PATH");
  return store;
}

async function turn(store: CheckpointStore, project: string, file: string, content: string): Promise<string> {
  const progress = store.beginTurn({ sessionId: "s1", prompt: `write ${file}`, dirs: [project] });
  await progress.ready;
  fs.writeFileSync(path.join(project, file), content);
  await progress.finish();
  return progress.id;
}

describe("checkpoint store: undone turns", () => {
  it("marks a restored turn's record undone, and a later Rewind leaves it alone", async () => {
    const project = scratch("ckpt-undone-project-");
    const store = await opened();
    const first = await turn(store, project, "a.txt", "first\n");
    const second = await turn(store, project, "b.txt", "second\n");
    const third = await turn(store, project, "c.txt", "third\n");
    assert.deepEqual(
      store.list(project).records.map((record) => record.undoneAt),
      [undefined, undefined, undefined],
    );

    const before = Date.now();
    await store.restore(project, third);
    const marked = store.list(project).records.find((record) => record.id === third)!;
    assert.ok(marked.undoneAt !== undefined && Date.parse(marked.undoneAt) >= before - 1000, `undone at ${marked.undoneAt}`);
    assert.equal(fs.existsSync(path.join(project, "c.txt")), false);

    // The user writes c.txt again; a Rewind to the first turn undoes the second only, not the third again.
    fs.writeFileSync(path.join(project, "c.txt"), "the user's own\n");
    const reports = await store.rewind(project, first);
    assert.deepEqual(
      reports.map((report) => report.turn.id),
      [second],
    );
    assert.equal(fs.readFileSync(path.join(project, "c.txt"), "utf8"), "the user's own\n");
    assert.deepEqual(
      store.list(project).records.map((record) => record.undoneAt !== undefined),
      [false, true, true],
    );
    await store.close();
  });

  it("refuses a record whose undone mark is not a time's text", async () => {
    const project = scratch("ckpt-undone-bad-");
    const store = await opened();
    const id = await turn(store, project, "a.txt", "one\n");
    const file = path.join(store.turnsFolder(project), `${id}.json`);
    const record = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...record, undoneAt: 42 }));
    assert.equal(readRecord(file), null);
    await store.close();
  });
});
