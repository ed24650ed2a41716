// The agent's own sessions in the chat, through the real chat server
// and a fixture agent written with the ACP SDK (test/fixtures/sessions-agent.ts):
// a conversation that ends closes its agent session (session/close) when the
// agent offers it, and only then; the agent's session_info_update title names
// the conversation in the history.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { ChatPage } from "../../support/chat-page.js";
import { OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";
import type { HistoryEntry } from "../../../webchat/page/protocol.js";

const AGENT = path.join(OUT_DIR, "test", "fixtures", "sessions-agent.js");

async function chat(
  t: { after(fn: () => unknown): void },
  flags: string[] = [],
  folders: { projectDir?: string; addDirs?: string[] } = {},
): Promise<{ page: ChatPage; log: string; server: ChatServer }> {
  const log = path.join(tempDir("sessions-agent-"), "log");
  fs.writeFileSync(log, "");
  const server = await startChatServer({
    command: quote([process.execPath, AGENT, ...flags]),
    env: { SESSIONS_AGENT_LOG: log },
    extraArgs: ["--state-dir", tempDir("webchat-state-"), ...(folders.addDirs ?? []).flatMap((dir) => ["--add-dir", dir])],
    ...(folders.projectDir ? { projectDir: folders.projectDir } : {}),
  });
  t.after(() => server.stop());
  const page = new ChatPage(server, "sessions-test");
  t.after(() => page.close());
  await page.ready();
  return { page, log, server };
}

const logLines = (log: string): string[] => fs.readFileSync(log, "utf8").split("\n").filter(Boolean);

describe("the agent's own sessions", () => {
  it("a conversation that ends sends session/close to an agent that offers it, before letting it go", async (t) => {
    const { page, log } = await chat(t);
    assert.match(await page.ask("hello"), /echo hello/);
    page.socket.send(JSON.stringify({ type: "end" }));
    await eventually(() => logLines(log).includes("stdin ended"), 10_000, "the agent to be let go");
    assert.deepEqual(logLines(log), ["new []", "close sessions-1", "stdin ended"]);
  });

  it("an agent that does not offer session/close is not sent one", async (t) => {
    const { page, log } = await chat(t, ["--no-close"]);
    await page.ask("hello");
    page.socket.send(JSON.stringify({ type: "end" }));
    await eventually(() => logLines(log).includes("stdin ended"), 10_000, "the agent to be let go");
    assert.deepEqual(logLines(log), ["new []", "stdin ended"]);
  });

  it("the agent's session_info_update title names the conversation in the history", async (t) => {
    const { page } = await chat(t);
    await page.ask("please fix the parser");
    await page.ask("title Fixing the parser's error messages");
    page.socket.send(JSON.stringify({ type: "listHistory" }));
    const entries = (): HistoryEntry[] => page.messages.flatMap((message) => (message.type === "history" ? [message.entries] : [])).at(-1) ?? [];
    await eventually(() => entries().length > 0, 10_000, "the history list");
    assert.deepEqual(
      entries().map((entry) => entry.title),
      ["Fixing the parser's error messages"],
    );
  });

  it("a multi-root workspace: every other folder reaches the agent in session/new, and its file access admits exactly those folders", async (t) => {
    const [project, second, outside] = ["project-", "second-", "outside-"].map((prefix) => fs.realpathSync(tempDir(prefix)));
    for (const [dir, text] of [
      [project!, "in the project"],
      [second!, "in the second folder"],
      [outside!, "outside"],
    ] as const)
      fs.writeFileSync(path.join(dir, "note.txt"), text);
    const { page, log } = await chat(t, [], { projectDir: project!, addDirs: [second!] });
    assert.equal(logLines(log)[0], `new ${JSON.stringify([second])}`);
    assert.match(await page.ask(`read ${path.join(project!, "note.txt")}`), /^read in the project$/);
    assert.match(await page.ask(`read ${path.join(second!, "note.txt")}`), /^read in the second folder$/);
    assert.match(
      await page.ask(`read ${path.join(outside!, "note.txt")}`),
      /^refused Invalid params: access to .*note\.txt refused: it is outside the project directory/,
    );
    // A link in the second folder leading out of every folder is refused like one in the project.
    fs.symlinkSync(path.join(outside!, "note.txt"), path.join(second!, "link.txt"));
    assert.match(await page.ask(`read ${path.join(second!, "link.txt")}`), /^refused .*leads outside the project directory through a symlink/);
  });
});
