// An agent offered the editor's MCP server that never starts it (Gemini CLI
// in a folder it does not trust) is told about in the session's first prompt
// answer (docs/editor-tools.md, "An agent that never starts the tools"):
// through the real conductor, with a real ACP agent that starts the servers
// it was offered inside session/new, at the first prompt (as Codex does), or
// never; the real server announces itself when the agent initializes it.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { NOTICES_META_KEY } from "../../../conductor-hooks/src/tools-not-started.js";
import { testClient } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, OUT_DIR, startNode, streamTo, tempDir } from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const MCP_START_AGENT = path.join(OUT_DIR, "test", "fixtures", "mcp-start-agent.js");

interface PromptAnswer {
  stopReason: string;
  _meta?: Record<string, unknown>;
}

/** The notices of a session's first two prompt answers through the conductor, for an agent called `name` that starts its servers `when`. */
async function noticesOf(name: string, when: "new" | "prompt" | "never", env: NodeJS.ProcessEnv = {}): Promise<unknown[][]> {
  const stateFile = writeStateFile(SEED_STATE);
  const proc = startNode(CONDUCTOR_CLI, ["agent", `${process.execPath} ${MCP_START_AGENT} ${name} ${when}`], {
    SYMPOSIUM_EDITOR_STATE_FILE: stateFile,
    SYMPOSIUM_CONFIG: path.join(tempDir(), "none.jsonc"),
    ...env,
  });
  try {
    return await testClient(streamTo(proc.child)).run(async (agent) => {
      await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "t", version: "0" } });
      const { sessionId } = await agent.request<{ sessionId: string }>("session/new", { cwd: tempDir(), mcpServers: [] });
      const answers: PromptAnswer[] = [];
      for (const text of ["first", "second"])
        answers.push(await agent.request<PromptAnswer>("session/prompt", { sessionId, prompt: [{ type: "text", text }] }));
      return answers.map((answer) => (answer._meta?.[NOTICES_META_KEY] as unknown[] | undefined) ?? []);
    });
  } finally {
    proc.child.stdin!.end();
    await proc.exited;
  }
}

describe("an agent that never starts the editor's tools", () => {
  it("Gemini CLI: the first prompt's answer says so, with Gemini's remedy (trust the folder); once", async () => {
    const [first, second] = await noticesOf("gemini-cli", "never");
    assert.equal(first!.length, 1);
    assert.match(String(first![0]), /Gemini CLI did not start the editor's tools/);
    assert.match(
      String(first![0]),
      /Trust this folder in Gemini CLI \(its \/permissions command, ~\/\.gemini\/trustedFolders\.json, or GEMINI_CLI_TRUST_WORKSPACE=true/,
    );
    assert.deepEqual(second, [], "said once per session");
  });

  it("another agent: a generic notice, without Gemini's advice", async () => {
    const [first] = await noticesOf("some-agent", "never");
    assert.equal(first!.length, 1);
    assert.match(String(first![0]), /^The agent did not start the editor's tools \(the symposium-editor MCP server it was offered\)/);
    assert.doesNotMatch(String(first![0]), /Gemini/);
  });

  it("an agent that starts the server in session/new, or at the first prompt (as Codex does): no notice", async () => {
    assert.deepEqual(await noticesOf("gemini-cli", "new"), [[], []]);
    assert.deepEqual(await noticesOf("codex-acp", "prompt"), [[], []]);
  });

  it("the conductor's own demo and setup agents, which use no tools: no notice", async () => {
    assert.deepEqual(await noticesOf("symposium-demo-agent", "never"), [[], []]);
    assert.deepEqual(await noticesOf("symposium-configuration", "never"), [[], []]);
  });
});

describe("the built-in chat shows the notice", { skip: chromiumSkipReason() }, () => {
  const suite = chatSuite();

  it("in Chromium, after the first turn with an agent that never starts the tools", async () => {
    const config = path.join(tempDir("not-started-config-"), "config.jsonc");
    fs.writeFileSync(config, JSON.stringify({ agent: quote([process.execPath, MCP_START_AGENT, "gemini-cli", "never"]) }), { mode: 0o600 });
    const server = await suite.serve({
      agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config],
      env: { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
    });
    const page = await openChatPage(suite.browser, server);
    await typePrompt(page, "hello");
    const notice = page.locator(".notice", { hasText: "did not start the editor's tools" });
    await notice.waitFor({ timeout: 10_000 });
    assert.match(await notice.innerText(), /^Gemini CLI did not start the editor's tools .*Trust this folder in Gemini CLI/s);
  });
});
