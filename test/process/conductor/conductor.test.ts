// symposium-conductor as a real process: the SDK's client app (or acpx) in
// front, real proxy processes and a real agent behind.

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { CLIENT_ANSWERS, clientAnswersReported, expectCancellationReachesAgent, openSession, receivedPrompt, testClient } from "../../support/acp-client.js";
import {
  AGENT_WITH_CHILD,
  CONDUCTOR_CLI,
  PROXY_CLI,
  REPO_DIR,
  REPORTING_AGENT,
  descendants,
  eventually,
  isAlive,
  startNode,
  streamTo,
  tempDir,
  type RunningProcess,
} from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const node = process.execPath;
const proxyCommand = `${node} ${PROXY_CLI}`;
const agentCommand = `${node} ${REPORTING_AGENT}`;
const POSIX = process.platform !== "win32";

function conductor(args: string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  return startNode(CONDUCTOR_CLI, args, { SYMPOSIUM_EDITOR_STATE_FILE: "", ...env });
}

/** Runs one exercising prompt through `proc`; returns the prompt the agent received. */
async function exercise(proc: RunningProcess) {
  const peer = testClient(streamTo(proc.child));
  await peer.run(async (agent) => {
    const sessionId = await openSession(agent);
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "exercise-client" }] });
    assert.deepEqual(await agent.request("_test/echo", { n: 1 }), { echo: { n: 1 } });
  });
  assert.deepEqual(clientAnswersReported(peer.updates), CLIENT_ANSWERS, "agent→client requests crossed every hop");
  assert.ok(peer.updates.some(({ update }) => update.sessionUpdate === "tool_call"));
  return receivedPrompt(peer.updates);
}

function contextBlocks(prompt: Array<{ text?: string }>): number {
  return prompt.filter((block) => block.text?.startsWith("<editor-context>")).length;
}

async function closeAndWait(proc: RunningProcess): Promise<number> {
  proc.child.stdin!.end();
  return proc.exited;
}

describe("conductor chains", () => {
  for (const dialect of ["_proxy", "proxy"] as const) {
    for (const proxies of [0, 1, 2, 3]) {
      it(`carries everything through ${proxies} proxy processes speaking ${dialect}/*, plus the in-process hook`, async () => {
        const stateFile = writeStateFile(SEED_STATE);
        const chain = [...Array<string>(proxies).fill(proxyCommand), agentCommand];
        const proc = conductor(["agent", "--proxy-dialect", dialect, ...chain], { SYMPOSIUM_EDITOR_STATE_FILE: stateFile });
        const prompt = await exercise(proc);
        assert.equal(contextBlocks(prompt), 1, "the hook's block only: injection is idempotent (docs/proxy.md)");
        assert.equal(prompt.at(-1)!.text, "exercise-client");
        assert.equal(await closeAndWait(proc), 0, proc.stderr());
      });
    }
  }

  it("inserts the editor-context proxy first, in process, exactly when the variable is set", async () => {
    const withVariable = conductor(["agent", agentCommand], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE), SYMPOSIUM_LOG: "debug" });
    const prompt = await exercise(withVariable);
    assert.equal(contextBlocks(prompt), 1);
    await closeAndWait(withVariable);
    assert.match(
      withVariable.stderr(),
      /chain: client → hand-over guard \(in process\) → checkpoints \(in process\) → editor-context \(in process\) → agent-errors \(in process\) → agent meta guard \(in process\) → agent\n/,
    );

    const without = conductor(["agent", agentCommand], { SYMPOSIUM_LOG: "debug" });
    assert.equal(contextBlocks(await exercise(without)), 0);
    await closeAndWait(without);
    assert.match(without.stderr(), /chain: client → hand-over guard \(in process\) → agent-errors \(in process\) → agent meta guard \(in process\) → agent\n/);
  });

  it("runs nested: a conductor in proxy mode as a proxy of another conductor", async () => {
    const inner = `${node} ${CONDUCTOR_CLI} proxy '${proxyCommand}'`;
    const proc = conductor(["agent", inner, agentCommand], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) });
    const prompt = await exercise(proc);
    assert.equal(contextBlocks(prompt), 1, "the outer hook's block only: injection is idempotent");
    assert.equal(await closeAndWait(proc), 0, proc.stderr());
  });

  it("forwards $/cancel_request hop by hop, so the agent stops the request", async () => {
    const proc = conductor(["agent", proxyCommand, agentCommand]);
    const peer = testClient(streamTo(proc.child));
    await peer.run(async (agent) => {
      await openSession(agent);
      await expectCancellationReachesAgent(agent);
    });
    await closeAndWait(proc);
  });

  it("serves acpx, a real ACP client", async () => {
    const acpx = path.join(REPO_DIR, "node_modules", ".bin", "acpx");
    const command = `${node} ${CONDUCTOR_CLI} agent '${proxyCommand}' '${agentCommand}'`;
    const { stdout } = await promisify(execFile)(acpx, ["--agent", command, "--approve-all", "--format", "json", "exec", "from acpx"], {
      cwd: tempDir(),
      env: { ...process.env, SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
      timeout: 60_000,
    });
    const update = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { method?: string; params?: { update?: { content?: { text?: string } } } })
      .find((message) => message.method === "session/update");
    const received = (JSON.parse(update!.params!.update!.content!.text!) as { received: Array<{ text: string }> }).received;
    assert.equal(contextBlocks(received), 1);
    assert.equal(received.at(-1)!.text, "from acpx");
  });

  it("writes one trace line per message per hop", async () => {
    const trace = path.join(tempDir(), "trace.ndjson");
    const proc = conductor(["agent", "--trace", trace, proxyCommand, agentCommand]);
    await exercise(proc);
    await closeAndWait(proc);
    const lines = fs
      .readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { time: string; hop: string; direction: string; message: { method?: string } });
    const hops = new Set(lines.map((line) => `${line.hop}/${line.direction}`));
    assert.deepEqual([...hops].sort(), [
      "agent/in",
      "agent/out",
      "client/in",
      "client/out",
      "proxy 1 (node symposium-editor-context.mjs)/in",
      "proxy 1 (node symposium-editor-context.mjs)/out",
    ]);
    const prompts = lines.filter(
      (line) => line.message.method === "session/prompt" || (line.message as { params?: { method?: string } }).params?.method === "session/prompt",
    );
    assert.equal(prompts.length, 4, "the prompt crossed 2 hops: in and out of each");
    assert.ok(lines.every((line) => !Number.isNaN(Date.parse(line.time))));
    if (POSIX) assert.equal(fs.statSync(trace).mode & 0o077, 0, "the trace holds selected code: private");
  });
});

describe("conductor lifecycle", () => {
  it("ends every component and its children when the client closes stdin", { skip: POSIX ? false : "uses ps" }, async () => {
    const childPidFile = path.join(tempDir(), "child.pid");
    const proc = conductor(["agent", proxyCommand, `${node} ${AGENT_WITH_CHILD}`], { CHILD_PID_FILE: childPidFile });
    await exercise(proc);
    await eventually(() => fs.existsSync(childPidFile), 5_000, "agent's child");
    const tree = descendants(proc.child.pid!);
    assert.ok(tree.length >= 3, `proxy, agent and the agent's child are running: ${tree.join(", ")}`);
    const started = Date.now();
    assert.equal(await closeAndWait(proc), 0);
    // A hang detector, not a speed figure (how fast a chain stops is the benchmarks' business).
    assert.ok(Date.now() - started < 15_000, `exited in ${Date.now() - started} ms`);
    await eventually(() => tree.every((pid) => !isAlive(pid)), 5_000, `no orphans among ${tree.join(", ")}`);
  });

  it("ends everything on SIGTERM", { skip: POSIX ? false : "POSIX signals" }, async () => {
    const proc = conductor(["agent", proxyCommand, `${node} ${AGENT_WITH_CHILD}`], { CHILD_PID_FILE: path.join(tempDir(), "c.pid") });
    await exercise(proc);
    const tree = descendants(proc.child.pid!);
    const started = Date.now();
    proc.child.kill("SIGTERM");
    assert.equal(await proc.exited, 128 + 15);
    assert.ok(Date.now() - started < 15_000, `exited in ${Date.now() - started} ms`);
    await eventually(() => tree.every((pid) => !isAlive(pid)), 5_000, `no orphans among ${tree.join(", ")}`);
  });

  it("answers in-flight requests with an error naming a component that dies, then exits non-zero", { skip: POSIX ? false : "uses ps" }, async () => {
    const proc = conductor(["agent", proxyCommand, `${node} ${AGENT_WITH_CHILD}`], { CHILD_PID_FILE: path.join(tempDir(), "c.pid") });
    const peer = testClient(streamTo(proc.child));
    let tree: number[] = [];
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent);
      tree = descendants(proc.child.pid!);
      await assert.rejects(
        agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "crash-now" }] }),
        (error: { code?: number; message?: string }) => error.code === -32603 && (error.message ?? "").includes("component 'agent' exited with code 3"),
      );
    });
    assert.equal(await proc.exited, 1);
    assert.match(proc.stderr(), /component 'agent' exited with code 3/);
    await eventually(() => tree.every((pid) => !isAlive(pid)), 2_000, "no orphans");
  });

  it("prefixes each component's stderr lines with its name", async () => {
    const proc = conductor(["agent", agentCommand]);
    await eventually(() => proc.stderr().includes("reporting-agent ready"), 5_000, "agent stderr");
    assert.match(proc.stderr(), /^\[agent\] reporting-agent ready$/m);
    await closeAndWait(proc);
  });

  it("exits with a clear error when a component's program does not exist", async () => {
    const proc = conductor(["agent", "no-such-agent-xyz --flag"]);
    assert.equal(await proc.exited, 1);
    assert.match(proc.stderr(), /component 'agent' could not start: cannot start 'no-such-agent-xyz': no such program/);
  });
});

describe("conductor command line", () => {
  it("prints help and version, and rejects bad usage with exit 2", async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_DIR, "package.json"), "utf8")) as { version: string };
    const version = startNode(CONDUCTOR_CLI, ["--version"]);
    let out = "";
    version.child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    assert.equal(await version.exited, 0);
    assert.equal(out, `${manifest.version}\n`);
    for (const args of [["frobnicate"], ["agent"], ["agent", "--proxy-dialect", "nope", "x"], ["agent", "a | b"]]) {
      const bad = startNode(CONDUCTOR_CLI, args);
      assert.equal(await bad.exited, 2, args.join(" "));
      assert.match(bad.stderr(), /\[symposium-conductor\] /);
      assert.doesNotMatch(bad.stderr(), /\n\s+at /, "no stack trace");
    }
  });
});
