// The agents as VS Code language models (symposium.enableExperimentalLM), in a
// real code-server with the packaged extension. On the newest VS Code, a
// consumer extension (test/fixtures/lm-consumer with the bundled
// test/extension-host/lm-consumer.ts, packaged by vsce and installed like any
// other) selects the "symposium" models and talks to the fixture agent (test/fixtures/lm-agent.ts): streaming, history continuation,
// a replaced history (cancel + new session), cancellation, a tool round trip, the agent's own action confirmed
// through Symposium's agent-action tool,
// the editor-context block once per prompt, a refused tool, a dying agent, a
// 1,000-message history. On the oldest (VS Code 1.99, no provider API) the
// setting says why it does nothing.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import {
  copySampleWorkspace,
  e2eSkipReason,
  installExtensionFolder,
  launchBrowser,
  openWorkbench,
  skipUnlessCI,
  startCodeServer,
  vsCodeTarget,
  type CodeServer,
} from "../harness/code-server.js";
import { OUT_DIR, REPO_DIR, eventually, isAlive, tempDir } from "../support/processes.js";
import { setUserSettings } from "./panel-helpers.js";

const CONSUMER_SUITE = path.join(OUT_DIR, "extension-host", "lm-consumer.cjs");
const CONSUMER_EXTENSION = path.join(REPO_DIR, "test", "fixtures", "lm-consumer");
const LM_AGENT = path.join(OUT_DIR, "test", "fixtures", "lm-agent.js");
const target = vsCodeTarget();
const hasProviderApi = target.name !== "oldest";
const skip = e2eSkipReason() || skipUnlessCI(fs.existsSync(CONSUMER_SUITE) ? false : "the language model consumer suite is not built (npm run build)");

const FIXTURE_AGENT = {
  id: "lm-fixture",
  name: "LM fixture agent",
  distribution: { local: { command: process.execPath, args: [LM_AGENT] } },
};

interface AgentEvent {
  pid: number;
  event: string;
  sessionId: string;
  text?: string;
}

interface TextReply {
  text: string;
  error?: string;
}

interface Summary {
  failed?: string;
  models: Array<{ id: string; name: string }>;
  stream: TextReply & { parts: number };
  continued: TextReply;
  tokens: number;
  replaced: TextReply & { slow: string; slowError?: string };
  cancelled: TextReply;
  toolCall: TextReply & { calls: Array<{ callId: string; name: string; input: object }> };
  toolResult?: TextReply;
  agentAction: TextReply & { calls: Array<{ callId: string; name: string; input: object }> };
  agentActionResult?: TextReply;
  refusedTool: TextReply;
  died: TextReply;
  longHistory: TextReply;
}

/**
 * The consumer extension as a user would have it: test/fixtures/lm-consumer's manifest and the
 * bundled suite as its extension.cjs, packaged by vsce and installed into the profile `root`.
 */
function installConsumer(root: string): void {
  const folder = path.join(root, "lm-consumer");
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(CONSUMER_EXTENSION, "package.json"), path.join(folder, "package.json"));
  fs.copyFileSync(CONSUMER_SUITE, path.join(folder, "extension.cjs"));
  installExtensionFolder(root, folder);
}

async function start(agentLog: string, summaryFile: string): Promise<{ server: CodeServer; browser: Browser }> {
  const root = tempDir("symposium-lm-e2e-");
  // No network for the registry (its shipped snapshot), and a config file of the test's own.
  Object.assign(process.env, {
    SYMPOSIUM_REGISTRY_URL: "",
    SYMPOSIUM_CONFIG: path.join(root, "config.jsonc"),
    LM_AGENT_LOG: agentLog,
    LM_CONSUMER_SUMMARY: summaryFile,
  });
  if (hasProviderApi) installConsumer(root);
  const server = await startCodeServer(copySampleWorkspace(path.join(root, "workspace")), { root });
  const settings = { "symposium.enableExperimentalLM": true, "symposium.agents": [FIXTURE_AGENT] };
  setUserSettings(server, settings);
  // symposium.agents is machine-scoped: in code-server's remote window the machine's settings hold it.
  fs.mkdirSync(path.join(server.userDataDir, "Machine"), { recursive: true });
  fs.writeFileSync(path.join(server.userDataDir, "Machine", "settings.json"), JSON.stringify(settings, null, 2));
  return { server, browser: await launchBrowser() };
}

const sessionOf = (text: string) => /session=(\S+)/.exec(text)?.[1];

describe(`agents as language models on VS Code ${target.vscode} (${target.name})`, { skip, timeout: 600_000 }, () => {
  const logs = tempDir("symposium-lm-log-");
  const agentLog = path.join(logs, "agent.jsonl");
  const summaryFile = path.join(logs, "consumer-summary.json");
  let server: CodeServer | undefined;
  let browser: Browser | undefined;

  before(async () => {
    ({ server, browser } = await start(agentLog, summaryFile));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const agentEvents = (): AgentEvent[] =>
    fs.existsSync(agentLog)
      ? fs
          .readFileSync(agentLog, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as AgentEvent)
      : [];

  // One test per VS Code, none skipped: the runner counts a skip in the end-to-end phase as a failure under CI.
  if (!hasProviderApi)
    it("says why the setting does nothing: this VS Code has no language model provider API", async () => {
      const page = await openWorkbench(browser!, server!);
      await page
        .getByText(/has no (usable )?language model provider API.*\(it came with VS Code 1\.104\)/)
        .first()
        .waitFor({ timeout: 60_000 });
    });
  else
    it("a consumer extension streams, continues, replaces, cancels and calls a tool through the agent; errors are clear", async () => {
      // The workbench starts the extension host; the consumer runs on activation and leaves its summary.
      const page = await openWorkbench(browser!, server!);
      // VS Code asks before it runs the agent-action tool, as it does for any tool with a confirmation: the user says Yes.
      const confirmed = (async () => {
        const dialog = page.locator(".monaco-dialog-box", { hasText: "Allow the agent's action once?" });
        await dialog.waitFor({ timeout: 240_000 });
        const shown = await dialog.innerText();
        await dialog.getByRole("button", { name: "Yes" }).click();
        return shown;
      })();
      confirmed.catch(() => {}); // reported below, once the summary is in
      const stepFile = `${summaryFile}.step`;
      await eventually(
        () => fs.existsSync(summaryFile),
        240_000,
        `the consumer's summary (its last step: ${fs.existsSync(stepFile) ? fs.readFileSync(stepFile, "utf8") : "none"})`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; at the end: ${fs.existsSync(stepFile) ? fs.readFileSync(stepFile, "utf8") : "no step"}\n${server!.log()}`);
      });
      const result = JSON.parse(fs.readFileSync(summaryFile, "utf8")) as Summary;
      assert.equal(result.failed, undefined, result.failed);

      const names = result.models.map((model) => model.name).join(" | ");
      for (const name of ["LM fixture agent", "Built-in demo agent", "Claude", "Gemini CLI"]) assert.match(names, new RegExp(name), names);

      // Streaming, in parts, with the editor-context block exactly once.
      assert.ok(result.stream.parts >= 6, `streamed in parts: ${result.stream.parts}`);
      assert.match(result.stream.text, /^session=\S+ prompt=1 contexts=1 replayed=no\nchunk-1 chunk-2 chunk-3 chunk-4 chunk-5 $/);
      // The same ACP session, sent only the new message.
      assert.equal(sessionOf(result.continued.text), sessionOf(result.stream.text));
      assert.match(result.continued.text, /prompt=2 contexts=1 replayed=no\nyou said: and again$/);
      assert.equal(result.tokens, 3, "12 characters: 3 tokens");

      // A rewritten history: the streaming turn was cancelled, a new session replays the conversation.
      assert.match(result.replaced.slow, /tick-1/);
      assert.match(result.replaced.slowError ?? "", /a newer request to this model replaced this one/);
      assert.match(result.replaced.text, /prompt=1 contexts=1 replayed=yes\nyou said: edited$/);
      assert.notEqual(sessionOf(result.replaced.text), sessionOf(result.stream.text));
      const events = agentEvents();
      assert.ok(
        events.some((event) => event.event === "cancel" && event.sessionId === sessionOf(result.replaced.slow)),
        "session/cancel reached the agent",
      );
      assert.ok(
        events.some((event) => event.event === "cancel" && event.sessionId === sessionOf(result.cancelled.text)),
        "the consumer's cancellation reached the agent",
      );
      assert.deepEqual(
        events.filter((event) => event.event === "prompt" && event.sessionId === sessionOf(result.stream.text)).map((event) => event.text),
        ["hello stream:5", "and again", "go slow"],
      );

      // The tool round trip.
      assert.equal(result.toolCall.error, undefined, result.toolCall.error);
      assert.deepEqual(
        result.toolCall.calls.map(({ name, input }) => ({ name, input })),
        [{ name: "echo", input: { x: 1 } }],
      );
      assert.deepEqual(result.toolResult, { text: "tool said: pong from the consumer" });

      // The agent's own action: a call of the agent-action tool, which VS Code runs; its result allows the action once.
      assert.equal(result.agentAction.error, undefined, result.agentAction.error);
      assert.deepEqual(
        result.agentAction.calls.map(({ name, input }) => ({ name, input })),
        [{ name: "symposium-agent-action", input: { title: "make test", kind: "execute", paths: ["/project/Makefile"] } }],
      );
      assert.match(await confirmed, /The agent asks to run: make test[\s\S]*Files: \/project\/Makefile/);
      assert.deepEqual(result.agentActionResult, { text: "permission: allow" });

      // Bad input: clear errors, and the model works again after each.
      assert.match(result.refusedTool.error ?? "", /could not start a session: .*cannot use the tool 'reject-me'/);
      assert.match(result.died.text, /dying/);
      assert.match(result.died.error ?? "", /LM fixture agent: .*exited with code 3/);
      assert.match(result.longHistory.text, /contexts=1 replayed=yes\nyou said: the end$/);

      await browser!.close();
      await server!.stop();
      browser = server = undefined;
      for (const pid of new Set(agentEvents().map((event) => event.pid))) await eventually(() => !isAlive(pid), 5_000, `agent ${pid} to end`);
    });
});
