// The proxy in wrap mode, as a real process between real peers: the SDK's
// client app on one side, a real agent process on the other, and acpx.

import { strict as assert } from "node:assert";
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { CLIENT_ANSWERS, clientAnswersReported, expectCancellationReachesAgent, openSession, receivedPrompt, testClient } from "./support/acp-client.js";
import {
  LineCollector,
  PROXY_CLI,
  RAW_AGENT,
  REPO_DIR,
  REPORTING_AGENT,
  eventually,
  startNode,
  streamTo,
  tempDir,
} from "./support/processes.js";
import { SEED_STATE, ageFile, writeStateFile } from "./support/state-files.js";

const STATE_ENV = "SYMPOSIUM_EDITOR_STATE_FILE";

function wrapReportingAgent(stateFile: string | undefined) {
  return startNode(PROXY_CLI, ["--", process.execPath, REPORTING_AGENT], { [STATE_ENV]: stateFile ?? "" });
}

async function promptThrough(stateFile: string | undefined, text = "hello") {
  const proxy = wrapReportingAgent(stateFile);
  const peer = testClient(streamTo(proxy.child));
  const received = await peer.run(async (agent) => {
    const sessionId = await openSession(agent);
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }, { type: "text", text: "second block" }] });
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
      ["broken JSON", writeStateFile("{\"activeFile\": ")],
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

  it("carries every agent→client request of seed 003 and its answer", async () => {
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
    assert.deepEqual(
      peer.agentRequests.map(([method]) => method),
      [
        "fs/read_text_file",
        "fs/write_text_file",
        "session/request_permission",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
      ],
    );
    assert.deepEqual(clientAnswersReported(peer.updates), CLIENT_ANSWERS);
    assert.ok(peer.updates.some(({ update }) => update.sessionUpdate === "tool_call"), "tool_call update arrived");
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

describe("wrap mode on the wire", () => {
  function rawProxy(stateFile?: string) {
    const log = path.join(tempDir(), "agent-received.ndjson");
    const proxy = startNode(PROXY_CLI, ["--", process.execPath, RAW_AGENT], {
      [STATE_ENV]: stateFile ?? "",
      RAW_AGENT_LOG: log,
    });
    return { proxy, log, out: new LineCollector(proxy.child.stdout!) };
  }

  it("forwards every message it does not change byte for byte, both ways", async () => {
    const { proxy, log, out } = rawProxy(writeStateFile(SEED_STATE));
    const clientLines = [
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"_meta":{"z":1}}}`,
      `{ "method" : "_vendor/extension", "jsonrpc":"2.0", "id":"abc", "params":{"big":12345678901234567890123, "float":1.50, "esc":"\\u00e9"} }`,
      `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s","unknownField":[1,{"x":null}]}}`,
      `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"abc"}}`,
      `{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}},"_meta":{"hop":1}}`,
      `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"nope","data":{"why":"test"}}}`,
      `{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":"s","modeId":"plan"}}`,
      `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/project","mcpServers":[]}}`,
      `{"jsonrpc":"2.0","id":6,"method":"session/set_model","params":{"sessionId":"s","modelId":"m-1"}}`,
      `{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"s","cwd":"/p","mcpServers":[]}}`,
    ];
    proxy.child.stdin!.write(clientLines.join("\n") + "\n");
    await eventually(() => fs.existsSync(log) && fs.readFileSync(log, "utf8").split("\n").length > clientLines.length, 5_000, "agent log");
    assert.deepEqual(fs.readFileSync(log, "utf8").split("\n").slice(0, -1), clientLines);

    const agentLines = [
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"🤔"}}}}`,
      `{"jsonrpc":"2.0","id":"agent-1","method":"fs/read_text_file","params":{"sessionId":"s","path":"/x","line":1,"limit":9}}`,
      `{  "jsonrpc":"2.0", "method":"_vendor/notice" ,"params":{"n":1e400}}`,
      `not even json: the agent's problem, not the proxy's`,
    ];
    proxy.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "_test/emit", params: { lines: agentLines } }) + "\n");
    // The answers to the six requests above come first, then the emitted lines.
    const lines = await out.waitFor(6 + agentLines.length);
    assert.deepEqual(lines.slice(6, 6 + agentLines.length), agentLines, "agent→client lines arrive exactly as sent");
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("answers malformed input as JSON-RPC requires and keeps the stream going", async () => {
    const { proxy, out } = rawProxy();
    const bad = ["this is not json", "[1,2,3]", "42", "\"a string\"", "{\"unterminated\": "];
    for (const line of bad) proxy.child.stdin!.write(line + "\n");
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":7,"method":"_test/after","params":{}}\n`);
    const replies = (await out.waitFor(bad.length + 1)).map((line) => JSON.parse(line));
    assert.deepEqual(
      replies.slice(0, bad.length).map((reply) => [reply.id, reply.error.code]),
      [
        [null, -32700],
        [null, -32600],
        [null, -32600],
        [null, -32600],
        [null, -32700],
      ],
    );
    assert.deepEqual(replies.at(-1), { jsonrpc: "2.0", id: 7, result: { received: {} } });
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("discards a line over 32 MiB with an error, without buffering it, and goes on", async () => {
    const { proxy, out } = rawProxy();
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 33; i++) proxy.child.stdin!.write(chunk);
    proxy.child.stdin!.write("\n" + `{"jsonrpc":"2.0","id":8,"method":"_test/after"}` + "\n");
    const [error, after] = (await out.waitFor(2, 20_000)).map((line) => JSON.parse(line));
    assert.equal(error.id, null);
    assert.equal(error.error.code, -32600);
    assert.match(error.error.message, /discarded/);
    assert.equal(after.id, 8);
    proxy.child.stdin!.end();
    await proxy.exited;
  });
});

describe("wrap mode lifecycle", () => {
  it("exits with the agent's status", async () => {
    const proxy = startNode(PROXY_CLI, ["--", process.execPath, "-e", "process.stderr.write('agent says hi\\n'); process.exit(3)"]);
    assert.equal(await proxy.exited, 3);
    assert.match(proxy.stderr(), /agent says hi/, "agent stderr reaches the proxy's stderr");
  });

  it("ends the agent when the client closes stdin", async () => {
    const pidFile = path.join(tempDir(), "pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const proxy = startNode(PROXY_CLI, ["--", process.execPath, "-e", script]);
    await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").length > 0, 5_000, "agent start");
    const agentPid = Number(fs.readFileSync(pidFile, "utf8"));
    proxy.child.stdin!.end();
    const status = await proxy.exited;
    assert.equal(status, 128 + 15, "the agent ignored EOF and was ended with SIGTERM");
    assert.throws(() => process.kill(agentPid, 0), "agent process is gone");
  });

  it("says clearly when the agent's program does not exist", async () => {
    const proxy = startNode(PROXY_CLI, ["--", "no-such-agent-binary-xyz"]);
    assert.equal(await proxy.exited, 127);
    assert.match(proxy.stderr(), /cannot start 'no-such-agent-binary-xyz': no such program/);
  });

  it("answers a plain initialize without a successor with how to run it", async () => {
    const proxy = startNode(PROXY_CLI, []);
    const out = new LineCollector(proxy.child.stdout!);
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n`);
    const [reply] = (await out.waitFor(1)).map((line) => JSON.parse(line));
    assert.equal(reply.error.code, -32601);
    await eventually(() => /Run it under a conductor/.test(proxy.stderr()), 2_000, "help on stderr");
    proxy.child.stdin!.end();
    assert.equal(await proxy.exited, 0);
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
    const messages = stdout.trim().split("\n").map((line) => JSON.parse(line) as { method?: string; params?: { update?: { content?: { text?: string } } } });
    const report = messages.find((message) => message.method === "session/update")?.params?.update?.content?.text;
    assert.ok(report, `no session/update in acpx output:\n${stdout}`);
    const received = (JSON.parse(report) as { received: Array<{ text: string }> }).received;
    assert.match(received[0]!.text, /^<editor-context>\nActive file: src\/main\.rs \(rust\)/);
    assert.equal(received[1]!.text, "explain this");
  });
});
