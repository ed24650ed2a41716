// Starting the real symposium-webchat (the bundle the .vsix ships) for tests,
// with the chat-agent fixture, and checking the agent processes it starts.

import * as fs from "node:fs";
import * as path from "node:path";
import { quote } from "shell-quote";
import { OUT_DIR, REPO_DIR, eventually, isAlive, startNode, tempDir, type RunningProcess } from "./processes.js";

export const WEBCHAT_CLI = path.join(REPO_DIR, "dist", "symposium-webchat.mjs");
export const CHAT_AGENT = path.join(OUT_DIR, "test", "fixtures", "chat-agent.js");
/** The fixture agent as a shell command line, as a user would write it for Toad. */
export const CHAT_AGENT_COMMAND = quote([process.execPath, CHAT_AGENT]);

export interface ChatServer {
  process: RunningProcess;
  /** The URL printed on stderr, with its secret. */
  url: URL;
  origin: string;
  token: string;
  projectDir: string;
  /** Where each agent the server starts leaves its pid. */
  pidsDir: string;
  agentPids(): number[];
  stop(): Promise<void>;
}

export interface ChatServerOptions {
  /** The agent as a command line for the shell (Toad's way); default: the chat-agent fixture. */
  command?: string;
  /** The agent as a program and its arguments, run without a shell (the extension's way; our conductor is recognised only so). */
  agent?: readonly string[];
  env?: NodeJS.ProcessEnv;
  projectDir?: string;
  extraArgs?: string[];
}

export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const projectDir = options.projectDir ?? tempDir("webchat-project-");
  const pidsDir = tempDir("webchat-pids-");
  const running = startNode(
    WEBCHAT_CLI,
    ["acp", ...agentArgs(options), "--serve", "--port", "0", "--host", "127.0.0.1", "--project-dir", projectDir, ...(options.extraArgs ?? [])],
    { CHAT_AGENT_PIDS: pidsDir, SYMPOSIUM_CHAT_TOKEN: "", ...options.env },
  );
  await eventually(() => /^http:\/\/\S+$/m.test(running.stderr()) || running.child.exitCode !== null, 10_000, "the server's URL on stderr");
  const line = /^(http:\/\/\S+)$/m.exec(running.stderr());
  if (!line) throw new Error(`the chat server did not start:\n${running.stderr()}`);
  const url = new URL(line[1]!);
  return {
    process: running,
    url,
    origin: url.origin,
    token: url.searchParams.get("token")!,
    projectDir,
    pidsDir,
    agentPids: () => fs.readdirSync(pidsDir).map(Number),
    stop: async () => {
      if (running.child.exitCode === null) running.child.kill("SIGTERM");
      await running.exited;
    },
  };
}

/** `--agent-program=P --agent-arg=A…` for `agent`, else the command line. */
export function agentArgs(options: Pick<ChatServerOptions, "command" | "agent">): string[] {
  if (options.agent === undefined) return [options.command ?? CHAT_AGENT_COMMAND];
  const [program, ...args] = options.agent;
  return [`--agent-program=${program}`, ...args.map((arg) => `--agent-arg=${arg}`)];
}

/** Waits until none of `pids` is alive; fails after `timeoutMs`. */
export async function allGone(pids: number[], timeoutMs: number): Promise<void> {
  await eventually(() => pids.every((pid) => !isAlive(pid)), timeoutMs, `agent processes ${pids.join(", ")} to end`);
}
