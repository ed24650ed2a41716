// One turn of a real agent behind our conductor, against the scripted model
// (test/fixtures/scripted-model/), for test/interop/interop-agent-turns.test.ts:
// the model, the agent's command line, a state file the agents' user can
// read (kept fresh as the window's tracker keeps it), the conductor with its
// checkpoint store in a folder of the test's, and an ACP client that answers
// permission requests by allowing once.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import { client, type RequestPermissionRequest, type SessionNotification } from "@agentclientprotocol/sdk";
import { quote } from "shell-quote";
import { NOTICES_META_KEY } from "../../conductor-hooks/src/tools-not-started.js";
import { ChannelServer, channelSecret, type ChannelHandler } from "../../editor-tools/src/channel-server.js";
import { startScriptedModel, type RecordedRequest, type Script, type ScriptedModel } from "../fixtures/scripted-model/index.js";
import { CONDUCTOR_CLI, eventually, startNode, streamTo, tempDir, withStderrOnFailure, type RunningProcess } from "../support/processes.js";
import { agentOwnedDir, agentReadablePrograms, giveToAgentUser, type AgentAdapter } from "./adapters.js";
import { agentTurnsDir, scriptedAgentCommand } from "./scripted-agents.js";

export interface Turn {
  model: ScriptedModel;
  stopReason: string;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** The agent's answer text as the client received it. */
  answer: string;
  conductor: RunningProcess;
  /** The notices our conductor put in the prompt answer's `_meta` (conductor-hooks/src/tools-not-started.ts). */
  notices: unknown[];
  /** `symposium-conductor checkpoints <args>` with the turn's store. */
  checkpoints(args: string[]): Promise<{ status: number; stdout: string; stderr: string }>;
}

export interface TurnOptions {
  prompt: string;
  projectDir: string;
  /** The state file's contents (the editor's facts); written where the agents' user can read it. */
  state: Record<string, unknown>;
  /**
   * Text the answer must hold: the turn waits for it while the connection is open, since OpenCode
   * may answer session/prompt before its last agent_message_chunk (the chat shows such late text).
   */
  answer?: string;
  /** Variables for the agent that win over those pointing it at the model (an untrusted folder for Gemini CLI). */
  agentEnv?: Record<string, string>;
  /** Variables for the conductor (the user's MCP servers, $SYMPOSIUM_MCP_SERVERS). */
  conductorEnv?: Record<string, string>;
}

/** The agents' user's project: a folder it owns, with src/main.ts. */
export function agentProject(setup: { dir: string }): string {
  const dir = agentOwnedDir("project-", agentTurnsDir(setup));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src", "main.ts"), "export const answer = 42;\n");
  giveToAgentUser(dir);
  return dir;
}

/**
 * Writes the state file now and again every few seconds while the test runs: the reader
 * skips a file older than 30 s (docs/state-file.md), and a turn under load can take longer.
 */
function keepStateFresh(t: TestContext, setup: { dir: string }, state: Record<string, unknown>): string {
  const dir = agentOwnedDir("state-", agentTurnsDir(setup));
  const file = path.join(dir, "editor-state.json");
  const write = (): void => {
    fs.writeFileSync(file + ".tmp", JSON.stringify({ version: 1, ...state }), { mode: 0o644 });
    fs.renameSync(file + ".tmp", file);
  };
  write();
  const timer = setInterval(write, 5_000);
  t.after(() => clearInterval(timer));
  return file;
}

/** Runs one prompt of `adapter` against a model playing `script`; the conductor is stopped when the test ends. */
export async function runTurn(
  t: TestContext,
  setup: { dir: string; prefix: string[] },
  adapter: AgentAdapter,
  script: Script,
  options: TurnOptions,
): Promise<Turn> {
  const model = await startScriptedModel(script);
  t.after(() => model.close());
  const store = tempDir("symposium-agent-turn-store-");
  const env = {
    SYMPOSIUM_EDITOR_STATE_FILE: keepStateFresh(t, setup, options.state),
    SYMPOSIUM_CONFIG: path.join(store, "config.jsonc"),
    SYMPOSIUM_CHECKPOINTS_DIR: path.join(store, "checkpoints"),
    // The snapshot's time budget is for users' big projects; a loaded CI machine must not skip this small one.
    SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "120000",
    ...options.conductorEnv,
  };
  const conductor = startNode(agentReadablePrograms().conductor, ["agent", quote(scriptedAgentCommand(setup, adapter, model.url, options.agentEnv))], env, {
    cwd: options.projectDir,
  });
  // Waits for the exit, so the folders are removed after the agent (which the conductor stops) wrote its last.
  t.after(async () => {
    conductor.child.kill();
    await conductor.exited;
  });
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const app = client()
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const allow = params.options.find((option) => option.kind === "allow_once") ?? params.options.find((option) => option.kind.startsWith("allow"));
      return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
    });
  let notices: unknown[] = [];
  const stopReason = await withStderrOnFailure(
    conductor,
    () =>
      app.connectWith(streamTo(conductor.child), async (context) => {
        // No fs or terminal capabilities: the agents write the disk with their own tools, as the issue's run did.
        await context.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "symposium-tests", version: "0.0.0" } });
        const { sessionId } = await context.request<{ sessionId: string }>("session/new", { cwd: options.projectDir, mcpServers: [] });
        const answer = await context.request<{ stopReason: string; _meta?: Record<string, unknown> }>("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: options.prompt }],
        });
        const answerNotices = answer._meta?.[NOTICES_META_KEY];
        if (Array.isArray(answerNotices)) notices = answerNotices;
        const expected = options.answer;
        if (expected !== undefined) await eventually(() => answerText(updates).includes(expected), 30_000, `the answer's text "${expected}"`);
        return answer.stopReason;
      }),
    60,
  ).catch((error: Error) => {
    error.message += `\n--- the scripted model's requests:\n${describeRequests(model.requests)}`;
    throw error;
  });
  const checkpoints = async (args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [CONDUCTOR_CLI, "checkpoints", ...args], {
        cwd: options.projectDir,
        env: { ...process.env, ...env },
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  return { model, stopReason, updates, permissions, answer: answerText(updates), conductor, notices, checkpoints };
}

/** The agent_message_chunk texts, joined. */
export function answerText(updates: SessionNotification[]): string {
  return updates.map(({ update }) => (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : "")).join("");
}

/** One line per request: what a failing test shows of the model's side. */
export function describeRequests(requests: RecordedRequest[]): string {
  return requests
    .map((request) => {
      const tools = request.read ? ` tools=[${request.read.tools.map((tool) => (tool.namespace ? `${tool.namespace}.` : "") + tool.name).join(",")}]` : "";
      const results = request.read ? ` results=${request.read.results.length}` : "";
      return `${request.method} ${request.path}${request.scripted ? " (scripted)" : ""}${tools}${results}${request.error ? ` ERROR ${request.error}` : ""}`;
    })
    .join("\n");
}

/** Times `marker` appears in the request's body as sent. */
export function occurrences(request: RecordedRequest, marker: string): number {
  return JSON.stringify(request.body).split(marker).length - 1;
}

/**
 * The window's real channel server, `handlers` standing in for VS Code, on a socket the agents'
 * user may connect to (the channel's own check is the secret); `state` is what the state file says of it.
 */
export async function windowStandIn(
  t: TestContext,
  setup: { dir: string },
  projectDir: string,
  handlers: Record<string, ChannelHandler>,
): Promise<{ state: Record<string, unknown> }> {
  const dir = agentOwnedDir("window-", agentTurnsDir(setup));
  const socket = path.join(dir, "tools.sock");
  const secret = channelSecret();
  const server = new ChannelServer({
    address: socket,
    secret,
    handlers,
    identity: () => ({ pid: process.pid, workspaceFolders: [projectDir] }),
    log: () => {},
  });
  await server.listen();
  // The server makes its socket 0600, for the window's own user: the agents run as another.
  fs.chmodSync(socket, 0o666);
  t.after(() => server.close());
  return { state: { editorTools: { enabled: true, socket, secret } } };
}
