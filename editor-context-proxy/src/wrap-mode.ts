// Wrap mode: `symposium-editor-context -- <agent command>` starts the agent
// itself (no shell) and sits between its own stdio and the agent's.
//
// Client→agent: every line is screened (see screenClientLine); lines that are
// not prompts are forwarded as the same bytes, runs of them in one write.
// Agent→client: raw bytes, never parsed; LineWriter only makes sure our own
// error answers never land inside one of the agent's lines.

import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import {
  MAX_MESSAGE_BYTES,
  LineWriter,
  describeSpawnError,
  errorResponse,
  exitStatus,
  oversizedLineError,
  pipeRaw,
  readLines,
  screenClientLine,
  signalProcessTree,
  spawnErrorStatus,
  spawnProgram,
  stopProcesses,
  type Logger,
} from "../../acp-wire/src/index.js";
import type { EditorContextInjector } from "./injector.js";

export interface WrapOptions {
  command: string;
  args: string[];
  injector: EditorContextInjector;
  input: Readable;
  output: Writable;
  log: Logger;
  maxMessageBytes?: number;
  /** Aborting ends the agent's process tree (the CLI aborts on SIGTERM/SIGINT). */
  signal?: AbortSignal;
}

/** Runs until the agent exits; resolves with the exit status to pass on. */
export function runWrapped(options: WrapOptions): Promise<number> {
  const agent = spawnProgram(options.command, options.args, { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number): void => {
      if (settled) return;
      settled = true;
      options.input.pause();
      resolve(status);
    };
    agent.once("error", (error: NodeJS.ErrnoException) => {
      options.log(describeSpawnError(options.command, error));
      finish(spawnErrorStatus(error));
    });
    let ending = false;
    const end = (): void => {
      if (ending) return;
      ending = true;
      void stopProcesses([agent]);
    };
    agent.once("spawn", () => connect(agent, options, end));
    options.signal?.addEventListener("abort", () => signalProcessTree(agent.pid, "SIGTERM"), { once: true });
    agent.once("close", (code, signal) => {
      signalProcessTree(agent.pid, "SIGTERM"); // whatever the agent left behind in its process group
      finish(exitStatus(code, signal));
    });
  });
}

function connect(agent: ChildProcess, options: WrapOptions, onClientGone: () => void): void {
  const agentIn = agent.stdin!;
  const toClient = new LineWriter(options.output, onClientGone);
  const toAgent = new LineWriter(agentIn);
  void pipeRaw(agent.stdout!, toClient, options.output);
  agentIn.on("error", () => {}); // The agent exiting mid-write is reported by its exit status.

  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  // Stop reading the client while the agent's input is full.
  const pauseIfFull = (writable: boolean): void => {
    if (!writable && !options.input.isPaused()) {
      options.input.pause();
      agentIn.once("drain", () => options.input.resume());
    }
  };
  void readLines(options.input, maxBytes, {
    onLine(line, framed) {
      const verdict = screenClientLine(line);
      if (verdict.kind === "error") {
        toClient.writeLine(errorResponse(null, verdict.error));
        return;
      }
      const rewritten = verdict.kind === "parsed" ? options.injector.rewrite(verdict.message) : null;
      if (rewritten !== null) pauseIfFull(toAgent.writeLine(JSON.stringify(rewritten)));
      else pauseIfFull(framed ? toAgent.writeFramed(framed) : toAgent.writeLine(line));
    },
    onOversizedLine(bytes) {
      toClient.writeLine(errorResponse(null, oversizedLineError(bytes, maxBytes)));
    },
  }).then(onClientGone);
}
