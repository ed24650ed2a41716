// The editor-context proxy (dist/symposium-editor-context.mjs, no arguments:
// proxy mode) as a component under the real Rust conductors from the crates
// registry (scripts/install-rust-peers.sh), in front of a recording agent, with
// the SDK's client app on the other side: real processes both ways. A wire tap
// between the conductor and our proxy records the envelope names each conductor
// really speaks (docs/interop.md).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import {
  type AgentCalls,
  assertClientRequestsCrossed,
  expectCancellationReachesAgent,
  openSession,
  receivedPrompt,
  testClient,
} from "../support/acp-client.js";
import { PROXY_CLI, descendants, eventually, isAlive, startProcess, streamTo, tempDir, type RunningProcess } from "../support/processes.js";
import { SEED_STATE, writeStateFile } from "../support/state-files.js";
import { ALL_UPDATES } from "./protocol-table.js";
import { INTEROP_AGENT, WIRE_TAP } from "./fixtures.js";
import { ACP_CONDUCTOR, SACP10_CONDUCTOR, SACP_CONDUCTOR, failIfMissing, rustPeerMissing, rustPeerPath, skipOutsideCi, type RustPeer } from "./rust-peers.js";

/** One command-line argument for a Rust conductor: it splits each component into words like a shell. */
export function component(...words: string[]): string {
  return quote(words);
}

interface TappedChain {
  conductor: RunningProcess;
  /** Lines between the conductor and our proxy: to "component" (our proxy) or to "conductor". */
  tapped(): Array<{ to: "component" | "conductor"; message: Record<string, unknown> }>;
}

function startChain(peer: RustPeer, stateFile: string): TappedChain {
  const tap = path.join(tempDir("symposium-tap-"), "tap.jsonl");
  const conductor = startProcess(
    rustPeerPath(peer),
    ["agent", component(process.execPath, WIRE_TAP, tap, "--", process.execPath, PROXY_CLI), component(process.execPath, INTEROP_AGENT)],
    { SYMPOSIUM_EDITOR_STATE_FILE: stateFile },
  );
  const tapped = () =>
    fs.existsSync(tap)
      ? fs
          .readFileSync(tap, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => {
            const entry = JSON.parse(line) as { to: "component" | "conductor"; line: string };
            return { to: entry.to, message: JSON.parse(entry.line) as Record<string, unknown> };
          })
      : [];
  return { conductor, tapped };
}

/** Closes the client's side; a conductor that stays running after that (sacp-conductor 11) gets SIGTERM. */
async function stopChain(chain: TappedChain): Promise<void> {
  chain.conductor.child.stdin!.end();
  const timer = setTimeout(() => chain.conductor.child.kill("SIGTERM"), 2_000);
  await chain.conductor.exited;
  clearTimeout(timer);
}

/** The envelope names one side used: "<prefix>/initialize" and "<prefix>/successor" as seen. */
function methodsSent(chain: TappedChain, to: "component" | "conductor"): Set<string> {
  return new Set(
    chain
      .tapped()
      .filter((entry) => entry.to === to)
      .map((entry) => (typeof entry.message.method === "string" ? entry.message.method : ""))
      .filter((method) => method.includes("proxy")),
  );
}

/**
 * What each conductor was found to do (docs/interop.md): sacp-conductor 11 forwards the client's
 * $/cancel_request with the client's request id, not the one it gave the request on the next hop,
 * so no component can tell which request it means; and it keeps running after its client's EOF.
 */
const PEERS = [
  { ...ACP_CONDUCTOR, exitsOnClientEof: true, remapsCancelRequest: true },
  { ...SACP_CONDUCTOR, exitsOnClientEof: false, remapsCancelRequest: false },
  { ...SACP10_CONDUCTOR, exitsOnClientEof: false, remapsCancelRequest: false },
];

/** A $/cancel_request the conductor hands our proxy unmapped: our proxy passes it on unchanged (it is hop-local). */
async function cancelPassesThrough(agent: AgentCalls, chain: TappedChain): Promise<void> {
  const abort = new AbortController();
  const slow = agent.request("_test/slow", {}, { cancellationSignal: abort.signal }).catch(() => undefined);
  setTimeout(() => abort.abort(), 100);
  const cancels = () => chain.tapped().filter((entry) => entry.message.method === "$/cancel_request");
  await eventually(() => cancels().length === 2, 5_000, "our proxy to pass the $/cancel_request on");
  const [received, sent] = cancels();
  assert.deepEqual([received!.to, sent!.to], ["component", "conductor"]);
  assert.deepEqual(sent!.message, received!.message);
  void slow;
}

for (const peer of PEERS) {
  const missing = rustPeerMissing(peer);
  describe(`our proxy under ${peer.crate} ${peer.version}`, { skip: skipOutsideCi(missing) }, () => {
    it("adds exactly one editor-context block, first, and carries every message of the protocol table both ways", async (t) => {
      failIfMissing(missing);
      const chain = startChain(peer, writeStateFile(SEED_STATE));
      t.after(() => chain.conductor.child.kill());
      const peerClient = testClient(streamTo(chain.conductor.child));
      const received = await peerClient.run(async (agent) => {
        const sessionId = await openSession(agent);
        await agent.request("session/set_mode", { sessionId, modeId: "code" });
        await agent.request("session/set_model", { sessionId, modelId: "large" });
        const answer = await agent.request<{ stopReason: string }>("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "exercise-client all-updates" }],
        });
        assert.equal(answer.stopReason, "end_turn");
        return agent.request<{ received: string[] }>("_test/received", {});
      });
      const prompt = receivedPrompt(peerClient.updates);
      const blocks = prompt.filter((block) => block.text?.startsWith("<editor-context>"));
      assert.equal(blocks.length, 1, "exactly one editor-context block");
      assert.match(prompt[0]!.text!, /^<editor-context>\nActive file: src\/main\.rs/);
      assert.match(prompt[0]!.text!, /fn main\(\) \{ \.\.\. \}/, "with the selection");
      assert.equal(prompt[1]!.text, "exercise-client all-updates");
      assertClientRequestsCrossed(peerClient);
      const kinds = peerClient.updates.map(({ update }) => update.sessionUpdate);
      for (const update of ALL_UPDATES)
        assert.ok(kinds.includes(update.sessionUpdate as never), `session/update ${String(update.sessionUpdate)} reached the client`);
      assert.deepEqual(received.received, ["session/set_mode code", "session/set_model large"]);

      // The dialect: whatever the conductor initialised our proxy with, our proxy answered in it.
      const toProxy = methodsSent(chain, "component");
      const fromProxy = methodsSent(chain, "conductor");
      const prefix = [...toProxy].find((method) => method.endsWith("/initialize"))!.replace(/\/initialize$/, "");
      assert.ok(toProxy.has(`${prefix}/successor`), `${peer.crate} delivers the agent's messages in ${prefix}/successor: ${[...toProxy].join(", ")}`);
      assert.deepEqual([...fromProxy], [`${prefix}/successor`], "our proxy wraps in the conductor's dialect only");
      process.stderr.write(`# ${peer.crate} ${peer.version} speaks ${[...toProxy].sort().join(", ")}\n`);
      await stopChain(chain);
    });

    it(`passes cancellation: session/cancel ends a prompt; $/cancel_request ${peer.remapsCancelRequest ? "cancels a request" : "passes our proxy as it came"}`, async (t) => {
      failIfMissing(missing);
      const chain = startChain(peer, writeStateFile(SEED_STATE));
      t.after(() => chain.conductor.child.kill());
      const peerClient = testClient(streamTo(chain.conductor.child));
      await peerClient.run(async (agent) => {
        const sessionId = await openSession(agent);
        const prompt = agent.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait-for-cancel" }] });
        await eventually(() => peerClient.updates.length > 0, 5_000, "the prompt to reach the agent");
        await agent.notify("session/cancel", { sessionId });
        assert.equal((await prompt).stopReason, "cancelled");
        if (peer.remapsCancelRequest) await expectCancellationReachesAgent(agent);
        else await cancelPassesThrough(agent, chain);
      });
      await stopChain(chain);
    });

    it(
      peer.exitsOnClientEof
        ? "leaves no process behind once the client closes stdin"
        : "keeps running after the client closes stdin (as released), and leaves no process behind after SIGTERM",
      { skip: process.platform === "win32" ? "process-table check is POSIX-only" : false },
      async (t) => {
        failIfMissing(missing);
        const chain = startChain(peer, writeStateFile(SEED_STATE));
        const peerClient = testClient(streamTo(chain.conductor.child));
        await peerClient.run((agent) => openSession(agent));
        const pids = descendants(chain.conductor.child.pid!);
        t.after(() => pids.forEach((pid) => isAlive(pid) && process.kill(pid)));
        assert.ok(pids.length >= 3, `the conductor runs the tap, our proxy and the agent: ${pids.join(", ")}`);
        chain.conductor.child.stdin!.end();
        if (!peer.exitsOnClientEof) {
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          assert.ok(isAlive(chain.conductor.child.pid!), `${peer.crate} ${peer.version} exits on its client's EOF now: update docs/interop.md and this test`);
          chain.conductor.child.kill("SIGTERM");
        }
        await chain.conductor.exited;
        await eventually(() => pids.every((pid) => !isAlive(pid)), 5_000, `the chain's processes (${pids.join(", ")}) to end`);
      },
    );
  });
}
