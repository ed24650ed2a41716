// A prompt's before-turn snapshot proven unchanged without git: after each
// snapshot the stat of every file its tree holds and the names of every folder
// git looked into are recorded, and a prompt in a project where all of them are
// the same is forwarded with no process started. With real git and real files:
// every kind of change must still reach the before-tree (through git), and a
// file written too close to the snapshot to tell is never trusted.

import { strict as assert } from "node:assert";
import type * as childProcess from "node:child_process";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { before, describe, it } from "node:test";
import { DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { MAX_RECORDED_ENTRIES, RACY_MARGIN_MS } from "../../../checkpoints/src/disk-record.js";
import { ShadowRepo, type Snapshot } from "../../../checkpoints/src/shadow-repo.js";
import { eventually, scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();
const LIMIT_MS = 60_000;
const POSIX = process.platform !== "win32";

function write(root: string, file: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), content);
}

/**
 * A project with tracked files in two folders, an ignored folder with files, an empty folder and a .gitignore.
 * Made before every test runs, so that its files are older than the racy margin when the tests snapshot them.
 */
function makeProject(): string {
  const dir = scratch("ckpt-nogit-");
  write(dir, "a.txt", "aaaa\n");
  write(dir, "src/b.txt", "bbbb\n");
  write(dir, "src/deep/c.txt", "cccc\n");
  write(dir, "build/out.js", "built\n");
  write(dir, "notes.log", "a log\n");
  write(dir, ".gitignore", "build/\n*.log\n");
  fs.mkdirSync(path.join(dir, "empty/nested"), { recursive: true });
  return dir;
}

const projects: string[] = [];
let nestedRepository = "";
let manyFiles = "";
/** A project made before the tests ran (each test takes its own, never one another test changed). */
function oldProject(): string {
  const dir = projects.pop();
  assert.ok(dir, "enough projects made ahead");
  return dir;
}

before(async () => {
  for (let i = 0; i < 22; i++) projects.push(makeProject());
  nestedRepository = makeProject();
  execFileSync("git", ["init", "-q", path.join(nestedRepository, "vendor/lib")]);
  write(nestedRepository, "vendor/lib/lib.txt", "lib\n");
  manyFiles = makeProject();
  for (let i = 0; i <= MAX_RECORDED_ENTRIES; i++) write(manyFiles, `many/f${i}.txt`, `${i}\n`);
  const made = Date.now();
  // Their files' times must be older than the snapshots' start by the racy margin: the clock has to pass it.
  await eventually(() => Date.now() > made + RACY_MARGIN_MS + 100, RACY_MARGIN_MS + 10_000, "the racy margin to pass");
});

function repoFor(dir: string, maxFileBytes = DEFAULT_SETTINGS.maxFileBytes): ShadowRepo {
  return new ShadowRepo({ workTree: dir, home: path.join(scratch("ckpt-nogit-home-"), "repo"), maxFileBytes });
}

/** The snapshot a prompt gets, and how many git processes it started. */
async function beforeTurn(repo: ShadowRepo): Promise<{ snapshot: Snapshot; gitSpawns: number }> {
  const module = createRequire(import.meta.url)("node:child_process") as typeof childProcess;
  const original = module.spawn;
  let gitSpawns = 0;
  module.spawn = ((command: string, ...rest: unknown[]) => {
    if (command === "git") gitSpawns++;
    return (original as (...args: unknown[]) => childProcess.ChildProcess)(command, ...rest);
  }) as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    const snapshot = await repo.snapshot(LIMIT_MS, { beforeTurn: true });
    return { snapshot, gitSpawns };
  } finally {
    module.spawn = original;
    syncBuiltinESMExports();
  }
}

/** A snapshot after a turn (or at a session's start), and its stat record made. */
async function settled(repo: ShadowRepo): Promise<Snapshot> {
  const snapshot = await repo.snapshot(LIMIT_MS);
  await repo.idle();
  return snapshot;
}

/** The files of a tree (the paths asked for) and their text. */
async function filesOf(repo: ShadowRepo, tree: string, paths: string[]): Promise<Record<string, string>> {
  const entries = await repo.entries(tree, paths, LIMIT_MS);
  const blobs = await repo.blobs(
    [...entries.values()].map((entry) => entry.object),
    LIMIT_MS,
  );
  return Object.fromEntries([...entries].map(([file, entry]) => [file, blobs.get(entry.object)!.toString("utf8")]));
}

/** After the project was recorded, `change` goes through git and the before-tree shows it. */
async function seenThroughGit(
  change: (dir: string) => void,
  paths: string[],
  expected: Record<string, string>,
  alsoCheck?: (repo: ShadowRepo, snapshot: Snapshot) => Promise<void>,
): Promise<void> {
  const dir = oldProject();
  const repo = repoFor(dir);
  await settled(repo);
  assert.equal((await beforeTurn(repo)).snapshot.checkedWithoutGit, true, "unchanged at first");
  change(dir);
  const { snapshot, gitSpawns } = await beforeTurn(repo);
  assert.notEqual(snapshot.checkedWithoutGit, true);
  assert.ok(gitSpawns > 0, "git checked");
  assert.deepEqual(await filesOf(repo, snapshot.tree, paths), expected);
  await alsoCheck?.(repo, snapshot);
  repo.dispose();
}

describe("before-turn snapshots proven unchanged without git", () => {
  it("forwards a prompt in an unchanged project with no process started, the tree the last snapshot's", async () => {
    const repo = repoFor(oldProject());
    const last = await settled(repo);
    for (let i = 0; i < 3; i++) {
      const { snapshot, gitSpawns } = await beforeTurn(repo);
      assert.equal(gitSpawns, 0);
      assert.equal(snapshot.checkedWithoutGit, true);
      assert.equal(snapshot.unchanged, true);
      assert.equal(snapshot.tree, last.tree);
    }
    repo.dispose();
  });

  it("keeps the record across a snapshot that finds the same tree, so a prompt right after a turn spawns nothing", async () => {
    const repo = repoFor(oldProject());
    const last = await settled(repo);
    // A turn that wrote nothing, its after-turn snapshot, and at once the next prompt (no new record made between).
    const afterTurn = await repo.snapshot(LIMIT_MS);
    assert.equal(afterTurn.tree, last.tree);
    const { snapshot, gitSpawns } = await beforeTurn(repo);
    assert.equal(gitSpawns, 0);
    assert.equal(snapshot.checkedWithoutGit, true);
    await repo.idle();
    repo.dispose();
  });

  it("ignores what happens in an ignored folder or to an ignored file's contents", async () => {
    const dir = oldProject();
    const repo = repoFor(dir);
    await settled(repo);
    write(dir, "build/more.js", "more\n");
    fs.appendFileSync(path.join(dir, "notes.log"), "another line\n");
    const { snapshot, gitSpawns } = await beforeTurn(repo);
    assert.equal(gitSpawns, 0);
    assert.equal(snapshot.checkedWithoutGit, true);
    repo.dispose();
  });

  it("sees a file edited right after the snapshot, before its record was made", async () => {
    const dir = oldProject();
    const repo = repoFor(dir);
    await repo.snapshot(LIMIT_MS);
    // Same size, while the record may be being made: its time is after the snapshot's start, never trusted.
    write(dir, "src/b.txt", "BBBB\n");
    await repo.idle();
    const { snapshot } = await beforeTurn(repo);
    assert.notEqual(snapshot.checkedWithoutGit, true);
    assert.deepEqual(await filesOf(repo, snapshot.tree, ["src/b.txt"]), { "src/b.txt": "BBBB\n" });
    repo.dispose();
  });

  it("leaves no record when a file is newer than the racy margin: git checks", async () => {
    const dir = oldProject();
    write(dir, "fresh.txt", "just written\n");
    const repo = repoFor(dir);
    await settled(repo);
    const { snapshot, gitSpawns } = await beforeTurn(repo);
    assert.notEqual(snapshot.checkedWithoutGit, true);
    assert.ok(gitSpawns > 0);
    repo.dispose();
  });

  it("leaves a record once the racy margin has passed, from one snapshot more in the background", async () => {
    const dir = oldProject();
    write(dir, "fresh.txt", "just written\n");
    const repo = repoFor(dir);
    const last = await settled(repo);
    // Its timer does not keep a process alive (a conductor has its pipes): this test must.
    const alive = setInterval(() => {}, 1_000);
    await repo.settled().finally(() => clearInterval(alive));
    const { snapshot, gitSpawns } = await beforeTurn(repo);
    assert.equal(gitSpawns, 0);
    assert.equal(snapshot.checkedWithoutGit, true);
    assert.equal(snapshot.tree, last.tree);
    repo.dispose();
  });

  it("sees a file added in a folder that has files", () =>
    seenThroughGit((dir) => write(dir, "src/new.txt", "new\n"), ["src/new.txt", "src/b.txt"], { "src/new.txt": "new\n", "src/b.txt": "bbbb\n" }));

  it("sees a folder added", () => seenThroughGit((dir) => write(dir, "lib/x/y.txt", "y\n"), ["lib/x/y.txt"], { "lib/x/y.txt": "y\n" }));

  it("sees a file added in an empty folder that was already there, two levels down", () =>
    seenThroughGit((dir) => write(dir, "empty/nested/z.txt", "z\n"), ["empty/nested/z.txt"], { "empty/nested/z.txt": "z\n" }));

  it("sees a file deleted", () => seenThroughGit((dir) => fs.rmSync(path.join(dir, "src/deep/c.txt")), ["src/deep/c.txt", "a.txt"], { "a.txt": "aaaa\n" }));

  it("sees a file renamed", () =>
    seenThroughGit((dir) => fs.renameSync(path.join(dir, "a.txt"), path.join(dir, "src/a.txt")), ["a.txt", "src/a.txt"], { "src/a.txt": "aaaa\n" }));

  it("sees an edit to .gitignore, and the file it stopped ignoring", () =>
    seenThroughGit((dir) => write(dir, ".gitignore", "build/\n"), [".gitignore", "notes.log"], { ".gitignore": "build/\n", "notes.log": "a log\n" }));

  it("sees an edit with the old modification time put back (by its change time, as git does)", () =>
    seenThroughGit(
      (dir) => {
        const file = path.join(dir, "src/b.txt");
        const { atime, mtime } = fs.statSync(file);
        fs.writeFileSync(file, "BBBB\n");
        fs.utimesSync(file, atime, mtime);
      },
      ["src/b.txt"],
      { "src/b.txt": "BBBB\n" },
    ));

  // An ignored name whose type changed may be one git sees now: `build/` ignores a folder, not a file or a link.
  it("sees an ignored folder the user replaced by a file of the same name", () =>
    seenThroughGit(
      (dir) => {
        fs.rmSync(path.join(dir, "build"), { recursive: true });
        write(dir, "build", "the user's own build output\n");
      },
      ["build", "build/out.js"],
      { build: "the user's own build output\n" },
    ));

  it("sees an ignored folder replaced by a symlink of the same name", { skip: POSIX ? false : "symlinks need rights on Windows" }, () =>
    seenThroughGit(
      (dir) => {
        fs.rmSync(path.join(dir, "build"), { recursive: true });
        fs.symlinkSync("src", path.join(dir, "build"));
      },
      ["build"],
      { build: "src" },
    ),
  );

  it("checks with git when an ignored file became a folder (still ignored: the same tree)", () =>
    seenThroughGit(
      (dir) => {
        fs.rmSync(path.join(dir, "notes.log"));
        write(dir, "notes.log/inside.txt", "ignored with its folder\n");
      },
      ["a.txt", "notes.log/inside.txt"],
      { "a.txt": "aaaa\n" },
    ));

  it("sees an ignored folder an agent replaced by a file inside one turn: the turn's after-tree holds it", async () => {
    const dir = oldProject();
    const repo = repoFor(dir);
    await settled(repo);
    const before = (await beforeTurn(repo)).snapshot;
    assert.equal(before.checkedWithoutGit, true, "the before-turn snapshot proven unchanged");
    // The agent's `rm -rf build && echo x > build`.
    fs.rmSync(path.join(dir, "build"), { recursive: true });
    write(dir, "build", "x\n");
    const after = await repo.snapshot(LIMIT_MS);
    assert.notEqual(after.checkedWithoutGit, true);
    assert.deepEqual(await repo.changes(before.tree, after.tree, true, LIMIT_MS), [{ path: "build", status: "added" }]);
    await repo.idle();
    repo.dispose();
  });

  it("sees a file made executable", { skip: POSIX ? false : "no executable bit on Windows" }, () =>
    seenThroughGit(
      (dir) => fs.chmodSync(path.join(dir, "a.txt"), 0o755),
      ["a.txt"],
      { "a.txt": "aaaa\n" },
      async (repo, snapshot) => {
        assert.equal((await repo.entries(snapshot.tree, ["a.txt"], LIMIT_MS)).get("a.txt")?.mode, "100755");
      },
    ),
  );

  it("trusts no record once the repository folder was set aside and started afresh by another process", async () => {
    const repo = repoFor(oldProject());
    const first = await settled(repo);
    fs.renameSync(repo.gitDir, `${repo.gitDir}.aside`);
    const { snapshot, gitSpawns } = await beforeTurn(repo);
    assert.notEqual(snapshot.checkedWithoutGit, true);
    assert.ok(gitSpawns > 0);
    assert.equal(snapshot.tree, first.tree, "the same files make the same tree");
    assert.deepEqual([...(await repo.entries(snapshot.tree, ["a.txt"], LIMIT_MS)).keys()], ["a.txt"], "the tree is in the new repository");
    repo.dispose();
  });

  it("leaves no record for a project with a repository inside it, or more files than the stat calls pay for", async () => {
    for (const dir of [nestedRepository, manyFiles]) {
      const repo = repoFor(dir);
      await settled(repo);
      const { snapshot, gitSpawns } = await beforeTurn(repo);
      assert.notEqual(snapshot.checkedWithoutGit, true, dir);
      assert.ok(gitSpawns > 0);
      repo.dispose();
    }
  });
});
