// The built-in chat runs our conductor in its own process: the
// real symposium-webchat with `<node> dist/symposium-conductor.mjs run`, as
// the extension runs it, starts no conductor process per conversation: the
// agent is the server's own child, behind the in-process editor-context hook;
// the stop sequence still reaches the agent's process group; the first-run
// menu works; and any other command (a wrapper, as symposium.acpAgentPath
// gives) still runs as a process. Real server, real agents, the page's
// websocket protocol.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { ChatPage } from "../../support/chat-page.js";
import { CONDUCTOR_CLI, PROXY_CLI, descendants, eventually, isAlive, tempDir } from "../../support/processes.js";
import { CHAT_AGENT, allGone, startChatServer, type ChatServer } from "../../support/webchat-server.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const node = process.execPath;
const POSIX = process.platform !== "win32";

/** A config whose agent is `agent` (a command line), in a folder of its own. */
function configFor(agent: string): string {
  const config = path.join(tempDir("in-process-config-"), "config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent }), { mode: 0o600 });
  return config;
}

/** Our conductor's run as the extension gives it: a program and its arguments. */
const conductorRun = (config: string): string[] => [node, CONDUCTOR_CLI, "run", "--config", config];

/** The parent of `pid`, from the process table (`ps`: Linux and macOS; Windows has no parent link worth asking). */
function parentOf(pid: number): number {
  return Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }).trim());
}

/**
 * The conductor processes in the chat server's own tree (other tests run
 * their own servers alongside, with conductors of their own), as "pid args".
 */
function conductorProcesses(server: ChatServer): string[] {
  const tree = new Set(descendants(server.process.child.pid!));
  return execFileSync("ps", ["-A", "-o", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => tree.has(Number(line.split(/\s+/, 1)[0])) && line.includes(CONDUCTOR_CLI) && !line.includes(" registry "));
}

async function withServer(agent: string[], env: NodeJS.ProcessEnv, body: (server: ChatServer) => Promise<void>): Promise<void> {
  const server = await startChatServer({ agent, env });
  try {
    await body(server);
  } finally {
    await server.stop();
  }
}

describe("the built-in chat runs our conductor in its own process", { skip: !POSIX && "reads parents from ps" }, () => {
  it("starts no conductor process: the agent is the server's child, behind the in-process editor-context hook", async () => {
    const config = configFor(quote([node, CHAT_AGENT]));
    const env = { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) };
    await withServer(conductorRun(config), env, async (server) => {
      const pages = [new ChatPage(server, "one"), new ChatPage(server, "two")];
      await Promise.all(pages.map((page) => page.ready()));
      const answer = await pages[0]!.ask("what do you get?");
      assert.match(answer, /<editor-context>/, "the block reached the agent: the hook ran in the chain");
      const agents = server.agentPids();
      assert.equal(agents.length, 2, "one agent per conversation");
      for (const pid of agents) assert.equal(parentOf(pid), server.process.child.pid, `agent ${pid} is the chat server's own child`);
      assert.deepEqual(conductorProcesses(server), [], "no symposium-conductor process started");
      assert.match(server.process.stderr(), /started the conductor in this process: /);
      await Promise.all(pages.map((page) => page.close()));
    });
  });

  it("the stop sequence reaches the agent's process group: a conversation's end leaves nothing it started", async () => {
    const pidFile = path.join(tempDir("in-process-group-"), "sleep.pid");
    // The agent starts a program of its own, in its process group, that outlives nothing but itself.
    const agent = quote(["sh", "-c", `sleep 300 & echo $! > ${quote([pidFile])}; exec ${quote([node, CHAT_AGENT])}`]);
    await withServer(conductorRun(configFor(agent)), {}, async (server) => {
      const page = new ChatPage(server);
      await page.ready();
      await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "", 5_000, "the agent's own child to start");
      const sleeper = Number(fs.readFileSync(pidFile, "utf8"));
      const [agentPid] = server.agentPids();
      assert.ok(isAlive(sleeper) && isAlive(agentPid!));
      await page.close(); // an unnamed conversation ends with its page
      await allGone([agentPid!, sleeper], 3_000);
      assert.equal(server.process.child.exitCode, null, "the server goes on");
    });
  });

  it("a first run: the menu in the chat; the choice opens a new conversation where the chosen demo agent answers the first question", async () => {
    const config = path.join(tempDir("in-process-first-run-"), "config.jsonc");
    await withServer(conductorRun(config), {}, async (server) => {
      const page = new ChatPage(server, "first");
      await page.ready();
      assert.match(
        await page.ask("hello"),
        /Welcome to Symposium![\s\S]*the agent starts in a new conversation[\s\S]*Choose another agent in the chat's header/,
      );
      const answered = await page.ask("demo", 20_000);
      assert.match(
        answered,
        /^Saved: Built-in demo agent is your agent \(.*\)\. A new conversation with it starts now, and it answers what you asked first\.$/,
      );
      // The setup agent did not start the demo agent itself: the page that chose is told to open a new conversation.
      const choice = page.messages.find((message) => message.type === "agentChoice");
      assert.deepEqual(choice, { type: "agentChoice", ok: true, id: "demo", name: "Built-in demo agent", firstQuestion: "hello" });
      assert.ok(choice?.type === "agentChoice" && choice.firstQuestion !== undefined);
      assert.match(fs.readFileSync(config, "utf8"), /demo-agent/);
      assert.match(server.process.stderr(), /\[symposium-conductor\] no configuration at .*: starting the setup agent/);
      assert.match(server.process.stderr(), /the first-run menu chose Built-in demo agent: the page opens a new conversation with it/);
      // What the page does with it: a new conversation, the first question sent there, answered by the agent's own session.
      const next = new ChatPage(server, "second");
      await next.ready();
      assert.match(await next.ask(choice.firstQuestion, 20_000), /I am Symposium's built-in demo agent/);
      await Promise.all([page.close(), next.close()]);
    });
  });

  it("an agent that exits at start: the conversation ends saying which agent and why, from the conductor's report", async () => {
    const failing = quote([node, "-e", "console.error('boom: you are not logged in'); process.exit(3)"]);
    await withServer(conductorRun(configFor(failing)), {}, async (server) => {
      const page = new ChatPage(server);
      await eventually(
        () => page.messages.some((message) => message.type === "session" && message.session.state === "ended"),
        10_000,
        "the conversation to end",
      );
      const ended = [...page.messages].reverse().find((message) => message.type === "session" && message.session.state === "ended");
      assert.ok(ended?.type === "session" && ended.session.ended);
      // The chat's start failure, told from the conductor's report as when the conductor was a process.
      assert.equal(ended.session.ended.message, "The agent did not start: component 'agent' exited with code 3: boom: you are not logged in");
      assert.equal(server.process.child.exitCode, null, "the server goes on");
      await page.close();
    });
  });

  it("any other command is a process: a wrapper in front of our conductor (symposium.acpAgentPath) is spawned", async () => {
    const config = configFor(quote([node, CHAT_AGENT]));
    const wrapped = [node, PROXY_CLI, "--", node, CONDUCTOR_CLI, "run", "--config", config];
    await withServer(wrapped, {}, async (server) => {
      const page = new ChatPage(server);
      await page.ready();
      const [agentPid] = server.agentPids();
      assert.notEqual(parentOf(agentPid!), server.process.child.pid, "the agent runs under the conductor process");
      assert.match(server.process.stderr(), /started the agent \(pid \d+\): /);
      await page.close();
      await allGone([agentPid!], 3_000);
    });
  });
});
