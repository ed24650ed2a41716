// `symposium-conductor run`: the config file, its errors, and the setup agent.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parseConfig, splitCommandLine } from "../../../conductor-hooks/src/index.js";
import { launcherPath } from "../../../conductor-hooks/src/launcher.js";
import { openSession, receivedPrompt, testClient } from "../../support/acp-client.js";
import { promptEach, run, textOf } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, PROXY_CLI, REPORTING_AGENT, startNode, streamTo, tempDir, type RunningProcess } from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const node = process.execPath;

function writeConfig(text: string): string {
  const file = path.join(tempDir(), "config.jsonc");
  fs.writeFileSync(file, text);
  return file;
}

/** Sends each text as a prompt in one session; returns the agent's reply to each. */
async function converse(proc: RunningProcess, texts: string[]): Promise<string[]> {
  const peer = testClient(streamTo(proc.child));
  const replies = await peer.run(async (agent) => promptEach(agent, peer, await openSession(agent), texts));
  proc.child.stdin!.end();
  await proc.exited;
  return replies;
}

describe("run with a config file", () => {
  it("chains the enabled proxies that have a command, in order, before the agent", async () => {
    const config = writeConfig(`{
      // comments and trailing commas are fine
      "agent": "${node} ${REPORTING_AGENT}",
      "proxies": [
        { "name": "sparkle", "enabled": false },
        { "name": "context-again", "enabled": true, "command": "${node} ${PROXY_CLI}" },
      ],
    }`);
    const proc = run(config, [], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE), SYMPOSIUM_LOG: "debug" });
    const peer = testClient(streamTo(proc.child));
    await peer
      .run(async (agent) => {
        const sessionId = await openSession(agent);
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      })
      .finally(() => proc.child.stdin!.end());
    assert.equal(await proc.exited, 0);
    assert.match(
      proc.stderr(),
      /chain: client → hand-over guard \(in process\) → checkpoints \(in process\) → editor-context \(in process\) → context-again → agent-errors \(in process\) → agent meta guard \(in process\) → agent/,
    );
    // The configured proxy saw the hook's block and added none (injection is idempotent).
    const prompt = receivedPrompt(peer.updates);
    assert.equal(prompt.filter((block) => block.text?.startsWith("<editor-context>")).length, 1);
    assert.match(proc.stderr(), /\[context-again\].*already starts with an editor-context block/);
  });

  it("refuses a proxy it cannot run, saying what to do", async () => {
    const proc = run(writeConfig(`{"agent": "x", "proxies": [{"name": "sparkle", "enabled": true}]}`));
    assert.equal(await proc.exited, 2);
    assert.match(
      proc.stderr(),
      /'sparkle' is built into Symposium's Rust conductor .* start without it \(`symposium-conductor extensions disable sparkle`\).* give it a "command" .* symposium\.acpAgentPath/s,
    );
  });

  it("reports a broken file with its line and column, without a stack trace", async () => {
    const proc = run(writeConfig(`{\n  "agent": "x",\n  "proxies": [ { "name": } ]\n}\n`));
    assert.equal(await proc.exited, 2);
    assert.match(proc.stderr(), /config\.jsonc:3:26: value expected/);
    assert.doesNotMatch(proc.stderr(), /\n\s+at /);
    const wrongType = run(writeConfig(`{"agent": 42}`));
    assert.equal(await wrongType.exited, 2);
    assert.match(wrongType.stderr(), /"agent" must be the command line of your agent/);
  });

  it("splits command lines like a shell, without running one", () => {
    assert.deepEqual(splitCommandLine(`npx -y -- "@scope/pkg@latest" --flag='a b' $HOME`, "agent"), [
      "npx",
      "-y",
      "--",
      "@scope/pkg@latest",
      "--flag=a b",
      "$HOME",
    ]);
    assert.throws(() => splitCommandLine("agent | tee log", "agent"), /'\|' is shell syntax/);
    assert.throws(() => splitCommandLine("   ", "agent"), /empty/);
    assert.deepEqual(parseConfig(`{"agent": "a", /* c */ "proxies": [{"name": "p", "command": "q"},]}`, "f").proxies, [
      { name: "p", enabled: true, command: "q" },
    ]);
  });
});

describe("run without a config file: the setup agent", () => {
  it("lists the agents, repeats on bad input, and writes the file for a valid number", async () => {
    const config = path.join(tempDir(), "nested", "config.jsonc");
    const [first, second, third] = await converse(run(config), ["hello", "9", "5"]);
    assert.match(first!, /Welcome to Symposium![\s\S]*1\. Claude Code\n2\. Gemini CLI\n3\. Codex\n4\. Kiro CLI\n5\. Built-in demo agent/);
    assert.match(first!, /Type a number \(1-5\) or a name/);
    assert.equal(second, first, "invalid input repeats the list");
    // The chosen agent starts at once and answers the first question (test/process/conductor/conductor-run.test.ts).
    assert.match(third!, /^Saved: Built-in demo agent is your agent .*Starting it…\n\nI am Symposium's built-in demo agent/);
    const written = parseConfig(fs.readFileSync(config, "utf8"), config);
    // Recorded as every way of choosing records it: the catalogue's entry, through the launcher beside the config
    // (test/process/platform/platform-demo-launcher.test.ts).
    assert.deepEqual(written.agentConfig?.distribution, { local: { command: launcherPath(config), args: ["demo-agent"] } });
    assert.ok(
      written.proxies.every((proxy) => !proxy.enabled),
      "Rust built-ins start disabled",
    );
    if (process.platform !== "win32") assert.equal(fs.statSync(config).mode & 0o077, 0);
  });

  it("sets up the built-in demo agent, which then shows the editor context it receives", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    await converse(run(config), ["5"]);
    const [reply] = await converse(run(config, [], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) }), ["what is this?"]);
    assert.match(reply!, /^I am Symposium's built-in demo agent/);
    assert.match(reply!, /1\. text \(added by the editor-context proxy\):\n```+\n<editor-context>\nActive file: src\/main\.rs \(rust\)/);
    assert.match(reply!, /2\. text:\n```\nwhat is this\?\n```/);
  });

  it("never overwrites a config file that appeared meanwhile", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const proc = run(config);
    const peer = testClient(streamTo(proc.child));
    let reply = "";
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent);
      fs.writeFileSync(config, `{"agent": "mine"}`);
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "1" }] });
      reply = textOf(peer.updates);
    });
    proc.child.stdin!.end();
    await proc.exited;
    assert.match(reply, /appeared at .* meanwhile; it was left as it is/);
    assert.equal(fs.readFileSync(config, "utf8"), `{"agent": "mine"}`);
  });
});

describe("demo agent", () => {
  it("streams its reply in several chunks", async () => {
    const proc = startNode(CONDUCTOR_CLI, ["demo-agent"]);
    const peer = testClient(streamTo(proc.child));
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent);
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    });
    assert.ok(peer.updates.length > 3, `${peer.updates.length} chunks`);
    proc.child.stdin!.end();
    assert.equal(await proc.exited, 0);
  });
});
