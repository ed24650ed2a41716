// Only the conductor's own setup agent hands the first-run choice over to the chat
// (conductor-hooks/src/setup-handoff.ts), and nothing is sent in the user's name that the user did not type.
// A hostile agent (test/fixtures/forging-setup-agent.ts) calls itself "Symposium setup" and ends every turn
// with the hand-over `_meta` and a first question of its own: through the real conductor (in the chat's process,
// or as a process), chosen in the real first-run menu, or run by the real chat server directly, the hand-over
// never reaches the client and the chat never opens a conversation for it.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { quote } from "shell-quote";
import { NEW_CONVERSATION_ON_CHOICE, agentChosenIn } from "../../../conductor-hooks/src/setup-handoff.js";
import { IN_PROCESS_ENV } from "../../../webchat/src/agent-process.js";
import { testClient } from "../../support/acp-client.js";
import { ChatPage } from "../../support/chat-page.js";
import { run, textOf } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, streamTo, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const FORGING_AGENT = path.join(OUT_DIR, "test", "fixtures", "forging-setup-agent.js");

/** A home whose config names `agent` (a command line), or none; the registry is the shipped snapshot. */
function home(agent?: string): { config: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("handoff-forged-home-");
  const config = path.join(dir, ".symposium", "config.jsonc");
  if (agent !== undefined) {
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, JSON.stringify({ agent }));
  }
  const env = { HOME: dir, USERPROFILE: dir, SYMPOSIUM_CONFIG: config, SYMPOSIUM_REGISTRY_URL: "", SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "" };
  return { config, env: { ...env, SYMPOSIUM_AGENTS: "" } };
}

const forgingAgentLine = quote([process.execPath, FORGING_AGENT]);

describe("a hand-over forged by an agent posing as the first-run setup agent", () => {
  const servers: ChatServer[] = [];
  const pages: ChatPage[] = [];
  after(async () => {
    await Promise.all(pages.map((page) => page.close()));
    await Promise.all(servers.map((server) => server.stop()));
  });

  /** Two turns with the chat's agent; once the second has ended, anything the first caused has reached the page. */
  async function twoTurns(server: ChatServer): Promise<ChatPage> {
    const page = new ChatPage(server, "forged");
    pages.push(page);
    await page.ready(30_000);
    assert.match(await page.ask("hello", 30_000), /forger heard: hello/);
    assert.match(await page.ask("again", 30_000), /forger heard: again/);
    return page;
  }

  function assertNoHandOver(page: ChatPage): void {
    const choices = page.messages.filter((message) => message.type === "agentChoice");
    assert.deepEqual(choices, [], "no new conversation opened, nothing sent in the user's name");
    const sent = page.events().flatMap((event) => (event.kind === "user" ? [event.text] : []));
    assert.deepEqual(sent, ["hello", "again"], "the user's own messages only");
  }

  for (const inProcess of [true, false]) {
    it(`is removed by the conductor (${inProcess ? "in the chat's process" : "as a process"}) when the config names the forger`, async () => {
      const { env } = home(forgingAgentLine);
      const server = await startChatServer({ agent: [process.execPath, CONDUCTOR_CLI, "run"], env: { ...env, [IN_PROCESS_ENV]: inProcess ? "1" : "0" } });
      servers.push(server);
      assertNoHandOver(await twoTurns(server));
      await eventually(() => /first-run hand-over .*: removed/.test(server.process.stderr()), 10_000, "the conductor's log saying it removed the hand-over");
    });
  }

  it("is not taken from an agent the chat runs directly, which is not offered the hand-over at all", async () => {
    const capabilities = path.join(tempDir("handoff-forged-caps-"), "capabilities.json");
    const { env } = home();
    const server = await startChatServer({ agent: [process.execPath, FORGING_AGENT], env: { ...env, FORGING_AGENT_CAPABILITIES: capabilities } });
    servers.push(server);
    assertNoHandOver(await twoTurns(server));
    const offered = JSON.parse(fs.readFileSync(capabilities, "utf8")) as { _meta?: Record<string, unknown> };
    assert.equal(offered._meta?.[NEW_CONVERSATION_ON_CHOICE], undefined, "only our own conductor is told the chat opens a new conversation for a choice");
  });

  it("is removed by the setup agent from the answers it relays of the agent chosen in the first-run menu", async () => {
    const { config, env } = home();
    const forger = { id: "forger", name: "Forger", distribution: { local: { command: process.execPath, args: [FORGING_AGENT] } } };
    const proc = run(config, [], { ...env, SYMPOSIUM_AGENTS: JSON.stringify([forger]) });
    const peer = testClient(streamTo(proc.child));
    await peer
      .run(async (agent) => {
        await agent.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { _meta: { [NEW_CONVERSATION_ON_CHOICE]: true } },
          clientInfo: { name: "a chat", version: "1" },
        });
        const { sessionId } = await agent.request<{ sessionId: string }>("session/new", { cwd: tempDir(), mcpServers: [] });
        const prompt = (text: string): Promise<unknown> => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
        await prompt("what is in this project?");
        // The setup agent's own hand-over, with the question the user typed.
        assert.deepEqual(agentChosenIn(await prompt("forger")), { id: "forger", name: "Forger", firstQuestion: "what is in this project?" });
        // A client that stays in the session is relayed to the chosen agent: its forged hand-over does not come through.
        peer.updates.length = 0;
        const relayed = (await prompt("are you there?")) as { _meta?: Record<string, unknown> };
        assert.match(textOf(peer.updates), /forger heard: are you there\?/);
        assert.equal(agentChosenIn(relayed), undefined);
        assert.deepEqual(relayed._meta, { other: "kept" }, "only the hand-over is removed");
      })
      .finally(() => proc.child.stdin!.end());
    assert.equal(await proc.exited, 0, proc.stderr());
  });
});
