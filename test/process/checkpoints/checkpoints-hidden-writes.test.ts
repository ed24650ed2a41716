// Turn checkpoints through the real conductor against writes that slip past the
// snapshot proven unchanged without git (its stat record): an agent that swaps
// an ignored folder for a file of the same name inside its turn, and a user who
// does the same between two turns. The disk agent writes the disk itself; the
// CLI undoes. Each turn must list what it wrote, and only that.

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { CheckpointStore, DEFAULT_SETTINGS, type TurnRecord } from "../../../checkpoints/src/index.js";
import { RACY_MARGIN_MS } from "../../../checkpoints/src/disk-record.js";
import { testClient, type AgentCalls } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, startNode, streamTo, scratchDirs, type RunningProcess } from "../../support/processes.js";

const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");
const scratch = scratchDirs();
/** No-op turns tried while waiting for the stat record (each one's after-turn snapshot may leave it). */
const MAX_IDLE_TURNS = 20;

function write(root: string, file: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), content);
}

/** A project that ignores `cache/` and `build/` and has both folders. */
function makeProject(): string {
  const dir = scratch("ckpt-hidden-");
  write(dir, ".gitignore", "cache/\nbuild/\n");
  write(dir, "a.txt", "a0\n");
  write(dir, "cache/blob.bin", "cached\n");
  write(dir, "build/out.js", "built\n");
  return dir;
}

const projects: string[] = [];
before(async () => {
  projects.push(makeProject(), makeProject());
  const made = Date.now();
  // Files written less than the racy margin before a snapshot leave no stat record: the clock has to pass it.
  await eventually(() => Date.now() > made + RACY_MARGIN_MS + 100, RACY_MARGIN_MS + 10_000, "the racy margin to pass");
});

/** A conductor in front of the disk agent, its checkpoint store in a folder of its own. */
function setup() {
  const home = scratch("ckpt-hidden-home-");
  const checkpoints = path.join(home, "checkpoints");
  const env = {
    SYMPOSIUM_EDITOR_STATE_FILE: path.join(home, "no-state.json"),
    SYMPOSIUM_CONFIG: path.join(home, "config.jsonc"),
    SYMPOSIUM_CHECKPOINTS_DIR: checkpoints,
    // No turn skipped for time on a loaded machine: each must be recorded for the test to check it.
    SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "60000",
  };
  const conductor = startNode(CONDUCTOR_CLI, ["agent", `${process.execPath} ${DISK_AGENT}`], env);
  after(() => conductor.child.kill());
  const cli = async (args: string[], cwd: string) => {
    const { stdout } = await promisify(execFile)(process.execPath, [CONDUCTOR_CLI, "checkpoints", ...args], { cwd, env: { ...process.env, ...env } });
    return stdout;
  };
  const records = async (project: string): Promise<TurnRecord[]> => {
    const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: checkpoints, log: () => {} });
    return store!.list(project).records;
  };
  /** The project's turn records finished so far, read as they are written. */
  const finished = (): number =>
    (fs.existsSync(checkpoints) ? fs.readdirSync(checkpoints, { recursive: true, encoding: "utf8" }) : [])
      .filter((file) => /turns[\\/][^\\/]+\.json$/.test(file))
      .filter((file) => (JSON.parse(fs.readFileSync(path.join(checkpoints, file), "utf8")) as TurnRecord).state !== "open").length;
  /** How long the last snapshot took (ms), as the store keeps it. */
  const lastSnapshotMs = (): string => {
    const projectsFolder = path.join(checkpoints, "projects");
    const [key] = fs.readdirSync(projectsFolder);
    return fs.readFileSync(path.join(projectsFolder, key!, "last-snapshot-ms"), "utf8").trim();
  };
  return { conductor, cli, records, finished, lastSnapshotMs };
}

async function session(agent: AgentCalls, cwd: string): Promise<string> {
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return (await agent.request<{ sessionId: string }>("session/new", { cwd, additionalDirectories: [], mcpServers: [] })).sessionId;
}

/** One prompt to the disk agent, and its turn's record finished. */
async function turnOf(agent: AgentCalls, sessionId: string, steps: unknown[], finished: () => number): Promise<void> {
  const before = finished();
  const answer = await agent.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify(steps) }] });
  assert.equal(answer.stopReason, "end_turn");
  await eventually(() => finished() > before, 10_000, "the turn's record finished");
}

/**
 * Turns that write nothing until one's after-turn snapshot took under a millisecond: no git process is that
 * fast, so it was proven unchanged from the stat record, and the next prompt's snapshot will be too.
 */
async function untilCheckedWithoutGit(agent: AgentCalls, sessionId: string, running: ReturnType<typeof setup>): Promise<void> {
  for (let i = 0; i < MAX_IDLE_TURNS; i++) {
    await turnOf(agent, sessionId, [], running.finished);
    if (running.lastSnapshotMs() === "0") return;
  }
  assert.fail(`no snapshot was proven unchanged without git in ${MAX_IDLE_TURNS} turns`);
}

async function stop(proc: RunningProcess): Promise<void> {
  proc.child.stdin!.end();
  await proc.exited;
}

describe("checkpoints through the conductor against hidden writes", () => {
  it("lists the file an agent put in place of an ignored folder inside its turn (rm -rf cache && echo x > cache), and Undo removes only it", async () => {
    const project = projects.pop()!;
    const running = setup();
    await testClient(streamTo(running.conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project);
      await untilCheckedWithoutGit(agent, sessionId, running);
      await turnOf(
        agent,
        sessionId,
        [
          { op: "delete", path: "cache" },
          { op: "write", path: "cache", content: "x\n" },
        ],
        running.finished,
      );
    });
    await stop(running.conductor);
    const last = (await running.records(project)).at(-1)!;
    assert.equal(last.state, "done");
    assert.deepEqual(last.roots[0]!.files, [{ path: "cache", status: "added" }]);
    assert.match(await running.cli(["list"], project), new RegExp(`${last.id}  done     1 files changed \\(cache\\)`));
    await running.cli(["restore", last.id], project);
    assert.equal(fs.existsSync(path.join(project, "cache")), false, "the agent's file undone");
    assert.equal(fs.readFileSync(path.join(project, "a.txt"), "utf8"), "a0\n");
  });

  it("keeps a file the user put in place of an ignored folder between turns out of the next turn: Undo leaves it", async () => {
    const project = projects.pop()!;
    const running = setup();
    await testClient(streamTo(running.conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project);
      await untilCheckedWithoutGit(agent, sessionId, running);
      fs.rmSync(path.join(project, "build"), { recursive: true });
      write(project, "build", "the user's own build file\n");
      await turnOf(agent, sessionId, [{ op: "edit", path: "a.txt", find: "a0", replace: "a1" }], running.finished);
    });
    await stop(running.conductor);
    const last = (await running.records(project)).at(-1)!;
    assert.deepEqual(last.roots[0]!.files, [{ path: "a.txt", status: "modified" }]);
    await running.cli(["restore", last.id], project);
    assert.equal(fs.readFileSync(path.join(project, "a.txt"), "utf8"), "a0\n");
    assert.equal(fs.readFileSync(path.join(project, "build"), "utf8"), "the user's own build file\n");
  });
});
