// The published agent adapters from npm (scripts/install-agent-adapters.sh),
// as the first-run menu offers them, behind our conductor with the
// editor-context proxy in process, with no credentials and no network to the
// model: initialize is answered with the agent's authMethods; what cannot work
// logged out is answered with an error that names the agent and says what to
// do, in the conductor's answer and in the built-in chat. The agents run in a
// project folder made for the test (interop/adapters.ts), never the clone.

import { strict as assert } from "node:assert";
import { describe, it, type TestContext } from "node:test";
import { quote } from "shell-quote";
import { testClient } from "../support/acp-client.js";
import { eventually, startNode, streamTo, tempDir, withStderrOnFailure, type RunningProcess } from "../support/processes.js";
import { SEED_STATE, writeStateFile } from "../support/state-files.js";
import { startChatServer } from "../support/webchat-server.js";
import {
  ADAPTERS,
  RECORDED_INITIALIZE,
  adapterCommand,
  adapterSetup,
  agentProjectDir,
  agentReadablePrograms,
  capabilityPaths,
  isRoot,
  type Adapter,
} from "./adapters.js";
import { CLIENT_CAPABILITIES } from "../../webchat/src/client-capabilities.js";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { ChatSocket } from "./chat-socket.js";
import { failIfMissing, skipOutsideCi } from "./rust-peers.js";
import { KNOWN_AGENTS } from "../../conductor-hooks/src/agent-choices.js";
import type { ServerMessage } from "../../webchat/page/protocol.js";

const setup = adapterSetup();
const missing = "missing" in setup ? setup.missing : false;

/** What each adapter was found to do logged out (docs/interop.md): which request needs a login first. */
const LOGGED_OUT: Record<Adapter["shortName"], { refuses: "session/new" | "session/prompt"; methods: RegExp }> = {
  claude: { refuses: "session/prompt", methods: /\/login/ },
  codex: { refuses: "session/new", methods: /Login with ChatGPT.*CODEX_API_KEY/ },
  gemini: { refuses: "session/new", methods: /Log in with Google/ },
};

function conductorArgs(adapter: Adapter): string[] {
  if ("missing" in setup) throw new Error(setup.missing);
  return ["agent", quote(adapterCommand(setup, adapter))];
}

/** What the chat shows when a conversation ended: its message and the last lines it kept. */
function endedText(message: ServerMessage): string[] {
  if (message.type !== "session" || message.session.ended === undefined) return [];
  return [message.session.ended.message, ...message.session.ended.stderrTail];
}

/** The error the user is shown must say which agent and what to do: never a bare "Internal error". */
function assertExplained(message: string, adapter: Adapter): void {
  assert.doesNotMatch(message, /^Internal error$/);
  assert.match(message, /^[^\n]+: agent '[^']+' is not logged in\. To fix: /, message);
  assert.ok(
    message.includes(KNOWN_AGENTS.find((agent) => agent.shortName === adapter.shortName)!.login!),
    `the menu's login hint for ${adapter.shortName}: ${message}`,
  );
  assert.match(message, LOGGED_OUT[adapter.shortName].methods);
}

describe("the published agent adapters behind our conductor, logged out", { skip: skipOutsideCi(missing) }, () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter.pkg}@${adapter.version}: initialize shows its authMethods; what needs a login says which agent and what to do`, async (t) => {
      failIfMissing(missing);
      const projectDir = agentProjectDir();
      const conductor = startNode(
        agentReadablePrograms().conductor,
        conductorArgs(adapter),
        { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
        { cwd: projectDir },
      );
      t.after(() => conductor.child.kill());
      const client = testClient(streamTo(conductor.child));
      // An adapter that exits at start: the failure shows what it wrote on stderr.
      const refusal = await withStderrOnFailure(conductor, () =>
        client.run(async (agent) => {
          const init = await agent.request<InitializeResponse & { authMethods: Array<{ id: string; name: string }> }>("initialize", {
            protocolVersion: 1,
            clientCapabilities: CLIENT_CAPABILITIES,
            clientInfo: { name: "symposium-tests", version: "0.0.0" },
          });
          assert.ok(Array.isArray(init.authMethods), `${adapter.pkg} answers initialize with authMethods`);
          // The recording the chat's capability test checks (test/unit/webchat/webchat-client-capabilities.test.ts) is this adapter's answer.
          const recorded = RECORDED_INITIALIZE[adapter.shortName];
          assert.deepEqual(
            capabilityPaths(init.agentCapabilities),
            capabilityPaths(recorded.agentCapabilities),
            `re-record test/interop/adapter-initialize.json`,
          );
          assert.deepEqual(
            init.authMethods.map((method) => method.id),
            (recorded.authMethods ?? []).map((method) => method.id),
          );
          process.stderr.write(
            `# ${adapter.pkg}: agentInfo ${JSON.stringify(init.agentInfo)}, authMethods ${JSON.stringify(init.authMethods.map((method) => method.id))}\n`,
          );
          const newSession = agent.request<{ sessionId: string }>("session/new", { cwd: projectDir, mcpServers: [] });
          if (LOGGED_OUT[adapter.shortName].refuses === "session/new")
            return newSession.then(
              () => assert.fail("session/new answered logged out"),
              (error: Error) => error,
            );
          const { sessionId } = await newSession;
          return agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }).then(
            () => assert.fail("a prompt was answered logged out"),
            (error: Error) => error,
          );
        }),
      );
      assertExplained(refusal.message, adapter);
      conductor.child.stdin!.end();
      await conductor.exited;
    });
  }

  async function chatWith(t: TestContext, shortName: Adapter["shortName"], projectDir: string): Promise<{ page: ChatSocket; chat: RunningProcess }> {
    const adapter = ADAPTERS.find((candidate) => candidate.shortName === shortName)!;
    const server = await startChatServer({
      agent: [process.execPath, agentReadablePrograms().conductor, ...conductorArgs(adapter)],
      env: { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
      projectDir,
    });
    t.after(() => server.stop());
    const page = new ChatSocket(server);
    t.after(() => page.close());
    await page.opened;
    return { page, chat: server.process };
  }

  it("the built-in chat shows which agent failed and what to do", async (t) => {
    failIfMissing(missing);
    const { page, chat } = await chatWith(t, "claude", agentProjectDir());
    await withStderrOnFailure(chat, () => page.ready(30_000));
    page.send("hello");
    // The chat shows our explanation as an error, or (when the agent offers sign-in methods) a sign-in card with them.
    await withStderrOnFailure(chat, () =>
      eventually(() => page.errors().length > 0 || page.signIns().length > 0, 30_000, "the chat to show why the prompt failed"),
    );
    const [error] = page.errors();
    const [signIn] = page.signIns();
    if (signIn !== undefined) {
      assert.ok(signIn.methods.length > 0 || signIn.message.includes("agent 'Claude Agent' is not logged in. To fix: run `claude`"), JSON.stringify(signIn));
    } else {
      assert.match(
        error!,
        /^The prompt failed: Authentication required: agent 'Claude Agent' is not logged in\. To fix: run `claude` in a terminal and log in with \/login/,
      );
    }
  });

  it(
    'an adapter\'s bare "Internal error" reaches the chat with what it wrote on stderr',
    { skip: !isRoot() && "needs a project folder the agent's user cannot enter: runs as root only" },
    async (t) => {
      failIfMissing(missing);
      // A project folder only root may enter: the adapter's Claude Code cannot start there, and says so on stderr only.
      const { page } = await chatWith(t, "claude", tempDir("symposium-project-"));
      // The conversation ends saying why (a failure to start is never a chat stuck in "starting").
      await eventually(() => page.endedMessage() !== undefined, 30_000, "the chat to say why the agent did not start");
      const error = page.endedMessage();
      assert.doesNotMatch(error!, /Internal error$/);
      assert.match(error!, /^The agent did not start a session: Internal error: agent 'Claude Agent' wrote on stderr: .*EACCES/);
    },
  );

  it(
    "an adapter that exits at start: the chat says why, in the adapter's own words from its stderr",
    { skip: !isRoot() && "needs a project folder the agent's user cannot enter: runs as root only" },
    async (t) => {
      failIfMissing(missing);
      // Gemini CLI reads its working folder at start: in one only root may enter, it exits with a stack trace.
      const { page, chat } = await chatWith(t, "gemini", tempDir("symposium-project-"));
      // However the chat says it (an error, or the conversation ended with the agent's last lines), the cause is in it.
      const shown = (): string => [...page.errors(), ...page.messages.flatMap(endedText)].join("\n");
      await withStderrOnFailure(chat, () => eventually(() => shown() !== "", 30_000, "the chat to say the agent failed"));
      assert.match(shown(), /exited with code 1: An unexpected critical error occurred:Error: EACCES: permission denied, lstat '[^']*symposium-project-/);
    },
  );
});
