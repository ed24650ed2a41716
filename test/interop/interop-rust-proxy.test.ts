// Our conductor running a Rust proxy from the crates registry
// (symposium-acp-proxy, Symposium's own, built on sacp 10) as one of its
// components, in front of the recording agent, with the editor-context hook
// on: the whole protocol table passes, and exactly one block reaches the agent.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { CLIENT_ANSWERS, clientAnswersReported, openSession, receivedPrompt, testClient } from "../support/acp-client.js";
import { CONDUCTOR_CLI, startNode, streamTo, tempDir } from "../support/processes.js";
import { SEED_STATE, writeStateFile } from "../support/state-files.js";
import { ALL_UPDATES } from "./protocol-table.js";
import { INTEROP_AGENT, WIRE_TAP } from "./fixtures.js";
import { SYMPOSIUM_PROXY, failIfMissing, rustPeerMissing, rustPeerPath, skipOutsideCi } from "./rust-peers.js";

const missing = rustPeerMissing(SYMPOSIUM_PROXY);
/** No arguments: 1.1.1 cannot turn its extensions off (`--sparkle` is a flag that only sets "yes"; `--sparkle=no` is refused). */
const PROXY_ARGS: string[] = [];

// Not `--proxy-dialect proxy`: symposium-acp-proxy 1.1.1 (sacp 10) never answers proxy/initialize (docs/interop.md).
for (const dialect of [null, "_proxy"] as const) {
  const how = dialect === null ? "by default" : `with --proxy-dialect ${dialect}`;
  describe(`our conductor running ${SYMPOSIUM_PROXY.crate} ${SYMPOSIUM_PROXY.version} ${how}`, { skip: skipOutsideCi(missing) }, () => {
    it("carries the protocol table both ways, with exactly one editor-context block from the second prompt on", async (t) => {
      failIfMissing(missing);
      const tap = path.join(tempDir("symposium-tap-"), "tap.jsonl");
      const conductor = startNode(
        CONDUCTOR_CLI,
        [
          "agent",
          ...(dialect === null ? [] : ["--proxy-dialect", dialect]),
          quote([process.execPath, WIRE_TAP, tap, "--", rustPeerPath(SYMPOSIUM_PROXY), ...PROXY_ARGS]),
          quote([process.execPath, INTEROP_AGENT]),
        ],
        { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
      );
      t.after(() => conductor.child.kill());
      const client = testClient(streamTo(conductor.child));
      await client.run(async (agent) => {
        const sessionId = await openSession(agent);
        await agent.request("session/set_mode", { sessionId, modeId: "code" });
        // Its Sparkle extension (always on in 1.1.1) replaces a session's first prompt with its "embodiment" text.
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first" }] });
        assert.match(receivedPrompt(client.updates)[0]!.text!, /^# Embodiment/);
        client.updates.length = 0;
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "exercise-client all-updates" }] });
      });
      const prompt = receivedPrompt(client.updates);
      assert.equal(prompt.filter((block) => block.text?.startsWith("<editor-context>")).length, 1, "exactly one editor-context block");
      assert.match(prompt[0]!.text!, /^<editor-context>\nActive file: src\/main\.rs/);
      assert.deepEqual(clientAnswersReported(client.updates), CLIENT_ANSWERS);
      const kinds = client.updates.map(({ update }) => update.sessionUpdate);
      for (const update of ALL_UPDATES)
        assert.ok(kinds.includes(update.sessionUpdate as never), `session/update ${String(update.sessionUpdate)} reached the client`);
      const spoken = new Set(
        fs
          .readFileSync(tap, "utf8")
          .trim()
          .split("\n")
          .map((line) => String((JSON.parse((JSON.parse(line) as { line: string }).line) as { method?: string }).method ?? ""))
          .filter((method) => method.includes("proxy/")),
      );
      process.stderr.write(`# ${SYMPOSIUM_PROXY.crate} ${how}: ${[...spoken].sort().join(", ")}\n`);
      conductor.child.stdin!.end();
      await conductor.exited;
    });
  });
}
