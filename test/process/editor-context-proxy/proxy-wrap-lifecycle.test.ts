// The proxy in wrap mode as a process: exit status, ending the agent, a
// missing program, and help when run without a conductor.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { LineCollector, PROXY_CLI, eventually, parseReply, startNode, tempDir } from "../../support/processes.js";

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
    const [reply] = (await out.waitFor(1)).map(parseReply);
    assert.equal(reply?.error?.code, -32601);
    await eventually(() => proxy.stderr().includes("Run it under a conductor"), 2_000, "help on stderr");
    proxy.child.stdin!.end();
    assert.equal(await proxy.exited, 0);
  });
});
