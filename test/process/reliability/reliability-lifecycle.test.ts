// Reliability of the chain's life cycle (docs/conductor.md, docs/proxy.md:
// "Guarantees"): a stop is a stop, nothing is left behind, and a dying or
// mute agent never leaves a request unanswered. Each case runs through both
// shapes of the chain: wrap mode and the conductor.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually, isAlive } from "../../support/processes.js";
import { POSIX, SHAPES, chainWithChild, chainWithFaultAgent, exitWithin, rawClient, reap } from "../../support/reliability.js";

const skip = POSIX ? false : "POSIX signals and process groups";

for (const shape of SHAPES) {
  describe(`${shape}: stopping`, () => {
    it("exits within 2.5 s of SIGTERM while its client reads nothing and the agent floods", { skip }, async () => {
      const client = rawClient(chainWithFaultAgent(shape));
      client.proc.child.stdout!.pause(); // the client stops reading
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/flood", params: { bytes: 64 * 1024 * 1024 } });
      await sleep(1_000);
      const started = Date.now();
      client.proc.child.kill("SIGTERM");
      const status = await exitWithin(client.proc, 2_500);
      reap(client.proc.child.pid);
      assert.equal(status, 128 + 15, `after SIGTERM: ${status} (${Date.now() - started} ms)`);
    });

    it("kills a child the agent left behind that ignores SIGTERM, when the agent exits", { skip }, async () => {
      const { client, child } = await chainWithChild(shape, { FAULT_CHILD: "same" });
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/exit" });
      const status = await exitWithin(client.proc, 3_000);
      const survived = isAlive(child);
      reap(child, client.proc.child.pid);
      assert.notEqual(status, "still running");
      assert.equal(survived, false, "the agent's child was killed");
    });

    it("kills a child in its own process group that ignores SIGTERM, when the client leaves", { skip }, async () => {
      const { client, child } = await chainWithChild(shape, { FAULT_CHILD: "detached" });
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/echo" });
      await client.out.waitFor(1);
      client.proc.child.stdin!.end();
      const status = await exitWithin(client.proc, 3_000);
      assert.notEqual(status, "still running");
      await eventually(() => !isAlive(child), 5_000, "the detached child to be killed").finally(() => reap(child, client.proc.child.pid));
    });

    it("exits, killing the child, when the agent exits but its child holds the agent's stdout open", { skip }, async () => {
      const { client, child } = await chainWithChild(shape, { FAULT_CHILD: "same", FAULT_CHILD_KEEPS_STDOUT: "1" });
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/exit" });
      const status = await exitWithin(client.proc, 3_000);
      const survived = isAlive(child);
      reap(child, client.proc.child.pid);
      assert.notEqual(status, "still running", "the chain exited");
      assert.equal(survived, false, "the child holding stdout was killed");
    });

    it("stops within 2.5 s on SIGTERM when the agent and its child ignore SIGTERM and hold stdout", { skip }, async () => {
      const { client, child } = await chainWithChild(shape, { FAULT_CHILD: "same", FAULT_CHILD_KEEPS_STDOUT: "1", FAULT_IGNORE_SIGTERM: "1" });
      client.proc.child.kill("SIGTERM");
      const status = await exitWithin(client.proc, 2_500);
      assert.equal(status, 128 + 15);
      await eventually(() => !isAlive(child), 5_000, "the child to be killed").finally(() => reap(child, client.proc.child.pid));
    });
  });

  describe(`${shape}: an agent that fails mid-request`, () => {
    it("answers in-flight requests when the agent closes its stdout but keeps running, then stops it", { skip }, async () => {
      const client = rawClient(chainWithFaultAgent(shape, { FAULT_IGNORE_SIGTERM: "1" }));
      for (let id = 1; id <= 5; id++) client.send({ jsonrpc: "2.0", id, method: "_test/hang" });
      client.send({ jsonrpc: "2.0", id: 99, method: "_test/close-stdout" });
      await eventually(() => [1, 2, 3, 4, 5, 99].every((id) => client.answers(id).length === 1), 10_000, "answers to the in-flight requests");
      for (const id of [1, 2, 3, 4, 5, 99]) {
        const [answer] = client.answers(id);
        assert.equal((answer!.error as { code: number }).code, -32603);
        assert.match((answer!.error as { message: string }).message, /agent/);
      }
      const status = await exitWithin(client.proc, 2_500);
      reap(client.proc.child.pid);
      assert.notEqual(status, "still running", "the chain stopped");
    });

    it("answers 50 in-flight requests with an error naming the agent's death, and never passes on its half-written line", { skip }, async () => {
      const client = rawClient(chainWithFaultAgent(shape));
      for (let id = 1; id <= 50; id++) client.send({ jsonrpc: "2.0", id, method: "_test/hang" });
      client.send({ jsonrpc: "2.0", id: 51, method: "_test/echo" });
      await client.out.waitFor(1);
      const started = Date.now();
      client.send({ jsonrpc: "2.0", id: 52, method: "_test/die-mid-line" });
      const status = await exitWithin(client.proc, 3_000);
      reap(client.proc.child.pid);
      assert.notEqual(status, "still running");
      const lines = client.out.lines;
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a broken line reached the client: ${line}`);
      for (let id = 1; id <= 50; id++) {
        const answers = client.answers(id);
        assert.equal(answers.length, 1, `request ${id} answered once`);
        const error = answers[0]!.error as { code: number; message: string };
        assert.equal(error.code, -32603);
        assert.match(error.message, /agent.*killed by SIGKILL/);
      }
      assert.equal(client.answers(52).length, 1, "the request that killed it is answered too");
      assert.ok(Date.now() - started < 3_000);
    });
  });
}
