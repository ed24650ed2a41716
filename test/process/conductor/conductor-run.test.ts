// `symposium-conductor run` as a new user meets it: no config file, the setup
// menu, the chosen agent answering the first question in the same session,
// the non-interactive choice, the demo agent's hint, and the line `run`
// prints on a terminal. Through the SDK's client app and through acpx, both
// real ACP clients, against the bundled CLI. Failing agents:
// test/process/conductor/conductor-run-failures.test.ts.

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { agentChoices, findAgentChoice, parseConfig } from "../../../conductor-hooks/src/index.js";
import { launcherPath } from "../../../conductor-hooks/src/launcher.js";
import { CLIENT_ANSWERS, clientAnswersReported, expectCancellationReachesAgent, openSession, receivedPrompt, testClient } from "../../support/acp-client.js";
import { acpx, acpxReply, converse, escapeRegExp, node, POSIX, QUESTION, reportingKiro, run, textOf } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, descendants, eventually, isAlive, startNode, streamTo, tempDir } from "../../support/processes.js";

describe("run with no config: the chosen agent answers the first question, in the same session", () => {
  it("keeps the question while the menu is shown, then the demo agent answers it and the next one (SDK client)", async () => {
    const config = path.join(tempDir(), "home", ".symposium", "config.jsonc");
    const { sessionId, turns } = await converse(run(config), [QUESTION, "Demo", "and now?"]);
    const [menuTurn, choiceTurn, nextTurn] = turns;
    assert.match(menuTurn!.reply, /1\. Claude Code\n2\. Gemini CLI\n3\. Codex\n4\. Kiro CLI\n5\. Built-in demo agent/);
    assert.match(menuTurn!.reply, /Type a number \(1-5\) or a name \(claude, gemini, codex, kiro, demo\)/);
    assert.match(menuTurn!.reply, /answer what you asked first \("hello, can you help me with my code\?"\)/);
    assert.match(menuTurn!.reply, /SYMPOSIUM_AGENT=demo .* --agent-choice demo/);
    assert.match(choiceTurn!.reply, /^Saved: Built-in demo agent is your agent \(.*config\.jsonc\)\. Starting it…\n\nI am Symposium's built-in demo agent/);
    assert.match(choiceTurn!.reply, /1\. text:\n```\nhello, can you help me with my code\?\n```/, "the kept question, not the choice, reached the agent");
    assert.match(nextTurn!.reply, /^I am Symposium's built-in demo agent[\s\S]*1\. text:\n```\nand now\?\n```/);
    for (const turn of turns) assert.deepEqual([...turn.sessionIds], [sessionId], "the client sees one session throughout");
    // Recorded as every way of choosing records it (record-choice.ts): the catalogue's entry, through the launcher beside the
    // config, which survives an extension update (test/process/platform/platform-demo-launcher.test.ts).
    assert.deepEqual(parseConfig(fs.readFileSync(config, "utf8"), config).agentConfig?.distribution, {
      local: { command: launcherPath(config), args: ["demo-agent"] },
    });
    if (POSIX) {
      assert.equal(fs.statSync(config).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(config)).mode & 0o777, 0o700);
    }
  });

  it("starts the agent at once when the first thing typed is the choice", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const { turns } = await converse(run(config), ["5", "hi"]);
    assert.match(turns[0]!.reply, /^Saved: Built-in demo agent .*\n\nBuilt-in demo agent is ready: ask away\.$/);
    assert.match(turns[1]!.reply, /1\. text:\n```\nhi\n```/);
  });

  it(
    "leaves no process behind when the client leaves: the setup agent ends the agent it started",
    { skip: !POSIX && "reads the process table with ps" },
    async () => {
      const proc = run(path.join(tempDir(), "config.jsonc"));
      const peer = testClient(streamTo(proc.child));
      let started: number[] = [];
      await peer.run(async (agent) => {
        const sessionId = await openSession(agent);
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "demo" }] });
        started = descendants(proc.child.pid!);
      });
      assert.ok(started.length >= 2, `the setup agent and the demo agent run: ${started.join(" ")}`);
      proc.child.stdin!.end();
      assert.equal(await proc.exited, 0);
      await eventually(() => started.every((pid) => !isAlive(pid)), 5_000, "every process the conductor started to end");
    },
  );

  it("a second session on the same connection goes straight to the chosen agent", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const proc = run(config);
    const peer = testClient(streamTo(proc.child));
    await peer.run(async (agent) => {
      const setup = await openSession(agent);
      await agent.request("session/prompt", { sessionId: setup, prompt: [{ type: "text", text: "demo" }] });
      const second = await agent.request<{ sessionId: string }>("session/new", { cwd: "/project", mcpServers: [] });
      assert.match(second.sessionId, /^demo-/, "the demo agent's own session");
      peer.updates.length = 0;
      await agent.request("session/prompt", { sessionId: second.sessionId, prompt: [{ type: "text", text: "second" }] });
      assert.match(textOf(peer.updates), /```\nsecond\n```/);
    });
    proc.child.stdin!.end();
    assert.equal(await proc.exited, 0);
  });

  it(
    "relays the agent's requests, cancellation and session/cancel, naming the session as each side knows it",
    { skip: !POSIX && "the stand-in agent is a POSIX shell script on PATH" },
    async () => {
      const proc = run(path.join(tempDir(), "config.jsonc"), [], reportingKiro());
      const peer = testClient(streamTo(proc.child));
      await peer
        .run(async (agent) => {
          const sessionId = await openSession(agent);
          await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "please exercise-client" }] });
          peer.updates.length = 0;
          await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "kiro" }] });
          // The reporting agent's chunks are JSON; the setup agent's "Saved: …" comes first, in plain text.
          const fromAgent = peer.updates.filter(
            ({ update }) => update.sessionUpdate !== "agent_message_chunk" || (update.content.type === "text" && update.content.text.startsWith("{")),
          );
          assert.equal(receivedPrompt(fromAgent).at(-1)!.text, "please exercise-client");
          assert.deepEqual(clientAnswersReported(fromAgent), {
            read: CLIENT_ANSWERS.read,
            write: CLIENT_ANSWERS.write,
            permission: CLIENT_ANSWERS.permission,
            terminalCreate: CLIENT_ANSWERS.terminalCreate,
            terminalOutput: CLIENT_ANSWERS.terminalOutput,
            terminalWait: CLIENT_ANSWERS.terminalWait,
            terminalKill: CLIENT_ANSWERS.terminalKill,
            terminalRelease: CLIENT_ANSWERS.terminalRelease,
          });
          assert.equal(peer.agentRequests.length, 8);
          for (const [method, params] of peer.agentRequests) assert.equal((params as { sessionId: string }).sessionId, sessionId, method);
          assert.ok(peer.updates.some(({ update, sessionId: id }) => update.sessionUpdate === "tool_call" && id === sessionId));
          await expectCancellationReachesAgent(agent);
          await agent.notify("session/cancel", { sessionId });
          assert.deepEqual(await agent.request("_test/cancelled", {}), { cancelled: ["session-1"] }, "the agent's own session id");
        })
        .finally(() => proc.child.stdin!.end());
      assert.equal(await proc.exited, 0);
    },
  );

  it("keeps the session through acpx: a menu, the choice, then the answer to the first prompt", async () => {
    const cwd = tempDir();
    const env = { HOME: cwd, SYMPOSIUM_CONFIG: path.join(cwd, "config.jsonc"), SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "" };
    const agentArgs = ["--agent", `${node} ${CONDUCTOR_CLI} run`, "--ttl", "30"];
    try {
      await acpx([...agentArgs, "sessions", "new"], { cwd, env });
      assert.match(acpxReply(await acpx([...agentArgs, "--format", "json", "prompt", QUESTION], { cwd, env })), /Welcome to Symposium!/);
      const answer = acpxReply(await acpx([...agentArgs, "--format", "json", "prompt", "demo"], { cwd, env }));
      assert.match(answer, /Saved: Built-in demo agent[\s\S]*```\nhello, can you help me with my code\?\n```/);
    } finally {
      await acpx([...agentArgs, "sessions", "close"], { cwd, env }).catch(() => "");
    }
  });
});

describe("choosing without the menu: --agent-choice and SYMPOSIUM_AGENT", () => {
  it("acpx exec, one prompt per session, is answered by the agent SYMPOSIUM_AGENT names", async () => {
    const cwd = tempDir();
    const config = path.join(cwd, "config.jsonc");
    const stdout = await acpx(["--agent", `${node} ${CONDUCTOR_CLI} run`, "--format", "json", "exec", QUESTION], {
      cwd,
      env: { HOME: cwd, SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "demo" },
    });
    assert.match(acpxReply(stdout), /^I am Symposium's built-in demo agent[\s\S]*```\nhello, can you help me with my code\?\n```/);
    assert.equal(parseConfig(fs.readFileSync(config, "utf8"), config).agentConfig?.id, "demo", "recorded as the menu records a choice");
    if (POSIX) assert.equal(fs.statSync(config).mode & 0o777, 0o600);
  });

  it("--agent-choice names the agent (SDK client); a config file already there wins and is left as it is", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const { turns } = await converse(run(config, ["--agent-choice", "Built-in demo agent"]), ["hi"]);
    assert.match(turns[0]!.reply, /^I am Symposium's built-in demo agent/);
    const before = fs.readFileSync(config, "utf8");
    const again = await converse(run(config, ["--agent-choice", "kiro"]), ["hi"]);
    assert.match(again.turns[0]!.reply, /^I am Symposium's built-in demo agent/);
    assert.equal(fs.readFileSync(config, "utf8"), before);
  });

  it("refuses a name it does not know, listing the names, and writes nothing", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const proc = run(config, [], { SYMPOSIUM_AGENT: "claude-desktop" });
    assert.equal(await proc.exited, 2);
    assert.match(proc.stderr(), /\$SYMPOSIUM_AGENT: no agent named 'claude-desktop'; the names are claude, gemini, codex, kiro, demo/);
    assert.equal(fs.existsSync(config), false);
  });

  it("matches numbers and names, whatever their case and spacing", () => {
    const choices = agentChoices(["demo"]);
    const pick = (input: string) => findAgentChoice(input, choices)?.shortName ?? null;
    assert.deepEqual(["1", " 2. ", "Claude Code", "claude-code", "GEMINI", "gemini cli", "codex", "Kiro", "demo agent", "5)"].map(pick), [
      "claude",
      "gemini",
      "claude",
      "claude",
      "gemini",
      "gemini",
      "codex",
      "kiro",
      "demo",
      "demo",
    ]);
    assert.deepEqual(["0", "6", "", "hello", "claude please"].map(pick), [null, null, null, null, null]);
  });
});

describe("the demo agent's hint fits how it was started", () => {
  it("named by the config file `run` read", async () => {
    const config = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(config, JSON.stringify({ agent: `${node} ${CONDUCTOR_CLI} demo-agent` }));
    const { turns } = await converse(run(config), ["hi"]);
    assert.match(turns[0]!.reply, new RegExp(`You are talking to me because "agent" in ${escapeRegExp(config)} names me`));
  });

  it("named on a command line, with no config file involved", async () => {
    const proc = startNode(CONDUCTOR_CLI, ["agent", `${node} ${CONDUCTOR_CLI} demo-agent`], { SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_RUN_CONFIG: "" });
    const { turns } = await converse(proc, ["hi"]);
    assert.match(
      turns[0]!.reply,
      /No config file chose me: I was named on a command line[\s\S]*symposium-conductor agent "npx -y @agentclientprotocol\/claude-agent-acp@0\.101\.0"/,
    );
    assert.doesNotMatch(turns[0]!.reply, /config\.jsonc names me/);
  });
});

describe("run in a terminal", () => {
  const hasScript = POSIX && spawnSync("script", ["--version"]).status === 0;
  it("says on stderr that it is an ACP agent waiting on stdin, and how to try it", { skip: !hasScript && "needs util-linux `script` for a terminal" }, () => {
    const config = path.join(tempDir(), "config.jsonc");
    // `script` gives the conductor a terminal as stdin; its input (/dev/null) ends at once.
    const result = spawnSync("script", ["-qec", `${node} ${CONDUCTOR_CLI} run`, "/dev/null"], {
      encoding: "utf8",
      input: "",
      env: { ...process.env, SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "" },
      timeout: 20_000,
    });
    assert.match(
      result.stdout,
      /this is an ACP agent: it waits for a client's JSON-RPC on stdin\. Try it with: npx acpx --agent '.*symposium-conductor\.mjs run' exec "hello"/,
    );
  });

  it("says nothing of the kind when a client is on the other end of a pipe", async () => {
    const proc = run(path.join(tempDir(), "config.jsonc"));
    const { turns } = await converse(proc, ["hi"]);
    assert.match(turns[0]!.reply, /Welcome to Symposium!/);
    assert.doesNotMatch(proc.stderr(), /this is an ACP agent/);
  });
});
