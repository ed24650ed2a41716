// Turn checkpoints through the real conductor: the SDK's client in
// front, an agent behind that writes the disk with its own calls; the turn
// recorded from session/new's cwd and additionalDirectories, and listed,
// diffed and undone through `symposium-conductor checkpoints`. Message order
// holds while a prompt waits for its snapshot; a prompt never answered is
// finished when the conversation ends.

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { CheckpointStore, DEFAULT_SETTINGS, type TurnRecord } from "../../../checkpoints/src/index.js";
import { testClient, type AgentCalls } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, startNode, streamTo, scratchDirs, type RunningProcess } from "../../support/processes.js";

const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");
const scratch = scratchDirs();

/** A conductor in front of the disk agent, with its config (and so its checkpoint store) in a folder of its own. */
function setup(extraEnv: NodeJS.ProcessEnv = {}) {
  const home = scratch("ckpt-conductor-");
  const env = {
    SYMPOSIUM_EDITOR_STATE_FILE: path.join(home, "no-state.json"),
    SYMPOSIUM_CONFIG: path.join(home, "config.jsonc"),
    SYMPOSIUM_CHECKPOINTS_DIR: path.join(home, "checkpoints"),
    ...extraEnv,
  };
  const start = () => startNode(CONDUCTOR_CLI, ["agent", `${process.execPath} ${DISK_AGENT}`], env);
  const cli = async (args: string[], cwd: string) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [CONDUCTOR_CLI, "checkpoints", ...args], { cwd, env: { ...process.env, ...env } });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const records = async (project: string): Promise<TurnRecord[]> => {
    const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(home, "checkpoints"), log: () => {} });
    return store!.list(project).records;
  };
  /** The states of the turns recorded so far, read as they are written (for waiting on one). */
  const states = (): string[] =>
    fs
      .readdirSync(path.join(home, "checkpoints"), { recursive: true, encoding: "utf8" })
      .filter((file) => /turns[\\/][^\\/]+\.json$/.test(file))
      .map((file) => (JSON.parse(fs.readFileSync(path.join(home, "checkpoints", file), "utf8")) as TurnRecord).state);
  const beforeTurn = async (project: string, turnId: string, file: string): Promise<string | undefined> => {
    const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(home, "checkpoints"), log: () => {} });
    return (await store!.fileAt(project, turnId, project, file, "before"))?.toString("utf8");
  };
  return { start, cli, records, states, beforeTurn };
}

async function session(agent: AgentCalls, cwd: string, additionalDirectories: string[] = []): Promise<string> {
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return (await agent.request<{ sessionId: string }>("session/new", { cwd, additionalDirectories, mcpServers: [] })).sessionId;
}

const prompt = (agent: AgentCalls, sessionId: string, steps: unknown[]) =>
  agent.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify(steps) }] });

async function stop(proc: RunningProcess): Promise<void> {
  proc.child.stdin!.end();
  await proc.exited;
}

describe("checkpoints through the conductor", () => {
  it("records an agent's own disk writes in cwd and an additional directory, and the CLI lists, diffs and undoes them", async () => {
    const { start, cli, records } = setup();
    const project = scratch("ckpt-proj-");
    const extra = scratch("ckpt-extra-");
    fs.writeFileSync(path.join(project, "main.ts"), "const answer = 41;\n");
    fs.writeFileSync(path.join(project, "old.ts"), "export const moved = true;\n".repeat(10));
    fs.writeFileSync(path.join(project, "doomed.ts"), "bye\n");
    fs.writeFileSync(path.join(extra, "notes.md"), "# notes\n");
    const conductor = start();
    after(() => conductor.child.kill());
    await testClient(streamTo(conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project, [extra]);
      const answer = await prompt(agent, sessionId, [
        { op: "edit", path: "main.ts", find: "41", replace: "42" },
        { op: "rename", from: "old.ts", to: "lib/new.ts" },
        { op: "delete", path: "doomed.ts" },
        { op: "mkdir", path: "empty/dir" },
        { op: "write", path: "src/added.ts", content: "export {};\n" },
        { op: "write", path: path.join(extra, "notes.md"), content: "# notes\nmore\n" },
      ]);
      assert.equal(answer.stopReason, "end_turn");
    });
    await stop(conductor);
    const turns = await records(project);
    assert.equal(turns.length, 1);
    const [turn] = turns;
    assert.equal(turn!.state, "done");
    assert.match(turn!.prompt, /"op":"edit"/);
    assert.deepEqual(
      turn!.roots.map((root) => [root.dir, root.files.map((file) => `${file.status} ${file.path}`).sort()]),
      [
        [project, ["added src/added.ts", "deleted doomed.ts", "modified main.ts", "renamed lib/new.ts"]],
        [extra, ["modified notes.md"]],
      ],
    );

    const listed = await cli(["list"], project);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${turn!.id}  done     5 files changed`));
    const diff = await cli(["diff", turn!.id], project);
    assert.match(diff.stdout, /-const answer = 41;\n\+const answer = 42;/);
    assert.match(diff.stdout, /rename from old.ts\nrename to lib\/new.ts/);
    const restored = await cli(["restore", turn!.id, "--project", project], "/");
    assert.equal(restored.status, 0, restored.stdout + restored.stderr);
    assert.equal(fs.readFileSync(path.join(project, "main.ts"), "utf8"), "const answer = 41;\n");
    assert.ok(fs.existsSync(path.join(project, "old.ts")) && !fs.existsSync(path.join(project, "lib/new.ts")));
    assert.equal(fs.readFileSync(path.join(project, "doomed.ts"), "utf8"), "bye\n");
    assert.ok(!fs.existsSync(path.join(project, "src/added.ts")));
    assert.equal(fs.readFileSync(path.join(extra, "notes.md"), "utf8"), "# notes\n");
    const bad = await cli(["restore", "nonsense"], project);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /'nonsense' is not a turn id/);
  });

  it("counts a file the user saved after the session opened, or between turns, as the project before the next turn, not as the agent's change", async () => {
    const { start, records, states, beforeTurn } = setup();
    const project = scratch("ckpt-ahead-");
    fs.writeFileSync(path.join(project, "notes.md"), "draft\n");
    fs.writeFileSync(path.join(project, "code.ts"), "v1\n");
    const conductor = start();
    after(() => conductor.child.kill());
    await testClient(streamTo(conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project);
      // Saved while the snapshot the session's opening started may still be running, at the same size.
      fs.writeFileSync(path.join(project, "notes.md"), "DRAFT\n");
      await prompt(agent, sessionId, [{ op: "edit", path: "code.ts", find: "v1", replace: "v2" }]);
      await eventually(() => states().includes("done"), 10_000, "the first turn's after-snapshot");
      // Saved after that snapshot: the next prompt's snapshot must see it, not reuse the last one.
      fs.writeFileSync(path.join(project, "notes.md"), "edited\n");
      await prompt(agent, sessionId, [{ op: "edit", path: "code.ts", find: "v2", replace: "v3" }]);
    });
    await stop(conductor);
    const turns = await records(project);
    assert.deepEqual(
      turns.map((turn) => turn.roots[0]!.files.map((file) => file.path)),
      [["code.ts"], ["code.ts"]],
    );
    assert.equal(await beforeTurn(project, turns[0]!.id, "notes.md"), "DRAFT\n");
    assert.equal(await beforeTurn(project, turns[1]!.id, "notes.md"), "edited\n");
  });

  it("keeps message order while a prompt waits for its snapshot: a cancel sent right after reaches the agent after it", async () => {
    const { start } = setup();
    const project = scratch("ckpt-order-");
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(project, `f${i}.txt`), `file ${i}\n`);
    const conductor = start();
    after(() => conductor.child.kill());
    await testClient(streamTo(conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project);
      const answer = prompt(agent, sessionId, [{ op: "wait-cancel" }]);
      await agent.notify("session/cancel", { sessionId });
      assert.equal((await answer).stopReason, "cancelled");
    });
    await stop(conductor);
  });

  it("finishes a prompt that never got an answer when the conversation ends, and keeps two sessions on one project apart", async () => {
    const { start, records } = setup();
    const project = scratch("ckpt-hang-");
    fs.writeFileSync(path.join(project, "a.txt"), "a\n");
    const conductor = start();
    after(() => conductor.child.kill());
    await testClient(streamTo(conductor.child)).run(async (agent) => {
      const [one, two] = [await session(agent, project), await session(agent, project)];
      await Promise.all([
        prompt(agent, one, [{ op: "write", path: "one.txt", content: "1" }]),
        prompt(agent, two, [{ op: "write", path: "two.txt", content: "2" }]),
      ]);
      void prompt(agent, one, [{ op: "write", path: "a.txt", content: "half-done\n" }, { op: "hang" }]).catch(() => {});
      await eventually(() => fs.readFileSync(path.join(project, "a.txt"), "utf8") === "half-done\n", 10_000, "the hanging turn's write");
    });
    await stop(conductor);
    const turns = await records(project);
    assert.equal(turns.length, 3, JSON.stringify(turns));
    assert.deepEqual(
      turns.map((turn) => turn.state),
      ["done", "done", "done"],
    );
    const hung = turns.find((turn) => turn.notes.some((note) => note.includes("no answer")));
    assert.ok(hung, "the unanswered turn says so");
    assert.deepEqual(hung.roots[0]!.files, [{ path: "a.txt", status: "modified" }]);
  });

  it("answers every prompt of a project too big for the snapshot budget, each turn skipped with a note and a log line, the files untouched", async () => {
    // A budget of 1 ms stands for a project of 100,000 files (bench C2 measures the real one).
    const { start, records, cli } = setup({ SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "1" });
    const project = scratch("ckpt-big-");
    for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(project, `f${i}.txt`), `file ${i}\n`);
    const conductor = start();
    after(() => conductor.child.kill());
    await testClient(streamTo(conductor.child)).run(async (agent) => {
      const sessionId = await session(agent, project);
      for (const content of ["one\n", "two\n"]) {
        const answer = await prompt(agent, sessionId, [{ op: "write", path: "f0.txt", content }]);
        assert.equal(answer.stopReason, "end_turn");
      }
    });
    await stop(conductor);
    assert.equal(fs.readFileSync(path.join(project, "f0.txt"), "utf8"), "two\n");
    const turns = await records(project);
    assert.deepEqual(
      turns.map((turn) => turn.state),
      ["skipped", "skipped"],
    );
    for (const turn of turns) assert.match(turn.notes.join(), /not recorded: the snapshot took longer than the 1 ms budget/);
    assert.match(conductor.stderr(), /not recorded: .* took longer than 1 ms to snapshot/);
    const listed = await cli(["list"], project);
    assert.match(listed.stdout, /skipped/);
    const refused = await cli(["restore", turns[0]!.id], project);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /cannot be undone: not recorded: the snapshot took longer/);
  });
});
