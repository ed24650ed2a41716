// Reliability of what crosses the chain (docs/proxy.md, docs/conductor.md:
// "Guarantees"): injection is idempotent, ids round-trip byte-exact, the
// JSON-RPC rules hold the same way in wrap mode and in the conductor, and a
// state file that changes while it is read is skipped.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { RAW_AGENT, eventually, startNode, tempDir } from "../../support/processes.js";
import {
  CONDUCTOR,
  PROXY,
  SHAPES,
  STATE_ENV,
  chainWithFaultAgent,
  closeClient as close,
  promptThrough as prompt,
  rawClient,
} from "../../support/reliability.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

describe("injection is idempotent", () => {
  it("a conductor with the hook and two editor-context proxy processes injects one block", async () => {
    const client = rawClient(chainWithFaultAgent("conductor", { [STATE_ENV]: writeStateFile(SEED_STATE) }, 2));
    const { blocks } = await prompt(client, 1);
    assert.equal(blocks.filter((block) => block.text.startsWith("<editor-context>")).length, 1);
    assert.equal(blocks.at(-1)!.text, "hi");
    assert.equal(await close(client), 0);
  });

  it("wrap mode leaves a prompt that already starts with a block alone", async () => {
    const client = rawClient(chainWithFaultAgent("wrap", { [STATE_ENV]: writeStateFile(SEED_STATE) }));
    const existing = "<editor-context>\nActive file: elsewhere.ts\n</editor-context>";
    client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "session/prompt",
      params: {
        sessionId: "s",
        prompt: [
          { type: "text", text: existing },
          { type: "text", text: "hi" },
        ],
      },
    });
    await eventually(() => client.answers(1).length > 0, 5_000, "answer");
    const received = (client.answers(1)[0]!.result as { received: { prompt: Array<{ text: string }> } }).received.prompt;
    assert.deepEqual(
      received.map((block) => block.text),
      [existing, "hi"],
    );
    assert.equal(await close(client), 0);
  });
});

describe("a non-atomic writer", () => {
  // The reader re-checks the file (fstat, then a second read) and skips it on a
  // change: a read that overlaps a rewrite (truncate, then write in pieces) is
  // never used. (A writer that rewrites in place without truncating and pauses
  // midway leaves a stable, mixed file that no reader can tell from a real one:
  // only an atomic writer prevents that; docs/state-file.md requires one.)
  it("never yields a block that mixes two versions of the file", async () => {
    const dir = tempDir();
    const file = path.join(dir, "state.json");
    const version = (name: string, letter: string) =>
      JSON.stringify({ ...SEED_STATE, activeFile: `/project/${name}.rs`, selection: { text: letter.repeat(60_000), startLine: 1, endLine: 1 } });
    const [alpha, bravo] = [version("alpha", "A"), version("bravo", "B")];
    fs.writeFileSync(file, alpha);
    // Rewrites the file without end, alternating the two versions: truncate, then 4 KiB at a time, then 3 ms of rest.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `
      const fs = require("fs");
      const versions = [${JSON.stringify(alpha)}, ${JSON.stringify(bravo)}].map((text) => Buffer.from(text));
      for (let n = 0; ; n++) {
        const bytes = versions[n % 2];
        const fd = fs.openSync(${JSON.stringify(file)}, "w");
        for (let at = 0; at < bytes.length; at += 4096) fs.writeSync(fd, bytes, at, Math.min(4096, bytes.length - at), at);
        fs.closeSync(fd);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3); // a moment of rest, so some reads see a whole version
      }`,
      ],
      { stdio: "ignore" },
    );
    try {
      const client = rawClient(startNode(PROXY, ["--", process.execPath, RAW_AGENT], { [STATE_ENV]: file }));
      let mixed = 0;
      let withBlock = 0;
      for (let id = 1; id <= 150; id++) {
        client.send({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] } });
        await eventually(() => client.answers(id).length > 0, 5_000, `answer ${id}`);
        const text = (client.answers(id)[0]!.result as { received: { prompt: Array<{ text: string }> } }).received.prompt[0]!.text;
        if (!text.startsWith("<editor-context>")) continue;
        withBlock++;
        const consistent = (text.includes("alpha.rs") && !text.includes("B")) || (text.includes("bravo.rs") && !/A{2}/.test(text));
        if (!consistent) mixed++;
      }
      assert.equal(await close(client), 0);
      assert.ok(withBlock > 10, `only ${withBlock} of 150 prompts carried a block: the test saw too few reads`);
      assert.equal(mixed, 0, `${mixed} of ${withBlock} blocks mixed the two versions`);
    } finally {
      writer.kill("SIGKILL");
    }
  });
});

for (const shape of SHAPES) {
  describe(`${shape}: JSON-RPC rules`, () => {
    it("returns an integer id above 2^53 byte-exact, on prompts and on other requests", async () => {
      const client = rawClient(chainWithFaultAgent(shape, { [STATE_ENV]: writeStateFile(SEED_STATE) }));
      client.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`);
      client.send(`{"jsonrpc":"2.0","id":9007199254740995,"method":"_test/echo","params":{}}`);
      client.send(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"_test/echo","params":{}}`);
      await client.out.waitFor(3);
      for (const id of ["9007199254740993", "9007199254740995", "12345678901234567890"]) {
        assert.ok(
          client.out.lines.some((line) => line.includes(`"id":${id},`)),
          `id ${id} came back exact: ${client.out.lines.map((line) => line.slice(0, 60)).join(",")}`,
        );
      }
      assert.equal(await close(client), 0);
    });

    it("returns an agent's integer id above 2^53 byte-exact to the agent", async () => {
      const log = path.join(tempDir(), "agent.ndjson");
      const agent = `${process.execPath} ${RAW_AGENT}`;
      const proc =
        shape === "wrap"
          ? startNode(PROXY, ["--", process.execPath, RAW_AGENT], { [STATE_ENV]: "", RAW_AGENT_LOG: log })
          : startNode(CONDUCTOR, ["agent", agent], { [STATE_ENV]: "", RAW_AGENT_LOG: log });
      const client = rawClient(proc);
      const request = `{"jsonrpc":"2.0","id":9007199254740993,"method":"fs/read_text_file","params":{"path":"/x"}}`;
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/emit", params: { lines: [request] } });
      await client.out.waitFor(2);
      const idText = /"id":([^,]+),/.exec(client.out.lines.find((line) => line.includes("fs/read_text_file"))!)![1];
      client.send(`{"jsonrpc":"2.0","id":${idText},"result":{"content":"x"}}`);
      await eventually(() => fs.readFileSync(log, "utf8").includes('"result":{"content":"x"}'), 5_000, "the answer at the agent");
      const answer = fs
        .readFileSync(log, "utf8")
        .split("\n")
        .find((line) => line.includes('"content":"x"'))!;
      assert.match(answer, /"id":9007199254740993[,}]/, answer);
      assert.equal(await close(client), 0);
    });

    it("lets $/cancel_request reach the agent for a request with a string id, whichever way the request was laid out", async () => {
      const log = path.join(tempDir(), "agent.ndjson");
      const proc =
        shape === "wrap"
          ? startNode(PROXY, ["--", process.execPath, RAW_AGENT], { [STATE_ENV]: "", RAW_AGENT_LOG: log })
          : startNode(CONDUCTOR, ["agent", `${process.execPath} ${RAW_AGENT}`], { [STATE_ENV]: "", RAW_AGENT_LOG: log });
      const client = rawClient(proc);
      const agentLines = (method: string) =>
        (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []).filter((line) => line.includes(method));
      try {
        // The first is laid out as JSON.stringify writes it (routed from its bytes), the second is not (parsed).
        client.send(`{"jsonrpc":"2.0","id":"req-1","method":"_test/hang","params":{}}`);
        client.send(`{"method":"_test/hang","id":"req-2","params":{},"jsonrpc":"2.0"}`);
        await eventually(() => agentLines("_test/hang").length === 2, 5_000, "both requests at the agent");
        const agentIds = agentLines("_test/hang").map((line) => (JSON.parse(line) as { id: unknown }).id);
        for (const id of ["req-1", "req-2"]) client.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } });
        await eventually(() => agentLines("$/cancel_request").length === 2, 5_000, "both cancellations at the agent");
        const cancelled = agentLines("$/cancel_request").map((line) => (JSON.parse(line) as { params: { requestId: unknown } }).params.requestId);
        assert.deepEqual(cancelled, agentIds, "each cancellation names the request as the agent knows it");
      } finally {
        assert.equal(await close(client), 0);
      }
    });

    it('answers a message without "jsonrpc": "2.0" with -32600 and does not forward it', async () => {
      const client = rawClient(chainWithFaultAgent(shape));
      client.send({ id: 5, method: "_test/echo", params: {} });
      client.send({ jsonrpc: "1.0", id: 6, method: "_test/echo", params: {} });
      client.send({ jsonrpc: "2.0", id: 7, method: "_test/echo", params: {} });
      await eventually(() => client.answers(7).length > 0, 5_000, "answer 7");
      await eventually(() => client.answers(5).length > 0 && client.answers(6).length > 0, 2_000, "answers 5 and 6");
      for (const id of [5, 6]) {
        const [answer] = client.answers(id);
        assert.equal((answer!.error as { code: number } | undefined)?.code, -32600, JSON.stringify(answer));
      }
      assert.ok(client.answers(7)[0]!.result);
      assert.equal(await close(client), 0);
    });

    it("drops a line over 32 MiB from the agent, tells the agent, and goes on", async () => {
      const client = rawClient(chainWithFaultAgent(shape));
      client.send({ jsonrpc: "2.0", id: 1, method: "_test/emit-big", params: { bytes: 33 * 1024 * 1024 } });
      client.send({ jsonrpc: "2.0", id: 2, method: "_test/echo", params: {} });
      await eventually(() => client.answers(1).length > 0 && client.answers(2).length > 0, 15_000, "answers");
      assert.ok(
        client.out.lines.every((line) => line.length < 32 * 1024 * 1024),
        "no line over the limit reached the client",
      );
      assert.equal(await close(client), 0);
    });
  });
}
