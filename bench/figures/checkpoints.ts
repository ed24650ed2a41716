// C1 and C2: what turn checkpoints (docs/checkpoints.md) add to a prompt — the
// before-turn snapshot the prompt waits for — on a project of 10,000 and of
// 100,000 files that is also a git repository, with a warm index (one file
// changed between turns, as an agent's turn leaves it). The floor, measured in
// the same runs on the same tree: `git stash create` in the project's own
// repository (what a plain-git checkpoint costs; it writes nothing but objects).
// C3: a turn's review opening in VS Code (code-server + Chromium), same floor.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { CheckpointStore, DEFAULT_SETTINGS, checkpointsDirectory } from "../../checkpoints/src/index.js";
import { closeDemoWindow, command, openDemoWindow } from "../../test/e2e/panel-helpers.js";
import { RUNS, median, percentile, type Figure } from "./common.js";

/** A git repository of `files` small files in folders of 100, committed. */
function project(dir: string, files: number): string {
  const root = path.join(dir, `project-${files}`);
  for (let i = 0; i < files; i++) {
    const folder = path.join(root, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.ts`), `export const value${i} = ${i};\n`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: root, stdio: "pipe", maxBuffer: 1 << 28 });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "bench");
  return root;
}

async function snapshotFigure(dir: string, id: string, files: number, goalMs: number, runs: number): Promise<Figure> {
  const root = project(dir, files);
  const store = (await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(dir, `store-${files}`), log: () => {} }))!;
  const changed = path.join(root, "d0", "f0.ts");
  const turn = async (): Promise<number> => {
    fs.appendFileSync(changed, "// another turn\n");
    const started = process.hrtime.bigint();
    const begun = store.beginTurn({ sessionId: "bench", prompt: "bench", dirs: [root] });
    await begun.ready;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await begun.finish();
    return ms;
  };
  const stash = (): number => {
    fs.appendFileSync(changed, "// another turn\n");
    const started = process.hrtime.bigint();
    execFileSync("git", ["stash", "create"], { cwd: root, stdio: "pipe" });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  // Warm-up: the first snapshot reads every file (cold index); over the budget, the next turn is skipped
  // at once while a snapshot runs behind it and warms the index; then both arms are warm.
  const cold = await turn();
  await turn();
  // The cold snapshot ends (over the budget: the project counts as too big), then a skipped turn's snapshot
  // behind it says how long a warm one takes: a project that fits is recorded again from the next turn.
  await store.idle();
  await turn();
  await store.idle();
  stash();
  execFileSync("git", ["update-index", "-q", "--refresh"], { cwd: root, stdio: "pipe" });
  const ours: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < runs; run++) {
    ours.push(await turn());
    floor.push(stash());
  }
  const skipped = store.list(root).records.filter((record) => record.state === "skipped").length;
  await store.close();
  const p50 = median(ours);
  return {
    id,
    what: `before-turn snapshot, ${files.toLocaleString("en")} files, warm index (p50)`,
    value: `${p50.toFixed(0)} ms`,
    goal: `≤ ${goalMs} ms`,
    met: p50 <= goalMs,
    detail: `p90 ${percentile(ours, 90).toFixed(0)} ms; \`git stash create\` on the same tree ${median(floor).toFixed(0)} ms (p90 ${percentile(floor, 90).toFixed(0)}); first (cold) snapshot ${cold.toFixed(0)} ms; ${skipped} of ${runs + 3} turns skipped by the ${DEFAULT_SETTINGS.budgetMs} ms budget (a project known too big is skipped without waiting); ${runs} runs`,
  };
}

export const c1 = (dir: string): Promise<Figure> => snapshotFigure(dir, "C1", 10_000, 100, Math.max(RUNS, 11));
export const c2 = (dir: string): Promise<Figure> => snapshotFigure(dir, "C2", 100_000, 1_000, RUNS);

/** The `i`-th of C3's files, its first line saying which turn wrote it last. */
function reviewedFile(index: number, turn: number): string {
  const name = `f${String(index).padStart(2, "0")}`;
  return [`${name}, turn ${turn}`, ...Array.from({ length: 40 }, (_, line) => `${name} line ${line + 2}`)].join("\n") + "\n";
}

/**
 * C3: `Symposium: Review Agent Changes` on a turn that changed 50 files, in code-server + Chromium: Enter on the
 * turn in the picker → VS Code's multi-file diff showing the first file's both sides (its left side read from the
 * shadow repository). Each run reviews a new turn, so no document is cached from the run before. The floors, on
 * the same tree in the same runs: `git stash create` (the project is a git repository) and one `git diff` of the
 * turn's two trees (the CLI's `checkpoints diff`), plain git's cost of the same review's data.
 */
export async function c3(): Promise<Figure> {
  const demo = await openDemoWindow({}, { "files.autoSave": "off" });
  try {
    const { workspace, page } = demo;
    const files = Array.from({ length: 50 }, (_, index) => path.join(workspace, "review", `f${String(index).padStart(2, "0")}.txt`));
    fs.mkdirSync(path.join(workspace, "review"));
    files.forEach((file, index) => fs.writeFileSync(file, reviewedFile(index, 0)));
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: workspace, stdio: "pipe" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "bench");
    // The store the extension reads: beside the config file openDemoWindow set up.
    const store = (await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: checkpointsDirectory(process.env), log: () => {} }))!;
    const timed = async (work: () => unknown): Promise<number> => {
      const started = process.hrtime.bigint();
      await work();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const samples = { open: [] as number[], picker: [] as number[], stash: [] as number[], diff: [] as number[] };
    for (let run = 1; run <= RUNS + 1; run++) {
      const turn = store.beginTurn({ sessionId: "bench", prompt: `review bench ${run}`, dirs: [workspace] });
      await turn.ready;
      files.forEach((file, index) => fs.writeFileSync(file, reviewedFile(index, run)));
      await turn.finish();
      const stash = await timed(() => execFileSync("git", ["stash", "create"], { cwd: workspace, stdio: "pipe" }));
      const diff = await timed(() => store.diff(workspace, turn.id));
      const asked = Date.now();
      await command(page, "Symposium: Review Agent Changes");
      await page
        .locator(".quick-input-widget .monaco-list-row", { hasText: `review bench ${run}` })
        .first()
        .waitFor({ timeout: 20_000 });
      const picked = Date.now();
      await page.keyboard.press("Enter");
      const diffEditor = page.locator(".part.editor .monaco-diff-editor").first();
      await diffEditor.locator(".editor.modified .view-line", { hasText: `f00, turn ${run}` }).waitFor({ timeout: 20_000 });
      await diffEditor.locator(".editor.original .view-line", { hasText: `f00, turn ${run - 1}` }).waitFor({ timeout: 20_000 });
      const shown = Date.now();
      await command(page, "View: Close All Editors");
      if (run === 1) continue; // warm-up: the extension's first store, the diff editor's first load
      samples.open.push(shown - picked);
      samples.picker.push(picked - asked);
      samples.stash.push(stash);
      samples.diff.push(diff);
    }
    await store.close();
    const p50 = median(samples.open);
    return {
      id: "C3",
      what: "review of a turn that changed 50 files: Enter on the turn → VS Code's multi-file diff showing its first file, code-server + Chromium (p50)",
      value: `${p50.toFixed(0)} ms`,
      goal: "≤ 500 ms",
      met: p50 <= 500,
      detail: `p90 ${percentile(samples.open, 90).toFixed(0)} ms; the palette command → the picker listing the turn ${median(samples.picker).toFixed(0)} ms; on the same tree, \`git stash create\` ${median(samples.stash).toFixed(0)} ms and one \`git diff\` of the turn's trees ${median(samples.diff).toFixed(0)} ms; ${RUNS} runs`,
    };
  } finally {
    await closeDemoWindow(demo.browser, demo.server);
  }
}
