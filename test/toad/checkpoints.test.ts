// A turn made through the real Toad's page is recorded: the panel host runs
// Toad, Toad our conductor, the conductor an agent that writes the disk itself
// (test/fixtures/disk-agent.ts). The user types the agent's steps into Toad's
// terminal in Chromium; then `symposium-conductor checkpoints list` shows the
// turn, and the store VS Code's commands open (extension/src/turns/agent-turns.ts:
// the folder `checkpointsDirectory` names from the extension's environment)
// holds the same record, its before side what Review shows on the left.

import { strict as assert } from "node:assert";
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { CheckpointStore, DEFAULT_SETTINGS, checkpointsDirectory } from "../../checkpoints/src/index.js";
import { launchBrowser } from "../harness/code-server.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, tempDir } from "../support/processes.js";
import { realToadSkip, startToadHost, treeCommands, type ToadHost } from "../support/toad.js";
import { typeInto, waitForScreenText, watchTerminalOutput } from "../support/toad-page.js";

const skip = realToadSkip();
const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");

describe("a turn through the real Toad's page, recorded", { skip, timeout: 300_000 }, () => {
  let host: ToadHost;
  let browser: Browser;

  before(async () => {
    // A loaded machine may take over the 1 s budget for the first (cold) snapshot, which would skip the turn.
    process.env.SYMPOSIUM_CHECKPOINTS_BUDGET_MS = "60000";
    // The tests' Toad runs in the bubblewrap root scripts/install-toad.sh makes, which has no git (a user's Toad
    // finds the system's): this machine's git goes on its PATH, copied to /tmp, which the root shares.
    process.env.PATH = `${gitInTmp()}${path.delimiter}${process.env.PATH ?? ""}`;
    host = await startToadHost("real", DISK_AGENT);
    fs.writeFileSync(path.join(host.workspace, "notes.txt"), "written by the user\n");
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (host?.child.exitCode === null) host.child.kill("SIGTERM");
    await host?.exited;
  });

  it("records the agent's own disk writes; the CLI lists the turn and VS Code's store reads the same record", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    try {
      await page.addInitScript(watchTerminalOutput);
      await page.goto(`${host.gate}/?token=${host.spec.secret}`);
      await page.waitForSelector("body.-first-byte", { timeout: 30_000 });
      // Toad takes a prompt once its agent is up (it says "connected"; before, it keeps the prompt while "Initializing…").
      await eventually(() => treeCommands(host).some(({ command }) => command.includes("disk-agent.js")), 60_000, "Toad's app to start the disk agent");
      await waitForScreenText(page, "connected", 30_000);
      // Short enough for one line of Toad's prompt (typeInto checks the page shows what was typed).
      const steps = [{ op: "edit", path: "notes.txt", find: "user", replace: "Toad" }];
      await typeInto(page, JSON.stringify(steps), { paste: true });
      await waitForScreenText(page, "done 1 steps", 60_000);
    } finally {
      await page.close();
    }
    // The conductor's environment, as the panel host gives it: its config file, so its store beside it.
    const env = { ...process.env, SYMPOSIUM_CONFIG: configOf(host) };
    const directory = checkpointsDirectory(env);
    const store = (await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory, log: () => {} }))!;
    await eventually(
      () => store.list(host.workspace).records.some((record) => record.state === "done"),
      30_000,
      "the turn's record, finished once Toad had its answer",
    ).catch((error: Error) => {
      throw new Error(`${error.message}; in ${directory}: ${JSON.stringify(store.list(host.workspace))}`);
    });
    const turn = store.list(host.workspace).records.find((record) => record.state === "done")!;
    assert.deepEqual(
      turn.roots.map((root) => [root.dir, root.files.map((file) => `${file.status} ${file.path}`).sort()]),
      [[fs.realpathSync(host.workspace), ["modified notes.txt"]]],
    );
    assert.match(turn.prompt, /"op":"edit"/);
    assert.equal((await store.fileAt(host.workspace, turn.id, turn.roots[0]!.dir, "notes.txt", "before"))?.toString(), "written by the user\n");

    const { stdout } = await promisify(execFile)(process.execPath, [CONDUCTOR_CLI, "checkpoints", "list"], { cwd: host.workspace, env });
    assert.match(stdout, new RegExp(`^${turn.id}  done     1 files changed`, "m"));
    const diff = await promisify(execFile)(process.execPath, [CONDUCTOR_CLI, "checkpoints", "diff", turn.id], { cwd: host.workspace, env });
    assert.match(diff.stdout, /-written by the user\n\+written by the Toad/);
  });
});

/** The config file startToadHost wrote (the conductor's SYMPOSIUM_CONFIG): beside the project folder. */
function configOf(host: ToadHost): string {
  return path.join(path.dirname(host.workspace), "config.jsonc");
}

/** A folder under /tmp holding a copy of this machine's `git` (its own commands are built in; it needs no other file of git's). */
function gitInTmp(): string {
  const found = execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim();
  const git = [path.join(found, "git"), "/usr/bin/git"].find((candidate) => fs.existsSync(candidate))!;
  const folder = tempDir("symposium-toad-git-");
  fs.copyFileSync(git, path.join(folder, "git"));
  fs.chmodSync(path.join(folder, "git"), 0o755);
  return folder;
}
