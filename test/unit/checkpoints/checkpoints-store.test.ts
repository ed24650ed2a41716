// The checkpoint store with real git: a turn's changes recorded
// from a project written on disk, undone file by file, conflicts left alone;
// the user's own repository untouched byte for byte; bad input (binary, huge,
// symlinks out of the project, a damaged or deleted store, no git at all).

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS, type CheckpointSettings } from "../../../checkpoints/src/index.js";
import { read, storeWith, write } from "../../support/checkpoint-store.js";
import { eventually, scratchDirs } from "../../support/processes.js";

const scratch = scratchDirs();

function settings(overrides: Partial<CheckpointSettings> = {}): CheckpointSettings & { logged: string[] } {
  const logged: string[] = [];
  // A budget no loaded machine goes over (a turn skipped for time records nothing); the budget's own test sets its own.
  return {
    ...DEFAULT_SETTINGS,
    budgetMs: 60_000,
    directory: path.join(scratch("ckpt-store-"), "checkpoints"),
    log: (line) => logged.push(line),
    logged,
    ...overrides,
  };
}

/** Every file under `dir` with its bytes' hash (a .git folder's exact state). */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) out[path.relative(dir, full)] = crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex");
  }
  return out;
}

async function turn(store: CheckpointStore, dirs: string[], act: () => void, sessionId = "s1") {
  const progress = store.beginTurn({ sessionId, prompt: "change things", dirs });
  await progress.ready;
  act();
  await progress.finish();
  return progress.id;
}

describe("checkpoint store", () => {
  it("records what a turn wrote, edited, deleted, renamed and created, and undoes exactly that", async () => {
    const project = scratch("ckpt-project-");
    write(project, "keep.txt", "unchanged\n");
    write(project, "edit.txt", "one\n");
    write(project, "gone.txt", "to delete\n");
    write(project, "old-name.txt", "moved whole\n".repeat(20));
    const store = await storeWith(settings());
    const id = await turn(store, [project], () => {
      write(project, "edit.txt", "one\ntwo\n");
      fs.rmSync(path.join(project, "gone.txt"));
      fs.renameSync(path.join(project, "old-name.txt"), path.join(project, "new-name.txt"));
      write(project, "deep/new/dir/added.txt", "new\n");
    });
    const { records } = store.list(project);
    assert.equal(records.length, 1);
    const record = records[0]!;
    assert.equal(record.id, id);
    assert.equal(record.state, "done");
    const files = Object.fromEntries(record.roots[0]!.files.map((file) => [file.path, file.status]));
    assert.deepEqual(files, { "edit.txt": "modified", "gone.txt": "deleted", "new-name.txt": "renamed", "deep/new/dir/added.txt": "added" });
    assert.equal(record.roots[0]!.files.find((file) => file.status === "renamed")?.from, "old-name.txt");
    assert.match(await store.diff(project, id), /\+two/);

    const report = await store.restore(project, id);
    assert.deepEqual(report.conflicts, []);
    assert.equal(read(project, "edit.txt"), "one\n");
    assert.equal(read(project, "gone.txt"), "to delete\n");
    assert.equal(read(project, "old-name.txt"), "moved whole\n".repeat(20));
    assert.equal(fs.existsSync(path.join(project, "new-name.txt")), false);
    assert.equal(fs.existsSync(path.join(project, "deep/new/dir/added.txt")), false);
    assert.equal(read(project, "keep.txt"), "unchanged\n");
    await store.close();
  });

  it("never overwrites a file changed since the turn: it is a conflict, the others are restored", async () => {
    const project = scratch("ckpt-conflict-");
    write(project, "a.txt", "a0\n");
    write(project, "b.txt", "b0\n");
    const store = await storeWith(settings());
    const id = await turn(store, [project], () => {
      write(project, "a.txt", "a1\n");
      write(project, "b.txt", "b1\n");
    });
    write(project, "b.txt", "the user's own work\n");
    const report = await store.restore(project, id);
    assert.deepEqual(report.restored, ["a.txt"]);
    assert.deepEqual(report.conflicts, [{ path: "b.txt", reason: "changed since the turn" }]);
    assert.equal(read(project, "a.txt"), "a0\n");
    assert.equal(read(project, "b.txt"), "the user's own work\n");
    await store.close();
  });

  it("leaves a git project's .git (index, stash, refs, config) byte-identical", async () => {
    const project = scratch("ckpt-gitrepo-");
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project, stdio: "pipe" });
    git("init", "-q");
    write(project, "tracked.txt", "v1\n");
    write(project, ".gitignore", "ignored/\n*.log\n");
    git("add", ".");
    git("commit", "-q", "-m", "one");
    write(project, "tracked.txt", "stashed\n");
    git("stash", "-q");
    write(project, "tracked.txt", "staged\n");
    git("add", "tracked.txt");
    write(project, "tracked.txt", "working\n");
    const before = fingerprint(path.join(project, ".git"));
    const store = await storeWith(settings());
    const id = await turn(store, [project], () => {
      write(project, "tracked.txt", "agent\n");
      write(project, "ignored/cache.bin", "x");
      write(project, "debug.log", "x");
      write(project, "src/new.ts", "export {};\n");
    });
    const files = store
      .list(project)
      .records[0]!.roots[0]!.files.map((file) => file.path)
      .sort();
    assert.deepEqual(files, ["src/new.ts", "tracked.txt"], ".gitignore honoured, .git never recorded");
    await store.restore(project, id);
    assert.equal(read(project, "tracked.txt"), "working\n");
    assert.deepEqual(fingerprint(path.join(project, ".git")), before);
    await store.close();
  });

  it("stores binary files exactly, skips files over the cap, and never follows a symlink out of the project", async () => {
    const project = scratch("ckpt-bad-input-");
    const outside = scratch("ckpt-outside-");
    write(outside, "secret.txt", "outside\n");
    const binary = crypto.randomBytes(4096);
    write(project, "image.bin", binary);
    write(project, "sub/file.txt", "inside\n");
    fs.symlinkSync(outside, path.join(project, "link-out"));
    const store = await storeWith(settings({ maxFileBytes: 64 * 1024 }));
    const id = await turn(store, [project], () => {
      write(project, "image.bin", crypto.randomBytes(4096));
      write(project, "huge.dat", Buffer.alloc(200 * 1024, 1));
      // The turn swaps a folder for a symlink out of the project: undoing must not write through it.
      fs.rmSync(path.join(project, "sub"), { recursive: true });
      fs.symlinkSync(outside, path.join(project, "sub"));
    });
    const record = store.list(project).records[0]!;
    const root = record.roots[0]!;
    assert.deepEqual(
      root.skipped.map((file) => file.path),
      ["huge.dat"],
    );
    assert.ok(!root.files.some((file) => file.path === "huge.dat"));
    assert.ok(!root.files.some((file) => file.path.startsWith("link-out/")), "a symlink is recorded as a link, never entered");
    const report = await store.restore(project, id);
    assert.deepEqual(fs.readFileSync(path.join(project, "image.bin")), binary);
    assert.deepEqual(report.skipped, [{ path: "huge.dat", reason: "204800 bytes, over the 65536-byte cap" }]);
    assert.deepEqual(fs.readdirSync(outside), ["secret.txt"], "nothing written outside the project");
    assert.equal(read(outside, "secret.txt"), "outside\n");
    // The link the turn made is removed (it is the turn's own), then the folder's file written into a real folder again.
    assert.ok(fs.lstatSync(path.join(project, "sub")).isDirectory());
    assert.equal(read(project, "sub/file.txt"), "inside\n");
    assert.deepEqual(report.conflicts, []);
    await store.close();
  });

  it("refuses to write through a folder the user turned into a symlink out of the project after the turn", async () => {
    const project = scratch("ckpt-symlink-after-");
    const outside = scratch("ckpt-outside-after-");
    write(project, "lib/code.ts", "v1\n");
    const store = await storeWith(settings());
    const id = await turn(store, [project], () => fs.rmSync(path.join(project, "lib"), { recursive: true }));
    fs.symlinkSync(outside, path.join(project, "lib"));
    const report = await store.restore(project, id);
    assert.deepEqual(report.restored, []);
    assert.deepEqual(report.conflicts, [{ path: "lib/code.ts", reason: "lib is a symlink (never followed)" }]);
    assert.deepEqual(fs.readdirSync(outside), [], "nothing written outside the project");
    await store.close();
  });

  it("reports a damaged record, survives a deleted store, and refuses a turn id that is not one", async () => {
    const project = scratch("ckpt-damaged-");
    write(project, "a.txt", "a\n");
    const options = settings();
    const store = await storeWith(options);
    const first = await turn(store, [project], () => write(project, "a.txt", "b\n"));
    const turns = path.dirname(
      fs
        .readdirSync(options.directory, { recursive: true })
        .map(String)
        .find((file) => file.endsWith(`${first}.json`))!,
    );
    fs.writeFileSync(path.join(options.directory, turns, `${first}.json`), "{ not json");
    assert.deepEqual(store.list(project).damaged, [`${first}.json`]);
    await assert.rejects(store.restore(project, first), /damaged/);
    await assert.rejects(store.restore(project, "../../etc/passwd"), /not a turn id/);
    fs.rmSync(options.directory, { recursive: true, force: true });
    const second = await turn(store, [project], () => write(project, "a.txt", "c\n"));
    assert.equal(store.list(project).records.at(-1)?.id, second);
    assert.equal(store.list(project).records.at(-1)?.state, "done");
    await store.restore(project, second);
    assert.equal(read(project, "a.txt"), "b\n");
    await store.close();
  });

  it("sets a damaged shadow repository aside and records again; an older turn says plainly it cannot be read", async () => {
    const project = scratch("ckpt-corrupt-");
    write(project, "a.txt", "a0\n");
    const options = settings();
    const store = await storeWith(options);
    const first = await turn(store, [project], () => write(project, "a.txt", "a1\n"));
    const [key] = fs.readdirSync(path.join(options.directory, "projects"));
    const home = path.join(options.directory, "projects", key!);
    // Garbled: git no longer takes it for a repository.
    fs.writeFileSync(path.join(home, "git", "HEAD"), "not a ref\n");
    const second = await turn(store, [project], () => write(project, "a.txt", "a2\n"));
    const record = store.list(project).records.at(-1)!;
    assert.equal(record.id, second);
    assert.equal(record.state, "done", JSON.stringify(record.notes));
    assert.deepEqual(record.roots[0]!.files, [{ path: "a.txt", status: "modified" }]);
    assert.match(record.notes.join(), /was damaged; set aside as .*git\.damaged-.* and started afresh/);
    assert.match(options.logged.join("\n"), /was damaged; set aside/);
    assert.ok(
      fs.readdirSync(home).some((name) => name.startsWith("git.damaged-")),
      "the damaged repository kept aside, not deleted",
    );
    await assert.rejects(store.restore(project, first), /cannot be read: its snapshots are no longer in the checkpoint store/);
    await assert.rejects(store.diff(project, first), /cannot be read/);
    assert.equal(read(project, "a.txt"), "a2\n", "nothing written by the failed undo");
    await store.restore(project, second);
    assert.equal(read(project, "a.txt"), "a1\n");
    // Its objects gone too (a store half-deleted by hand): the same.
    fs.rmSync(path.join(home, "git", "objects"), { recursive: true });
    const third = await turn(store, [project], () => write(project, "a.txt", "a3\n"));
    assert.equal(store.list(project).records.at(-1)?.state, "done");
    await store.restore(project, third);
    assert.equal(read(project, "a.txt"), "a1\n");
    await store.close();
  });

  it("an undo racing the user's save leaves the saved file alone (checked again just before each write)", async () => {
    const project = scratch("ckpt-race-");
    write(project, "a.txt", "a0\n");
    write(project, "b.txt", "b0\n");
    const store = await storeWith(settings());
    const id = await turn(store, [project], () => {
      write(project, "a.txt", "a1\n");
      write(project, "b.txt", "b1\n");
    });
    // The user's save of b.txt lands after the undo looked at it, while it reads the old contents from the store.
    const report = await store.restore(project, id, (file) => {
      if (file === path.join(project, "b.txt")) write(project, "b.txt", "typed and saved during the undo\n");
      return null;
    });
    assert.deepEqual(report.restored, ["a.txt"]);
    assert.deepEqual(report.conflicts, [{ path: "b.txt", reason: "changed since the turn" }]);
    assert.equal(read(project, "b.txt"), "typed and saved during the undo\n");
    assert.equal(read(project, "a.txt"), "a0\n");
    await store.close();
  });

  it("keeps the newest records only, skips a snapshot over budget, and finishes an unanswered turn on close", async () => {
    const project = scratch("ckpt-bounds-");
    write(project, "a.txt", "0");
    const store = await storeWith(settings({ maxTurns: 2 }));
    for (const n of [1, 2, 3]) await turn(store, [project], () => write(project, "a.txt", String(n)));
    assert.equal(store.list(project).records.length, 2);
    await store.close();

    const slowSettings = settings({ budgetMs: 0.001 });
    const slow = await storeWith(slowSettings);
    const skipped = slow.beginTurn({ sessionId: "s", prompt: "p", dirs: [project] });
    await skipped.ready;
    await skipped.finish();
    const record = slow.list(project).records[0]!;
    assert.equal(record.state, "skipped");
    assert.match(record.notes.join(), /longer than the .* budget/);
    // Known too big now: the next prompt does not wait for the budget again, and its turn is skipped too.
    const next = slow.beginTurn({ sessionId: "s", prompt: "again", dirs: [project] });
    await next.ready;
    await next.finish();
    assert.equal(slow.list(project).records.at(-1)?.state, "skipped");
    await slow.close();
    // A new conversation (another process's store) knows it too, from the store (a project whose last snapshot
    // took over an hour): its first prompt goes on at once, unrecorded, instead of waiting its budget to learn it.
    // The budget is ten minutes, longer than this file may run: a store that waited it would fail the test.
    const projects = path.join(slowSettings.directory, "projects");
    await eventually(
      () => fs.readdirSync(projects).some((key) => fs.existsSync(path.join(projects, key, "last-snapshot-ms"))),
      10_000,
      "a snapshot's time kept",
    );
    for (const key of fs.readdirSync(projects)) fs.writeFileSync(path.join(projects, key, "last-snapshot-ms"), "6000000\n");
    const later = await storeWith({ ...slowSettings, budgetMs: 600_000 });
    const fresh = later.beginTurn({ sessionId: "s2", prompt: "new conversation", dirs: [project] });
    await fresh.ready;
    await fresh.finish();
    assert.equal(later.list(project).records.at(-1)?.state, "skipped");
    await later.close();

    const open = await storeWith(settings());
    const unanswered = open.beginTurn({ sessionId: "s", prompt: "never answered", dirs: [project] });
    await unanswered.ready;
    write(project, "a.txt", "written before the end");
    await open.close();
    const closed = open.list(project).records[0]!;
    assert.equal(closed.state, "done");
    assert.match(closed.notes.join(), /no answer/);
    assert.deepEqual(closed.roots[0]!.files, [{ path: "a.txt", status: "modified" }]);
  });

  it("rewinds a conversation to just after one turn: its later turns undone newest first, another conversation's and files changed since left alone", async () => {
    const project = scratch("ckpt-rewind-");
    write(project, "a.txt", "0\n");
    const store = await storeWith(settings());
    const first = await turn(store, [project], () => write(project, "a.txt", "1\n"));
    await turn(store, [project], () => write(project, "a.txt", "2\n"));
    await turn(store, [project], () => write(project, "other.txt", "other conversation\n"), "s2");
    await turn(store, [project], () => {
      write(project, "a.txt", "3\n");
      write(project, "b.txt", "b\n");
      write(project, "c.txt", "c\n");
    });
    write(project, "c.txt", "changed by the user since\n");
    const reports = await store.rewind(project, first);
    assert.equal(reports.length, 2);
    assert.equal(read(project, "a.txt"), "1\n");
    assert.equal(fs.existsSync(path.join(project, "b.txt")), false);
    assert.equal(read(project, "c.txt"), "changed by the user since\n");
    assert.deepEqual(
      reports.flatMap((report) => report.conflicts.map((conflict) => conflict.path)),
      ["c.txt"],
    );
    assert.equal(read(project, "other.txt"), "other conversation\n");
    await store.close();
  });

  it("records two conversations on one project (two processes' stores) without mixing their records", async () => {
    const project = scratch("ckpt-two-");
    write(project, "a.txt", "a\n");
    const options = settings();
    const [one, two] = [await storeWith(options), await storeWith(options)];
    const first = one.beginTurn({ sessionId: "one", prompt: "p1", dirs: [project] });
    const second = two.beginTurn({ sessionId: "two", prompt: "p2", dirs: [project] });
    await Promise.all([first.ready, second.ready]);
    write(project, "one.txt", "1");
    write(project, "two.txt", "2");
    await Promise.all([first.finish(), second.finish()]);
    const records = one.list(project).records;
    assert.deepEqual(records.map((record) => record.sessionId).sort(), ["one", "two"]);
    for (const record of records) assert.equal(record.state, "done");
    await Promise.all([one.close(), two.close()]);
  });

  it("is off, with one clear log line, when git is not on PATH", async () => {
    const saved = process.env.PATH;
    process.env.PATH = scratch("ckpt-empty-path-");
    try {
      const options = settings();
      assert.equal(await CheckpointStore.create(options), null);
      assert.equal(options.logged.length, 1);
      assert.match(options.logged[0]!, /no `git` on PATH/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
