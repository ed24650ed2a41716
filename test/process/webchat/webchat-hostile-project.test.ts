// What a hostile project folder or history folder can do to the real chat
// server, over a real websocket, with real
// agents (test/fixtures) and real git:
// - typing `@` lists files with git, which must not run the commands a
//   repository's own config names (core.fsmonitor);
// - the walk of a folder without git stops at its folder and time budgets,
//   and says the list was cut;
// - a damaged history file, a 200 MB one and a FIFO named like one cost no
//   crash, no memory and no hang.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { quote } from "shell-quote";
import type { ServerMessage } from "../../../webchat/page/protocol.js";
import { historyDir } from "../../../webchat/src/history.js";
import { MAX_WALKED_FOLDERS } from "../../../webchat/src/project-index.js";
import { ChatPage } from "../../support/chat-page.js";
import { watchMemory } from "../../support/memory.js";
import { OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer, type ChatServerOptions } from "../../support/webchat-server.js";

const FEATURE_AGENT = path.join(OUT_DIR, "test", "fixtures", "feature-agent.js");
const POSIX = process.platform !== "win32";
const MB = 1024 * 1024;

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("the chat server against a hostile project or history folder", () => {
  const servers: ChatServer[] = [];
  after(async () => {
    // A server blocked on a FIFO (the bug) does not hear SIGTERM: it is killed.
    for (const server of servers) if (server.process.child.exitCode === null) server.process.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.process.exited));
  });

  async function serve(options: ChatServerOptions): Promise<ChatServer> {
    const server = await startChatServer(options);
    servers.push(server);
    return server;
  }

  /** A page of the server; `query`: more URL parameters (`reopen`). */
  function page(server: ChatServer, query: Record<string, string> = {}): ChatPage {
    return new ChatPage(server, undefined, { origin: server.origin }, query);
  }

  async function listFiles(chat: ChatPage): Promise<ServerMessage & { type: "files" }> {
    const before = chat.messages.length;
    chat.socket.send(JSON.stringify({ type: "listFiles" }));
    await eventually(() => chat.messages.slice(before).some((message) => message.type === "files"), 20_000, "the project's files");
    return chat.messages.slice(before).find((message): message is ServerMessage & { type: "files" } => message.type === "files")!;
  }

  it(
    "typing @ in a git project runs none of the commands its .git/config names (core.fsmonitor)",
    { skip: hasGit() ? false : "git is not installed" },
    async () => {
      const project = tempDir("webchat-fsmonitor-");
      const marker = path.join(tempDir("webchat-fsmonitor-marker-"), "ran");
      execFileSync("git", ["init", "-q"], { cwd: project });
      fs.writeFileSync(path.join(project, "tracked.txt"), "tracked\n");
      fs.writeFileSync(path.join(project, "untracked.txt"), "untracked\n");
      execFileSync("git", ["add", "tracked.txt"], { cwd: project });
      const hook = path.join(project, "fsmonitor.js");
      // Git runs the configured command through a shell; node writes the marker on every platform.
      fs.writeFileSync(hook, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
      execFileSync("git", ["config", "core.fsmonitor", quote([process.execPath, hook])], { cwd: project });
      fs.writeFileSync(path.join(project, ".git", "hooks", "post-index-change"), `#!/bin/sh\n${quote([process.execPath, hook])}\n`, { mode: 0o755 });
      const server = await serve({ projectDir: project });
      const chat = page(server);
      await chat.ready();
      const { files } = await listFiles(chat);
      assert.deepEqual([...files].sort(), ["fsmonitor.js", "tracked.txt", "untracked.txt"], "git listed the files, untracked ones too");
      assert.equal(fs.existsSync(marker), false, "the repository's core.fsmonitor command ran");
      await chat.close();
    },
  );

  it("the walk of a folder without git stops at its folder budget and says the list was cut", async () => {
    const project = tempDir("webchat-many-folders-");
    fs.writeFileSync(path.join(project, "top.txt"), "");
    // 40,000 empty folders (a listing once walked them all, for 3.2 s), under 200 parents, and a file past them.
    for (let parent = 0; parent < 200; parent++) {
      for (let child = 0; child < 200; child++) fs.mkdirSync(path.join(project, `p${parent}`, `c${child}`), { recursive: true });
    }
    fs.writeFileSync(path.join(project, "p199", "c199", "deep.txt"), "");
    const server = await serve({ projectDir: project });
    const chat = page(server);
    await chat.ready();
    const answer = await listFiles(chat);
    assert.ok(MAX_WALKED_FOLDERS < 40_000, "more folders than the walk may visit");
    assert.equal(answer.truncated, true, "the answer says the list was cut");
    assert.ok(answer.files.includes("top.txt"), "what the walk reached is listed");
    assert.ok(!answer.files.includes("p199/c199/deep.txt"), "the walk stopped at its budget");
    await chat.close();
    for (let parent = 0; parent < 200; parent++) fs.rmSync(path.join(project, `p${parent}`), { recursive: true });
  });

  describe("history", () => {
    const stateDir = tempDir("webchat-hostile-history-");
    let server: ChatServer;
    const kept = (id: string) => path.join(historyDir(server.projectDir, stateDir), `${id}.jsonl`);
    const entry = (id: string, agentSessionId?: string) =>
      JSON.stringify({ id, title: `kept ${id}`, createdAt: 1, updatedAt: Date.now(), ...(agentSessionId ? { agentSessionId } : {}) });

    // The damaged conversations, kept again when they end, prune the folder: they come last.
    it("starts", async () => {
      // feature-agent without --load or --resume: a reopened conversation is shown read-only.
      server = await serve({ command: quote([process.execPath, FEATURE_AGENT]), extraArgs: ["--state-dir", stateDir] });
      fs.mkdirSync(path.dirname(kept("x")), { recursive: true, mode: 0o700 });
    });

    it("a 200 MB file named like a history file is not read into memory", async () => {
      const id = "huge";
      fs.writeFileSync(kept(id), `${entry(id)}\n${JSON.stringify({ kind: "notice", message: "x".repeat(1000) })}\n`);
      fs.truncateSync(kept(id), 200 * MB); // sparse: no disk, and 200 MB to read
      const memory = watchMemory(server.process.child, 600);
      const lister = page(server);
      await lister.ready();
      lister.socket.send(JSON.stringify({ type: "listHistory" }));
      await eventually(() => lister.messages.some((message) => message.type === "history"), 10_000, "the history list");
      const chat = page(server, { reopen: id });
      await chat.ready();
      memory.stop();
      await Promise.all([lister.close(), chat.close()]);
      assert.equal(server.process.child.exitCode, null, `the server ended:\n${server.process.stderr().slice(-2000)}`);
      assert.ok(memory.peakMb() < 150, `the server grew to ${memory.peakMb().toFixed(0)} MB reopening a 200 MB file`);
      await eventually(
        () => /cannot reopen history huge: .*too large/.test(server.process.stderr()),
        5_000,
        `the log to say why it was not reopened:\n${server.process.stderr().slice(-1500)}`,
      );
      fs.rmSync(kept(id));
    });

    it("a FIFO named like a history file blocks nothing: the list and a reopen are answered", { skip: POSIX ? false : "no FIFOs on Windows" }, async () => {
      const id = "fifo";
      execFileSync("mkfifo", [kept(id)]);
      const lister = page(server);
      await lister.ready();
      lister.socket.send(JSON.stringify({ type: "listHistory" }));
      await eventually(() => lister.messages.some((message) => message.type === "history"), 5_000, "the history list (the server blocked on the FIFO?)");
      const list = lister.messages.find((message) => message.type === "history");
      assert.ok(list?.type === "history" && !list.entries.some((each) => each.id === id), "the FIFO is not listed");
      const chat = page(server, { reopen: id });
      await chat.ready(5_000);
      await Promise.all([lister.close(), chat.close()]);
      fs.rmSync(kept(id));
    });

    it("a damaged event (an update without its fields) is dropped, and reopening it with an agent that cannot load ends nothing", async () => {
      for (const [id, agentSessionId] of [
        ["damaged-a", "agent-session-1"],
        ["damaged-b", undefined],
      ] as const) {
        const events = [
          { kind: "notice", message: "kept before" },
          { kind: "update" },
          { kind: "update", update: null },
          { kind: "update", update: { sessionUpdate: "agent_message_chunk" } },
          { kind: "terminal" },
          { kind: "notice", message: "kept after" },
        ];
        fs.writeFileSync(kept(id), [entry(id, agentSessionId), ...events.map((event) => JSON.stringify(event)), "{not json"].join("\n") + "\n", {
          mode: 0o600,
        });
        const chat = page(server, { reopen: id });
        await chat.opened;
        await eventually(
          () => chat.events().some((event) => event.kind === "notice" && event.message === "kept after"),
          10_000,
          `the kept transcript of ${id}`,
        );
        const notices = chat.events().flatMap((event) => (event.kind === "notice" ? [event.message] : []));
        assert.deepEqual(notices.slice(0, 2), ["kept before", "kept after"], "the good events are shown, the damaged ones dropped");
        await chat.close();
      }
      // A page served after the damaged transcripts were read: an unhandled rejection would have ended the server first.
      const next = page(server);
      await next.ready();
      await next.close();
      assert.equal(server.process.child.exitCode, null, `the server ended:\n${server.process.stderr().slice(-2000)}`);
    });
  });
});
