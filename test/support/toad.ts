// The real Toad for tests: the launcher scripts/install-toad.sh writes, the
// skip when it is absent (a failure under CI), and a panel host running it
// with our conductor and a recording agent behind it.

import { toadArgs } from "../../extension/src/panel/frontend-command-line.js";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { skipUnlessCI } from "../harness/code-server.js";
import { FAKE_TOAD, startTestHost, waitForFrontend, type TestHost } from "./panel-host.js";
import type { FileRecord } from "../fixtures/toad-unsaved-agent.js";
import { CONDUCTOR_CLI, OUT_DIR, descendants, tempDir } from "./processes.js";

/** A line test/fixtures/toad-recording-agent.ts wrote: its start (pid, cwd, environment) or a prompt it received. */
export interface AgentRecord {
  start?: number;
  cwd?: string;
  env?: Record<string, string>;
  prompt?: Array<{ type: string; text?: string }>;
  /** What test/fixtures/toad-unsaved-agent.ts read and wrote. */
  file?: FileRecord;
}

export const TOAD_LAUNCHER = path.join(os.homedir(), ".cache", "symposium", "toad", "bin", "toad");
export const RECORDING_AGENT = path.join(OUT_DIR, "test", "fixtures", "toad-recording-agent.js");
export const TOAD_SKIP_REASON = "skipped: real Toad not installed (scripts/install-toad.sh)";

/** The reason to skip the real-Toad tests, or false; under CI a missing Toad throws instead. */
export function realToadSkip(): string | false {
  const reason = fs.existsSync(TOAD_LAUNCHER) ? false : TOAD_SKIP_REASON;
  if (reason) process.stderr.write(`${reason}\n`);
  return skipUnlessCI(reason);
}

export interface ToadHost extends TestHost {
  /** Toad's own (private) port, from the host's log. */
  privatePort(): number;
  /** Lines the recording agent wrote. */
  records(): AgentRecord[];
  stateFile: string;
  workspace: string;
}

/**
 * A panel host running the real Toad (or, for comparing the two, the fake):
 * `toad acp "<conductor> run"`, the conductor configured with the recording
 * agent or `agent` (a fixture that records to $TOAD_AGENT_RECORD too).
 */
export async function startToadHost(kind: "real" | "fake" = "real", agent = RECORDING_AGENT, conductor = CONDUCTOR_CLI): Promise<ToadHost> {
  const dir = tempDir("symposium-toad-");
  const workspace = path.join(dir, "project");
  fs.mkdirSync(workspace);
  const record = path.join(dir, "agent.jsonl");
  const config = path.join(dir, "config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: `${process.execPath} ${agent}`, proxies: [] }));
  const stateFile = path.join(dir, "editor-state.json");
  // `acp "<conductor> run"`, quoted once for Toad's shell, as the extension does it (extension/src/panel/frontend-command-line.ts).
  const args = toadArgs({ program: process.execPath, args: [conductor] }, "posix");
  const host = await startTestHost({
    frontend: kind === "real" ? { program: TOAD_LAUNCHER, args } : { program: process.execPath, args: [FAKE_TOAD, ...args] },
    cwd: workspace,
    env: { SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: stateFile, TOAD_AGENT_RECORD: record, SYMPOSIUM_AGENT: "" },
  });
  await waitForFrontend(host, "running", 60_000);
  return {
    ...host,
    stateFile,
    workspace,
    privatePort: () => Number(/frontend ready on 127\.0\.0\.1:(\d+)/.exec(host.log())?.[1]),
    records: () => readAgentRecords(record),
  };
}

/** The lines the recording agent wrote to `file` (its TOAD_AGENT_RECORD): none before it starts. */
export function readAgentRecords(file: string): AgentRecord[] {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AgentRecord)
    : [];
}

/** Writes the editor state the conductor's hook reads (docs/state-file.md), fresh. */
export function writeSelection(host: ToadHost, text: string, line: number): void {
  const state = {
    activeFile: path.join(host.workspace, "src", "main.rs"),
    languageId: "rust",
    selection: { text, startLine: line, endLine: line },
    workspaceFolders: [host.workspace],
  };
  fs.writeFileSync(host.stateFile, JSON.stringify(state), { mode: 0o600 });
}

/** Command lines of the host's descendants (the Toad server, its apps, conductors, agents). */
export function treeCommands(host: TestHost): Array<{ pid: number; command: string }> {
  return descendants(host.child.pid!).flatMap((pid) => {
    try {
      return [{ pid, command: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() }];
    } catch {
      return [];
    }
  });
}

/**
 * Toad apps (one per websocket; Toad titles each process "toad", its server
 * "toad acp --serve"), conductors and agents in the host's tree.
 */
export function appsAndAgents(host: TestHost): number[] {
  return treeCommands(host)
    .filter(({ command }) => command === "toad" || command.includes("symposium-conductor.mjs run") || command.includes("toad-recording-agent"))
    .filter(({ command }) => !command.startsWith("/bin/sh") && !command.includes("--serve"))
    .map(({ pid }) => pid);
}
