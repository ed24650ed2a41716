// The proxy in wrap mode between real peers: the SDK's client app and a real
// agent process, and acpx as a real client.

import { strict as assert } from "node:assert";
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { assertClientRequestsCrossed, expectCancellationReachesAgent, openSession, receivedPrompt, testClient } from "../../support/acp-client.js";
import { PROXY_CLI, REPO_DIR, REPORTING_AGENT, startNode, streamTo, tempDir } from "../../support/processes.js";
import { SEED_STATE, ageFile, writeStateFile } from "../../support/state-files.js";
import { STATE_FILE_ENV as STATE_ENV } from "../../../editor-state/src/index.js";

function wrapReportingAgent(stateFile: string | undefined) {
  return startNode(PROXY_CLI, ["--", process.execPath, REPORTING_AGENT], { [STATE_ENV]: stateFile ?? "" });
}

async function promptThrough(stateFile: string | undefined, text = "hello") {
  const proxy = wrapReportingAgent(stateFile);
  const peer = testClient(streamTo(proxy.child));
  const received = await peer.run(async (agent) => {
    const sessionId = await openSession(agent);
    await agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text },
        { type: "text", text: "second block" },
      ],
    });
    return receivedPrompt(peer.updates);
  });
  proxy.child.stdin!.end();
  assert.equal(await proxy.exited, 0, proxy.stderr());
  return received;
}

describe("wrap mode with the SDK's client and a real agent", () => {
  it("prepends one fresh context block to each prompt", async () => {
    const received = await promptThrough(writeStateFile(SEED_STATE));
    assert.equal(received.length, 3);
    assert.match(received[0]!.text!, /^<editor-context>\nActive file: src\/main\.rs \(rust\)\n/);
    assert.deepEqual(received.slice(1), [
      { type: "text", text: "hello" },
      { type: "text", text: "second block" },
    ]);
  });

  it("forwards the prompt unchanged when there is no usable state", async () => {
    const stale = writeStateFile(SEED_STATE);
    ageFile(stale, 60);
    const dir = tempDir();
    const cases: Array<[string, string | undefined]> = [
      ["variable unset", undefined],
      ["missing file", path.join(dir, "none.json")],
      ["stale file", stale],
      ["directory", dir],
      ["broken JSON", writeStateFile('{"activeFile": ')],
    ];
    if (process.platform !== "win32") {
      const fifo = path.join(dir, "fifo.json");
      execFileSync("mkfifo", [fifo]);
      const zero = path.join(dir, "zero.json");
      fs.symlinkSync("/dev/zero", zero);
      const huge = writeStateFile("");
      fs.truncateSync(huge, 512 * 1024 * 1024);
      cases.push(["FIFO", fifo], ["symlink to /dev/zero", zero], ["512 MB file", huge]);
    }
    for (const [name, file] of cases) {
      const received = await promptThrough(file);
      assert.deepEqual(
        received.map((block) => block.text),
        ["hello", "second block"],
        `${name}: prompt should pass unchanged`,
      );
    }
  });

  it("reads the state file again for every prompt", async () => {
    const file = writeStateFile(SEED_STATE);
    const proxy = wrapReportingAgent(file);
    const peer = testClient(streamTo(proxy.child));
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent);
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
      fs.writeFileSync(file, JSON.stringify({ ...SEED_STATE, activeFile: "/project/src/lib.rs" }));
      peer.updates.length = 0;
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
    });
    assert.match(receivedPrompt(peer.updates)[0]!.text!, /Active file: src\/lib\.rs/);
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("carries every agent→client request ACP defines (fs, terminal, permission) and its answer", async () => {
    const proxy = wrapReportingAgent(writeStateFile(SEED_STATE));
    const peer = testClient(streamTo(proxy.child));
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent);
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "exercise-client" }] });
      await agent.notify("session/cancel", { sessionId });
      const echoed = await agent.request("_test/echo", { any: ["shape", 1], _meta: { trace: "x" } });
      assert.deepEqual(echoed, { echo: { any: ["shape", 1], _meta: { trace: "x" } } });
      const cancelled = await agent.request<{ cancelled: string[] }>("_test/cancelled", {});
      assert.deepEqual(cancelled.cancelled, [sessionId], "session/cancel reached the agent");
    });
    assertClientRequestsCrossed(peer);
    assert.ok(
      peer.updates.some(({ update }) => update.sessionUpdate === "tool_call"),
      "tool_call update arrived",
    );
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("passes $/cancel_request through, so the agent can abandon the request", async () => {
    const proxy = wrapReportingAgent(undefined);
    const peer = testClient(streamTo(proxy.child));
    await peer.run(async (agent) => {
      await openSession(agent);
      await expectCancellationReachesAgent(agent);
    });
    proxy.child.stdin!.end();
    await proxy.exited;
  });
});

describe("acpx, a real ACP client, through the proxy", () => {
  it("delivers the context to the agent in front of acpx's prompt", async () => {
    const acpx = path.join(REPO_DIR, "node_modules", ".bin", "acpx");
    const agentCommand = `${process.execPath} ${PROXY_CLI} -- ${process.execPath} ${REPORTING_AGENT}`;
    const { stdout } = await promisify(execFile)(acpx, ["--agent", agentCommand, "--approve-all", "--format", "json", "exec", "explain this"], {
      cwd: tempDir(),
      env: { ...process.env, [STATE_ENV]: writeStateFile(SEED_STATE) },
      timeout: 60_000,
    });
    const messages = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { method?: string; params?: { update?: { content?: { text?: string } } } });
    const report = messages.find((message) => message.method === "session/update")?.params?.update?.content?.text;
    assert.ok(report, `no session/update in acpx output:\n${stdout}`);
    const received = (JSON.parse(report) as { received: Array<{ text: string }> }).received;
    assert.match(received[0]!.text, /^<editor-context>\nActive file: src\/main\.rs \(rust\)/);
    assert.equal(received[1]!.text, "explain this");
  });
});
