// The `_meta` keys the conductor writes for the chat (its notices, its MCP
// servers report) are shown in Symposium's own voice, so no agent may write
// them (conductor-hooks/src/setup-handoff.ts, agentMetaGuard). A hostile agent
// (test/fixtures/forging-notices-agent.ts) writes them into every answer:
// through the real conductor, as a process and in the real chat's process,
// none of its text reaches the client, while the conductor's own notice (the
// agent never starts the editor's tools) and the agent's other keys do.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { quote } from "shell-quote";
import { MCP_SERVERS_META } from "../../../conductor-hooks/src/mcp-servers.js";
import { NOTICES_META_KEY } from "../../../conductor-hooks/src/tools-not-started.js";
import { IN_PROCESS_ENV } from "../../../webchat/src/agent-process.js";
import { testClient } from "../../support/acp-client.js";
import { ChatPage } from "../../support/chat-page.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, startNode, streamTo, tempDir } from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const FORGING_AGENT = path.join(OUT_DIR, "test", "fixtures", "forging-notices-agent.js");
/** In every text the forger writes. */
const FORGED = /evil\.example/;
const CONDUCTOR_NOTICE = "The agent did not start the editor's tools";

type Meta = Record<string, unknown> | undefined;

describe("the conductor's own _meta keys, forged by an agent", () => {
  it("are removed from the agent's answers; the conductor's notice and the agent's other keys reach the client", async () => {
    const proc = startNode(CONDUCTOR_CLI, ["agent", quote([process.execPath, FORGING_AGENT])], {
      SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE),
      SYMPOSIUM_CONFIG: path.join(tempDir(), "none.jsonc"),
      SYMPOSIUM_MCP_SERVERS: "",
    });
    try {
      const metas = await testClient(streamTo(proc.child)).run(async (agent) => {
        await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "t", version: "0" } });
        const session = await agent.request<{ sessionId: string; _meta?: Meta }>("session/new", { cwd: tempDir(), mcpServers: [] });
        const prompt = (text: string) => agent.request<{ _meta?: Meta }>("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] });
        return { session: session._meta, first: (await prompt("first"))._meta, second: (await prompt("second"))._meta };
      });
      assert.deepEqual(metas.session, { other: "kept" }, "the forged MCP servers report is gone, the agent's own key stays");
      assert.deepEqual(Object.keys(metas.first ?? {}).sort(), [NOTICES_META_KEY, "other"].sort());
      const notices = metas.first?.[NOTICES_META_KEY] as unknown[];
      assert.equal(notices.length, 1, "the conductor's notice alone");
      assert.ok(String(notices[0]).startsWith(CONDUCTOR_NOTICE), String(notices[0]));
      assert.deepEqual(metas.second, { other: "kept" });
      assert.doesNotMatch(JSON.stringify(metas), FORGED);
      assert.equal(MCP_SERVERS_META in (metas.session ?? {}), false);
    } finally {
      proc.child.stdin!.end();
      await proc.exited;
    }
    assert.match(proc.stderr(), /an answer of the agent carried symposium\/mcpServers in its _meta, which only this conductor writes: removed/);
    assert.match(proc.stderr(), /carried symposium\.dev\/notices, symposium\.dev\/anythingElse in its _meta/);
  });
});

describe("the built-in chat with an agent that forges the conductor's notices", () => {
  const servers: ChatServer[] = [];
  const pages: ChatPage[] = [];
  after(async () => {
    await Promise.all(pages.map((page) => page.close()));
    await Promise.all(servers.map((server) => server.stop()));
  });

  for (const inProcess of [true, false]) {
    it(`shows none of its text as Symposium's (the conductor ${inProcess ? "in the chat's process" : "as a process"})`, async () => {
      const home = tempDir("notices-forged-home-");
      const config = path.join(home, "config.jsonc");
      fs.writeFileSync(config, JSON.stringify({ agent: quote([process.execPath, FORGING_AGENT]) }), { mode: 0o600 });
      const server = await startChatServer({
        agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
        env: { HOME: home, SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE), SYMPOSIUM_MCP_SERVERS: "", [IN_PROCESS_ENV]: inProcess ? "1" : "0" },
      });
      servers.push(server);
      const page = new ChatPage(server, "forged-notices");
      pages.push(page);
      await page.ready(30_000);
      assert.match(await page.ask("hello", 30_000), /forger heard: hello/);
      assert.match(await page.ask("again", 30_000), /forger heard: again/);
      const notices = page.events().flatMap((event) => (event.kind === "notice" ? [event.message] : []));
      assert.equal(notices.filter((notice) => notice.startsWith(CONDUCTOR_NOTICE)).length, 1, `the conductor's own notice, once: ${JSON.stringify(notices)}`);
      assert.doesNotMatch(JSON.stringify(page.messages), FORGED, "nothing the forger wrote under the conductor's keys reaches the page");
      await eventually(
        () => server.process.stderr().includes("which only this conductor writes: removed"),
        10_000,
        "the conductor's log saying it removed them",
      );
    });
  }
});
