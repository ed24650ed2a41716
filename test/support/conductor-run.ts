// Helpers for the tests of `symposium-conductor run` (test/process/conductor-run*.test.ts):
// starting `run` against a config path, talking to it through the SDK's client
// app or acpx, and stand-ins for the menu's Kiro CLI put on PATH.

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { openSession, testClient, type AgentCalls, type TestClient } from "./acp-client.js";
import { CONDUCTOR_CLI, REPO_DIR, REPORTING_AGENT, startNode, streamTo, tempDir, type RunningProcess } from "./processes.js";

export const node = process.execPath;
export const POSIX = process.platform !== "win32";
const ACPX = path.join(REPO_DIR, "node_modules", ".bin", "acpx");
export const QUESTION = "hello, can you help me with my code?";

export function run(configPath: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): RunningProcess {
  return startNode(CONDUCTOR_CLI, ["run", ...args], { SYMPOSIUM_CONFIG: configPath, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "", ...env });
}

export function textOf(updates: SessionNotification[]): string {
  return updates.map(({ update }) => (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : "")).join("");
}

/** Sends each text as a prompt in `sessionId`, one after another; the agent's streamed reply to each. */
export async function promptEach(agent: AgentCalls, peer: TestClient, sessionId: string, texts: string[]): Promise<string[]> {
  const replies: string[] = [];
  for (const text of texts) {
    peer.updates.length = 0;
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    replies.push(textOf(peer.updates));
  }
  return replies;
}

export interface Turn {
  reply: string;
  error?: { code: number; message: string; data?: unknown };
  sessionIds: Set<string>;
}

/** Sends each text as a prompt in one session; returns each turn's streamed reply (and error, if it failed). */
export async function converse(proc: RunningProcess, texts: string[]): Promise<{ sessionId: string; turns: Turn[] }> {
  const peer = testClient(streamTo(proc.child));
  const turns: Turn[] = [];
  let sessionId = "";
  await peer.run(async (agent) => {
    sessionId = await openSession(agent);
    for (const text of texts) {
      peer.updates.length = 0;
      const turn: Turn = { reply: "", sessionIds: new Set() };
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }).catch((error: Turn["error"]) => (turn.error = error));
      turn.reply = textOf(peer.updates);
      peer.updates.forEach((update) => turn.sessionIds.add(update.sessionId));
      turns.push(turn);
    }
  });
  proc.child.stdin!.end();
  assert.equal(await proc.exited, 0, proc.stderr());
  return { sessionId, turns };
}

/** A program named `kiro-cli-chat`, what the menu's Kiro CLI runs, with this shell script as its body. */
export function kiroOnPath(body: string): NodeJS.ProcessEnv {
  const bin = tempDir();
  fs.writeFileSync(path.join(bin, "kiro-cli-chat"), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
}

/** A Kiro CLI that complains on stderr and exits 3. */
export const failingKiro = () => kiroOnPath(`echo "kiro: starting" >&2\necho "kiro: you are not logged in; run kiro-cli login" >&2\nexit 3`);
/** A Kiro CLI that is the tests' reporting agent: it shows what reached it and asks the client things. */
export const reportingKiro = () => kiroOnPath(`exec "${node}" "${REPORTING_AGENT}"`);

export async function acpx(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const { stdout } = await promisify(execFile)(ACPX, ["--approve-all", ...args], { ...options, env: { ...process.env, ...options.env }, timeout: 60_000 });
  return stdout;
}

/** The text of every agent_message_chunk in acpx's `--format json` output. */
export function acpxReply(stdout: string): string {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { method?: string; params?: { update?: { sessionUpdate?: string; content?: { text?: string } } } })
    .filter((message) => message.method === "session/update" && message.params?.update?.sessionUpdate === "agent_message_chunk")
    .map((message) => message.params!.update!.content!.text ?? "")
    .join("");
}

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
