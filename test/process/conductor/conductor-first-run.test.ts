// The first-run menu as a new user meets it, through the real conductor CLI:
// choosing an agent that cannot start says which one and why, undoes the
// choice (the config file goes) and shows the menu again in the same chat; an
// agent that starts but is not logged in says what to do, and `/agent` in the
// chat undoes the choice. No file is edited by hand at any step.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parseConfig } from "../../../conductor-hooks/src/config.js";
import { agentChosenIn, NEW_CONVERSATION_ON_CHOICE } from "../../../conductor-hooks/src/setup-handoff.js";
import { openSession, testClient, type AgentCalls } from "../../support/acp-client.js";
import { escapeRegExp, failingKiro, kiroOnPath, node, POSIX, QUESTION, run, textOf, type Turn } from "../../support/conductor-run.js";
import { isAlive, eventually, streamTo, tempDir, type RunningProcess } from "../../support/processes.js";

const POSIX_ONLY = { skip: !POSIX && "the stand-in agents are POSIX shell scripts on PATH" };

/** A conversation with `run` in one session, a prompt at a time, so the config file can be read between turns. */
async function chat(proc: RunningProcess, steps: (say: (text: string) => Promise<Turn>, agent: AgentCalls) => Promise<void>): Promise<void> {
  const peer = testClient(streamTo(proc.child));
  await peer
    .run(async (agent) => {
      const sessionId = await openSession(agent);
      const say = async (text: string): Promise<Turn> => {
        peer.updates.length = 0;
        const turn: Turn = { reply: "", sessionIds: new Set() };
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }).catch((error: Turn["error"]) => (turn.error = error));
        turn.reply = textOf(peer.updates);
        return turn;
      };
      await steps(say, agent);
    })
    .finally(() => proc.child.stdin!.end());
  assert.equal(await proc.exited, 0, proc.stderr());
}

/** The id of the config's "agent" (the catalogue entry the menu recorded), its command line when it is one, or null when there is no file. */
function configuredAgent(config: string): string | null {
  if (!fs.existsSync(config)) return null;
  const parsed = parseConfig(fs.readFileSync(config, "utf8"), config);
  return typeof parsed.agentConfig?.id === "string" ? parsed.agentConfig.id : parsed.agent;
}

/** A PATH on which `kiro-cli-chat` (the menu's Kiro CLI) is surely missing: only node's folder. */
function pathWithoutKiro(): NodeJS.ProcessEnv {
  return { PATH: path.dirname(node) };
}

/** A Kiro CLI stand-in that starts, lists a login method, and answers every prompt "Authentication required" (-32000). */
function notLoggedInKiro(): { env: NodeJS.ProcessEnv; pidFile: string } {
  const script = path.join(tempDir(), "not-logged-in.js");
  fs.writeFileSync(
    script,
    `
    const readline = require("node:readline");
    const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
    readline.createInterface({ input: process.stdin }).on("line", (line) => {
      const { id, method } = JSON.parse(line);
      if (id === undefined) return;
      if (method === "initialize") {
        return send({ id, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: "kiro-stand-in", title: "Kiro stand-in", version: "1.0.0" },
          authMethods: [{ id: "kiro-login", name: "Log in with Kiro", description: "run kiro-cli login" }] } });
      }
      if (method === "session/new") return send({ id, result: { sessionId: "kiro-1" } });
      process.stderr.write("kiro: no credentials\\n");
      send({ id, error: { code: -32000, message: "Authentication required" } });
    });`,
  );
  // `exec` keeps the shell's pid: the file names the agent's process.
  return { env: kiroOnPath(`echo $$ > "${script}.pid"\nexec "${node}" "${script}"`), pidFile: `${script}.pid` };
}

describe("first run: an agent that cannot start is undone, and the menu comes back in the same chat", () => {
  it("a program that is not installed: says so, removes the config, shows the menu; the demo agent then answers the first question", async () => {
    const config = path.join(tempDir(), "home", ".symposium", "config.jsonc");
    await chat(run(config, [], pathWithoutKiro()), async (say) => {
      const menu = await say(QUESTION);
      assert.match(menu.reply, /Welcome to Symposium![\s\S]*4\. Kiro CLI[\s\S]*Type \/agent in this chat to see this menu again/);
      assert.equal(configuredAgent(config), null);

      const failed = await say("kiro");
      assert.equal(failed.error?.code, -32603);
      assert.equal(failed.error?.message, "agent 'Kiro CLI' could not start: cannot start 'kiro-cli-chat': no such program (is it installed and on PATH?)");
      assert.match(
        failed.reply,
        /^Saved: Kiro CLI is your agent .*Starting it…\n\nKiro CLI did not start\.\n\nagent 'Kiro CLI' could not start: cannot start 'kiro-cli-chat': no such program/,
      );
      assert.match(failed.reply, /Command: kiro-cli-chat acp\nIt wrote nothing to stderr\./);
      assert.match(
        failed.reply,
        /- or choose another agent in the menu \(\/agent shows it again\), such as the built-in demo agent: demo \(it runs .*demo-agent\)\n/,
      );
      assert.doesNotMatch(failed.reply, /set "agent" in/, "no file to edit: the menu follows");
      assert.match(failed.reply, new RegExp(`${escapeRegExp(config)} was removed again\\. Fix it and choose it again, or choose another agent\\.`));
      assert.match(
        failed.reply,
        /Which agent would you like to use\?\n1\. Claude Code[\s\S]*answer what you asked first \("hello, can you help me with my code\?"\)/,
        "the menu again, the question still kept",
      );
      assert.equal(configuredAgent(config), null, "no config left naming an agent that does not start");

      const answered = await say("demo");
      assert.equal(answered.error, undefined);
      assert.match(
        answered.reply,
        /^Saved: Built-in demo agent is your agent[\s\S]*I am Symposium's built-in demo agent[\s\S]*```\nhello, can you help me with my code\?\n```/,
      );
      assert.equal(configuredAgent(config), "demo");

      const next = await say("and now?");
      assert.match(next.reply, /^I am Symposium's built-in demo agent[\s\S]*```\nand now\?\n```/);
    });
    assert.equal(configuredAgent(config), "demo", "the working choice stays for the next conversation");
  });

  it(
    "a client that opens a new conversation for the choice gets it in the turn's answer; the agent starts only if the session goes on",
    POSIX_ONLY,
    async () => {
      const config = path.join(tempDir(), "home", ".symposium", "config.jsonc");
      const { env, pidFile } = notLoggedInKiro();
      const proc = run(config, [], env);
      const peer = testClient(streamTo(proc.child));
      await peer
        .run(async (agent) => {
          const capabilities = { _meta: { [NEW_CONVERSATION_ON_CHOICE]: true } };
          await agent.request("initialize", { protocolVersion: 1, clientCapabilities: capabilities, clientInfo: { name: "a chat", version: "1" } });
          const { sessionId } = await agent.request<{ sessionId: string }>("session/new", { cwd: tempDir(), mcpServers: [] });
          const prompt = (text: string): Promise<unknown> => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
          await prompt(QUESTION);
          assert.match(textOf(peer.updates), /the agent starts in a new conversation and it will answer what you asked first/);
          peer.updates.length = 0;
          const answer = await prompt("kiro");
          assert.deepEqual(agentChosenIn(answer), { id: "kiro", name: "Kiro CLI", firstQuestion: QUESTION });
          assert.match(
            textOf(peer.updates),
            /^Saved: Kiro CLI is your agent \(.*\)\. A new conversation with it starts now, and it answers what you asked first\.$/,
          );
          assert.equal(configuredAgent(config), "kiro");
          assert.equal(fs.existsSync(pidFile), false, "the setup agent started no agent: the client's new conversation will");
          // A client that stays in this session anyway is relayed to the chosen agent, as one that does not open conversations.
          const relayed = await prompt("are you there?").catch((error: { message: string }) => error);
          assert.match((relayed as { message: string }).message, /Authentication required/);
          assert.ok(fs.existsSync(pidFile), "the chosen agent started for the relay");
        })
        .finally(() => proc.child.stdin!.end());
      assert.equal(await proc.exited, 0, proc.stderr());
    },
  );

  it("an agent that exits at start: its exit code and stderr in the chat, the menu again, then another choice", POSIX_ONLY, async () => {
    const config = path.join(tempDir(), "config.jsonc");
    await chat(run(config, [], failingKiro()), async (say) => {
      const failed = await say("4");
      assert.equal(failed.error?.message, "agent 'Kiro CLI' exited with code 3: kiro: you are not logged in; run kiro-cli login");
      assert.match(
        failed.reply,
        /Kiro CLI did not start\.\n\nagent 'Kiro CLI' exited with code 3\.\nCommand: kiro-cli-chat acp\nLast lines of its stderr:\n {2}kiro: starting\n {2}kiro: you are not logged in; run kiro-cli login\n/,
      );
      assert.match(failed.reply, /was removed again[\s\S]*Which agent would you like to use\?/);
      assert.equal(configuredAgent(config), null);

      const again = await say("again?");
      assert.equal(again.error, undefined, "the next prompt meets the menu, not the dead agent");
      assert.match(again.reply, /Which agent would you like to use\?/);

      const answered = await say("5");
      assert.match(answered.reply, /^Saved: Built-in demo agent[\s\S]*```\nagain\?\n```/, "the question asked at the menu, answered by the new choice");
      assert.equal(configuredAgent(config), "demo");
    });
  });
});

describe("first run: an agent that starts but is not logged in", () => {
  it("its error names it and what to do, and /agent undoes the choice without touching a file", POSIX_ONLY, async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const { env } = notLoggedInKiro();
    await chat(run(config, [], env), async (say) => {
      const ready = await say("kiro");
      assert.match(ready.reply, /Kiro CLI is ready: ask away\.$/);
      assert.equal(configuredAgent(config), "kiro");

      const refused = await say("hello?");
      assert.equal(refused.error?.code, -32000);
      assert.equal(
        refused.error?.message,
        "Authentication required: agent 'Kiro stand-in' is not logged in. To fix: run `kiro-cli login` in a terminal; then start a new chat. " +
          "Or type /agent here to choose another agent. Its login methods: Log in with Kiro.",
      );
      assert.match((refused.error?.data as { details: string }).details, /What to try:\n- run `kiro-cli login`[\s\S]*- or type \/agent here/);
      assert.equal(configuredAgent(config), "kiro", "a login error leaves the choice: logging in fixes it");

      const menu = await say("/agent");
      assert.equal(menu.error, undefined);
      assert.match(
        menu.reply,
        new RegExp(
          `^Kiro CLI is no longer your agent: ${escapeRegExp(config)} was removed again\\.\\n\\nWelcome to Symposium![\\s\\S]*Which agent would you like to use\\?`,
        ),
      );
      assert.equal(configuredAgent(config), null);

      const demo = await say("demo");
      assert.match(demo.reply, /Built-in demo agent is ready: ask away\.$/);
      const answer = await say("hello?");
      assert.match(answer.reply, /^I am Symposium's built-in demo agent[\s\S]*```\nhello\?\n```/);
      assert.equal(configuredAgent(config), "demo");
    });
  });

  it("/agent ends the agent it replaces, and leaves a config file the user changed meanwhile", POSIX_ONLY, async () => {
    const config = path.join(tempDir(), "config.jsonc");
    const { env, pidFile } = notLoggedInKiro();
    await chat(run(config, [], env), async (say) => {
      await say("kiro");
      const pid = Number(fs.readFileSync(pidFile, "utf8"));
      assert.ok(isAlive(pid), "the chosen agent runs");
      const edited = `{ "agent": "my-own-agent --acp" }\n`;
      fs.writeFileSync(config, edited);
      const menu = await say("/agent");
      assert.match(menu.reply, /^Kiro CLI is no longer your agent: .* changed since it was written, so it was left as it is/);
      await eventually(() => !isAlive(pid), 5_000, "the replaced agent ended");
      assert.equal(fs.readFileSync(config, "utf8"), edited, "the user's file, untouched");
    });
  });
});
