// The checkpoint store against what a project, the user between turns, or
// something that changed the store can put in its way, with real git and real
// files: a type change behind an ignored name, files over the size cap on one
// side of a turn, names that are not UTF-8, and trees naming paths no undo may
// write (`.git`, `..`). Undo never writes or removes what it cannot vouch for.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS, describeState, type CheckpointSettings } from "../../../checkpoints/src/index.js";
import { RACY_MARGIN_MS } from "../../../checkpoints/src/disk-record.js";
import { whyUnwritable } from "../../../checkpoints/src/restore.js";
import { read, storeWith, write } from "../../support/checkpoint-store.js";
import { eventually, scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();

/** The store's settings; a budget no loaded machine goes over (a turn skipped for time would record nothing to check). */
function settings(overrides: Partial<CheckpointSettings> = {}): CheckpointSettings {
  return { ...DEFAULT_SETTINGS, budgetMs: 60_000, directory: path.join(scratch("ckpt-hostile-store-"), "checkpoints"), log: () => {}, ...overrides };
}

async function turn(store: CheckpointStore, dirs: string[], act: () => void) {
  const progress = store.beginTurn({ sessionId: "s1", prompt: "change things", dirs });
  await progress.ready;
  act();
  await progress.finish();
  return progress.id;
}

/** A project ignoring `build/`, with such a folder, made before the tests run so its files are past the racy margin. */
let ignoringBuild = "";
before(async () => {
  ignoringBuild = scratch("ckpt-hostile-build-");
  write(ignoringBuild, ".gitignore", "build/\n");
  write(ignoringBuild, "a.txt", "a0\n");
  write(ignoringBuild, "build/out.js", "built\n");
  const made = Date.now();
  await eventually(() => Date.now() > made + RACY_MARGIN_MS + 100, RACY_MARGIN_MS + 10_000, "the racy margin to pass");
});

describe("checkpoint store against hostile projects and a tampered store", () => {
  it("a file the user made before the turn in place of an ignored folder is the project's, not the turn's: Undo leaves it", async () => {
    const project = ignoringBuild;
    const store = await storeWith(settings());
    // The session's first snapshot, and the stat record it leaves (the prompt's snapshot is then checked without git).
    store.prepare([project]);
    await store.idle();
    fs.rmSync(path.join(project, "build"), { recursive: true });
    write(project, "build", "the user's own build file\n");
    const id = await turn(store, [project], () => write(project, "a.txt", "a1\n"));
    const record = store.list(project).records.at(-1)!;
    assert.deepEqual(record.roots[0]!.files, [{ path: "a.txt", status: "modified" }]);
    const report = await store.restore(project, id);
    assert.deepEqual(report.restored, ["a.txt"]);
    assert.equal(read(project, "build"), "the user's own build file\n");
    assert.equal(read(project, "a.txt"), "a0\n");
    await store.close();
  });

  it("never writes or removes a file over the size cap on either side of the turn; Undo names it as skipped", async () => {
    const project = scratch("ckpt-hostile-big-");
    write(project, "shrunk.dat", Buffer.alloc(2048, 1));
    write(project, "grown.dat", "small\n");
    write(project, "a.txt", "a0\n");
    const store = await storeWith(settings({ maxFileBytes: 1024 }));
    const id = await turn(store, [project], () => {
      write(project, "shrunk.dat", "small now\n");
      write(project, "grown.dat", Buffer.alloc(4096, 2));
      write(project, "a.txt", "a1\n");
    });
    const root = store.list(project).records.at(-1)!.roots[0]!;
    assert.deepEqual(root.files, [{ path: "a.txt", status: "modified" }]);
    const report = await store.restore(project, id);
    assert.deepEqual(report.restored, ["a.txt"]);
    assert.deepEqual(report.conflicts, []);
    assert.deepEqual(report.skipped.map((file) => file.path).sort(), ["grown.dat", "shrunk.dat"]);
    for (const file of report.skipped) assert.match(file.reason, /bytes, over the 1024-byte cap/);
    assert.equal(read(project, "shrunk.dat"), "small now\n", "a file too big before the turn is not deleted");
    assert.deepEqual(fs.readFileSync(path.join(project, "grown.dat")), Buffer.alloc(4096, 2));
    await store.close();
  });

  it(
    "lists a file whose name is not UTF-8 as skipped, with why and what to do, and list and Undo say so",
    { skip: process.platform === "linux" ? false : "only Linux filesystems take such names" },
    async () => {
      const project = scratch("ckpt-hostile-name-");
      write(project, "a.txt", "a0\n");
      // "café.txt" in Latin-1: one byte, 0xE9, that is no UTF-8.
      const latin1 = Buffer.concat([Buffer.from(`${project}/caf`), Buffer.from([0xe9]), Buffer.from(".txt")]);
      fs.writeFileSync(latin1, "the user's\n");
      const store = await storeWith(settings());
      const id = await turn(store, [project], () => {
        write(project, "a.txt", "a1\n");
        fs.rmSync(latin1);
      });
      const record = store.list(project).records.at(-1)!;
      const root = record.roots[0]!;
      assert.deepEqual(root.files, [{ path: "a.txt", status: "modified" }]);
      assert.deepEqual(
        root.skipped.map((file) => file.path),
        ["caf\\xE9.txt"],
      );
      assert.match(root.skipped[0]!.reason, /not valid UTF-8, so it is not stored .*rename it to have it recorded/);
      assert.match(describeState(record), /^1 files changed; 1 not stored \(too big, or a name not in UTF-8\), which undo leaves as it is$/);
      const report = await store.restore(project, id);
      assert.deepEqual(report.restored, ["a.txt"]);
      assert.deepEqual(
        report.skipped.map((file) => file.path),
        ["caf\\xE9.txt"],
      );
      // Made again by the user: the next turns skip it too, and the snapshots still find nothing else changed.
      fs.writeFileSync(latin1, "again\n");
      const next = await turn(store, [project], () => {});
      assert.deepEqual(store.list(project).records.at(-1)!.roots[0]!.files, []);
      assert.deepEqual(
        store
          .list(project)
          .records.at(-1)!
          .roots[0]!.skipped.map((file) => file.path),
        ["caf\\xE9.txt"],
      );
      assert.ok(next);
      await store.close();
    },
  );

  it("refuses an undo whose snapshots name a path inside .git (any case) or outside the project, before writing anything", async () => {
    const project = scratch("ckpt-hostile-tampered-");
    execFileSync("git", ["init", "-q", project]);
    write(project, "a.txt", "a0\n");
    const options = settings();
    const store = await storeWith(options);
    const id = await turn(store, [project], () => write(project, "a.txt", "a1\n"));
    const [key] = fs.readdirSync(path.join(options.directory, "projects"));
    const home = path.join(options.directory, "projects", key!);
    const recordFile = path.join(home, "turns", `${id}.json`);
    const original = JSON.parse(fs.readFileSync(recordFile, "utf8")) as { roots: Array<{ before: string }> };
    const shadow = (args: string[], input = "") =>
      execFileSync("git", args, { env: { ...process.env, GIT_DIR: path.join(home, "git") }, input })
        .toString("utf8")
        .trim();
    const hook = shadow(["hash-object", "-w", "--stdin"], "#!/bin/sh\necho run by the tampered store > /tmp/never\n");
    const tree = (lines: string[]) => shadow(["mktree"], lines.map((line) => `${line}\n`).join(""));
    const hooks = tree([`040000 tree ${tree([`100755 blob ${hook}\tpre-commit`])}\thooks`]);
    for (const top of [".git", ".GIT", "..", ".Git."]) {
      // The turn's before-tree as it was, and a folder more: the store now says the turn deleted <top>/hooks/pre-commit.
      const tampered = tree([...shadow(["ls-tree", original.roots[0]!.before]).split("\n"), `040000 tree ${hooks}\t${top}`]);
      const record = JSON.parse(fs.readFileSync(recordFile, "utf8")) as { roots: Array<{ before: string }> };
      record.roots[0]!.before = tampered;
      fs.writeFileSync(recordFile, JSON.stringify(record));
      await assert.rejects(
        store.restore(project, id),
        new RegExp(
          `was not undone, and nothing was written: its snapshots of .* name "${top.replace(/\./g, "\\.")}/hooks/pre-commit" \\(it is (inside a \\.git folder|absolute or leaves the project)\\).*the checkpoint store was changed by something else\\. Set .* aside`,
        ),
        top,
      );
      assert.equal(read(project, "a.txt"), "a1\n", `nothing written (${top})`);
      assert.equal(fs.existsSync(path.join(project, ".git", "hooks", "pre-commit")), false);
      assert.equal(fs.existsSync(path.join(path.dirname(project), "hooks")), false);
    }
    // A record naming a folder no turn is recorded for: refused before anything is read for it.
    const record = JSON.parse(fs.readFileSync(recordFile, "utf8")) as { roots: Array<{ before: string; dir: string }> };
    record.roots[0]!.before = original.roots[0]!.before;
    record.roots[0]!.dir = path.parse(project).root;
    fs.writeFileSync(recordFile, JSON.stringify(record));
    await assert.rejects(
      store.restore(project, id),
      /was not undone, and nothing was written: it names the folder .*, which no undo writes in \(.* is a filesystem root, not a project\)/,
    );
    assert.equal(read(project, "a.txt"), "a1\n");
    await store.close();
  });

  it("finds a path no undo may write by its name alone", () => {
    for (const bad of ["/etc/passwd", "../x", "a/../../x", ".git/config", "sub/.GIT/hooks/x", ".git./x", ".git /x", "GIT~1/config", ""]) {
      assert.notEqual(whyUnwritable(bad), null, bad);
    }
    // macOS's HFS+ reads ".g\u200cit" as ".git"; elsewhere it is a name of its own, which git records.
    assert.equal(whyUnwritable(".g\u200cit/x") !== null, process.platform === "darwin");
    for (const good of ["a.txt", "src/.gitignore", ".github/workflows/ci.yml", "x.git/y", "git/x", "a..b"]) assert.equal(whyUnwritable(good), null, good);
  });
});
