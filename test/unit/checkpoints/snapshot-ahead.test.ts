// A prompt's before-turn snapshot taken ahead (after the last turn, or when its
// session opened) and only checked when the prompt comes: with real git, the
// check must see every change on disk since, the user's included, even one
// made in the same instant as the snapshot with the same size.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { ShadowRepo, type Snapshot } from "../../../checkpoints/src/shadow-repo.js";
import { scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();
const LIMIT_MS = 60_000;

function write(root: string, file: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), content);
}

/** A project with two files and its shadow repository, as the store makes them. */
function project(maxFileBytes = DEFAULT_SETTINGS.maxFileBytes) {
  const dir = scratch("ckpt-ahead-");
  write(dir, "a.txt", "aaaa\n");
  write(dir, "src/b.txt", "bbbb\n");
  const repo = new ShadowRepo({ workTree: dir, home: path.join(scratch("ckpt-ahead-home-"), "repo"), maxFileBytes });
  return { dir, repo };
}

/** The files of a snapshot's tree and their text. */
async function filesOf(repo: ShadowRepo, snapshot: Snapshot, paths: string[]): Promise<Record<string, string>> {
  const entries = await repo.entries(snapshot.tree, paths, LIMIT_MS);
  const blobs = await repo.blobs(
    [...entries.values()].map((entry) => entry.object),
    LIMIT_MS,
  );
  return Object.fromEntries([...entries].map(([file, entry]) => [file, blobs.get(entry.object)!.toString("utf8")]));
}

describe("before-turn snapshots taken ahead", () => {
  it("is the last snapshot's tree when nothing changed since, without staging or writing a tree", async () => {
    const { repo } = project();
    const first = await repo.snapshot(LIMIT_MS);
    assert.notEqual(first.unchanged, true, "the first snapshot stages every file");
    const again = await repo.snapshot(LIMIT_MS);
    assert.equal(again.unchanged, true);
    assert.equal(again.tree, first.tree);
    repo.dispose();
  });

  it("sees a file the user changed right after it, in the same instant and at the same size", async () => {
    const { dir, repo } = project();
    await repo.snapshot(LIMIT_MS);
    // Written at once after the snapshot: its time may equal the index's, which git must not trust.
    write(dir, "a.txt", "AAAA\n");
    const after = await repo.snapshot(LIMIT_MS);
    assert.notEqual(after.unchanged, true);
    assert.deepEqual(await filesOf(repo, after, ["a.txt", "src/b.txt"]), { "a.txt": "AAAA\n", "src/b.txt": "bbbb\n" });
    repo.dispose();
  });

  it("sees a file added, one deleted, and one that shrank under the size cap; a big file alone changes nothing", async () => {
    const { dir, repo } = project(100);
    const big = "x".repeat(200);
    write(dir, "big.bin", big);
    const first = await repo.snapshot(LIMIT_MS);
    assert.deepEqual(
      first.skipped.map((file) => file.path),
      ["big.bin"],
    );
    const withBig = await repo.snapshot(LIMIT_MS);
    assert.equal(withBig.unchanged, true, "a file over the cap is listed each time but never staged");
    assert.deepEqual(
      withBig.skipped.map((file) => file.path),
      ["big.bin"],
    );

    write(dir, "new/c.txt", "c\n");
    fs.rmSync(path.join(dir, "src/b.txt"));
    const changed = await repo.snapshot(LIMIT_MS);
    assert.notEqual(changed.unchanged, true);
    assert.deepEqual(await filesOf(repo, changed, ["a.txt", "src/b.txt", "new/c.txt"]), { "a.txt": "aaaa\n", "new/c.txt": "c\n" });

    write(dir, "big.bin", "small now\n");
    const shrunk = await repo.snapshot(LIMIT_MS);
    assert.notEqual(shrunk.unchanged, true);
    assert.deepEqual(shrunk.skipped, []);
    assert.deepEqual(await filesOf(repo, shrunk, ["big.bin"]), { "big.bin": "small now\n" });
    repo.dispose();
  });

  it("takes the whole snapshot again when its repository was put aside and started afresh by another process", async () => {
    const { repo } = project();
    const first = await repo.snapshot(LIMIT_MS);
    // Another conversation's process found the repository damaged: it moved it aside and a new one stands in its place.
    fs.renameSync(repo.gitDir, `${repo.gitDir}.aside`);
    const again = await repo.snapshot(LIMIT_MS);
    assert.notEqual(again.unchanged, true);
    assert.equal(again.tree, first.tree, "the same files make the same tree");
    assert.deepEqual([...(await repo.entries(again.tree, ["a.txt"], LIMIT_MS)).keys()], ["a.txt"], "the tree is in the new repository");
    repo.dispose();
  });

  it("records a turn whose project the user changed after the session opened: the change is in the before-tree, not the turn's", async () => {
    const dir = scratch("ckpt-ahead-store-");
    write(dir, "notes.txt", "draft\n");
    write(dir, "code.txt", "v1\n");
    const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(scratch("ckpt-ahead-dir-"), "checkpoints"), log: () => {} });
    assert.ok(store, "git is on PATH");
    store.prepare([dir]);
    await store.idle();
    write(dir, "notes.txt", "the user's edit\n");
    const first = store.beginTurn({ sessionId: "s1", prompt: "one", dirs: [dir] });
    await first.ready;
    write(dir, "code.txt", "v2\n");
    await first.finish();
    // Between the turns the user edits again; the next prompt's snapshot is the after-turn one checked.
    write(dir, "notes.txt", "edited again\n");
    const second = store.beginTurn({ sessionId: "s1", prompt: "two", dirs: [dir] });
    await second.ready;
    write(dir, "code.txt", "v3\n");
    await second.finish();
    const turns = store.list(dir).records.map((record) => record.roots[0]!.files.map((file) => file.path));
    assert.deepEqual(turns, [["code.txt"], ["code.txt"]]);
    const before = await store.fileAt(dir, store.list(dir).records[1]!.id, dir, "notes.txt", "before");
    assert.equal(before?.toString("utf8"), "edited again\n");
    await store.close();
  });
});
