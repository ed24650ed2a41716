// What a conversation talks ACP to: the agent command's process (a command
// line through the shell, cwd = the project, as Toad runs it; or a program
// and its arguments, without a shell), or, when that program is this
// project's own `<runtime> …/symposium-conductor.mjs run …`, the same
// conductor run inside this server (conductor-hooks' in-process.ts): no Node
// start, no bundle load and no process of ~50 MB per conversation; the agent
// and any proxies are still processes. Any other command (another conductor
// from symposium.acpAgentPath, a wrapper) runs as a process.

import * as path from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { STOP_SEQUENCE, spawnProgram, spawnShellCommand, stopProcesses, type Logger } from "../../acp-wire/src/index.js";
import { RUN_AS_NODE } from "../../acp-wire/src/run-as-node.js";
import type { InProcessRun } from "../../conductor-hooks/src/in-process.js";
import type { LauncherTarget } from "../../conductor-hooks/src/launcher.js";
import { ourConductorRun, type ConductorRun } from "./agent-catalog.js";
import { commandText, type AgentCommand } from "./agent-command.js";

export interface AgentProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The process the agent runs in: the command's, or in process the chain's agent once started. */
  readonly pid: number | undefined;
  /** Resolves when it ends, as ChildProcess's "exit" reports it; rejects when it could not start. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends it and everything it started (the stop sequence: acp-wire/src/processes.ts). */
  stop(): Promise<void>;
}

export interface AgentProcessOptions {
  command: AgentCommand;
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
}

/** "0": run even our own conductor as a process (the bench's comparison arm). */
export const IN_PROCESS_ENV = "SYMPOSIUM_CHAT_CONDUCTOR_IN_PROCESS";
/** The conductor's output waiting for the chat to read it: the room a pipe gives. */
const OUTPUT_HIGH_WATER_MARK = 64 * 1024;

export function startAgentProcess(options: AgentProcessOptions): AgentProcess {
  const run = inProcessRun(options.command);
  return run ? startInProcess(options, run) : startProcess(options);
}

function inProcessRun(command: AgentCommand): ConductorRun | undefined {
  return process.env[IN_PROCESS_ENV] === "0" ? undefined : ourConductorRun(command);
}

/** When `command` runs in process, loads the conductor ahead of the first conversation (the server, once it listens). */
export function preloadConductorFor(command: AgentCommand): boolean {
  const run = inProcessRun(command);
  if (!run) return false;
  loadConductor(run.conductor.args[0]!).catch(() => {}); // a failure is reported by the conversation that needs it
  return true;
}

type InProcessModule = typeof import("../../conductor-hooks/src/in-process.js");
/** The conductor's entry for a client's own process, beside its script (scripts/bundle.mjs). */
const IN_PROCESS_ENTRY = "symposium-conductor-in-process.mjs";
const loaded = new Map<string, Promise<InProcessModule>>();

/** Loaded on first use, once per server: a server whose agent is not our conductor never loads it. */
function loadConductor(script: string): Promise<InProcessModule> {
  const entry = path.join(path.dirname(path.resolve(script)), IN_PROCESS_ENTRY);
  let module = loaded.get(entry);
  if (module === undefined) {
    module = import(pathToFileURL(entry).href) as Promise<InProcessModule>;
    loaded.set(entry, module);
  }
  return module;
}

function startProcess({ command, cwd, env, log }: AgentProcessOptions): AgentProcess {
  const stdio = ["pipe", "pipe", "pipe"] as const;
  const child =
    command.kind === "shell"
      ? spawnShellCommand(command.line, { stdio: [...stdio], cwd, env })
      : spawnProgram(command.program, command.args, { stdio: [...stdio], cwd, env: { ...env, ...command.env } });
  log(`started the agent (pid ${child.pid ?? "?"}): ${commandText(command)}`);
  child.stdin!.on("error", () => {}); // EPIPE after the agent exits: reported by "exit".
  return {
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    get pid() {
      return child.pid;
    },
    ended: new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve({ code, signal }));
    }),
    stop: () => stopProcesses([child]),
  };
}

/** The runtime as the conductor process would know it (process.execPath): `node` found on PATH is this one. */
function runtimePath(program: string): string {
  const bare = (file: string): string => path.basename(file, path.extname(file)).toLowerCase();
  return path.basename(program) === program && bare(program) === bare(process.execPath) ? process.execPath : program;
}

function startInProcess({ command, cwd, env, log }: AgentProcessOptions, { conductor, runArgs }: ConductorRun): AgentProcess {
  // The command's variables are the conductor's; ELECTRON_RUN_AS_NODE only for starting it again as a program.
  const { [RUN_AS_NODE]: runAsNode, ...variables } = conductor.env;
  const self: LauncherTarget = { runtime: runtimePath(conductor.program), script: path.resolve(cwd, conductor.args[0]!), env: {} };
  if (runAsNode !== undefined) self.env[RUN_AS_NODE] = runAsNode;
  const [stdin, stdout, stderr] = [new PassThrough(), new PassThrough({ highWaterMark: OUTPUT_HIGH_WATER_MARK }), new PassThrough()];
  const stop = new AbortController();
  let run: InProcessRun | undefined;
  const started = loadConductor(self.script).then(({ runInProcess }) => {
    run = runInProcess({ args: runArgs, env: { ...env, ...variables }, cwd, self, input: stdin, output: stdout, stderr, signal: stop.signal });
    return run;
  });
  log(`started the conductor in this process: ${commandText(command)}`);
  return {
    stdin,
    stdout,
    stderr,
    get pid() {
      return run?.agentProcess()?.pid;
    },
    ended: started.then(async (running) => {
      const status = await running.exited;
      return stop.signal.aborted ? { code: null, signal: "SIGTERM" as const } : { code: status, signal: null };
    }),
    async stop() {
      stdin.end();
      stop.abort("SIGTERM");
      // A run still installing its agent (a download) is not interrupted: it starts nothing once done.
      const givenUp = new Promise((resolve) => setTimeout(resolve, STOP_SEQUENCE.giveUpAfterMs + 200).unref());
      // A conductor that could not load has nothing to stop: `ended` reports why.
      await Promise.race([started.then((running) => running.exited).catch(() => {}), givenUp]);
    },
  };
}
