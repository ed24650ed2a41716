// P9 for the built-in chat: a new conversation's start as the chat server
// pays it, measured inside one long-lived Node process (as the server is),
// arms interleaved, the same raw-ndjson `initialize` as bench-client's
// `startup`:
//   direct      the agent spawned → its answer to initialize
//   inProcess   the conductor's `run` in this process (the entry the chat
//               loads, dist/symposium-conductor-in-process.mjs, loaded once
//               ahead as the server does) → its answer, through the hook and the agent
//   process     `<node> dist/symposium-conductor.mjs run` spawned (what the chat did before)
// Prints one JSON line: each arm's samples in ms.
//
//   node chat-start.js <dist> <runs> <config> -- <agent command...>

import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { InProcessModule } from "./in-process-module.js";

const [dist, runsArg, config, separator, ...agent] = process.argv.slice(2);
if (dist === undefined || config === undefined || separator !== "--" || agent.length === 0)
  throw new Error("usage: chat-start <dist> <runs> <config> -- <agent command...>");
const runs = Number(runsArg);
const conductorScript = path.join(dist, "symposium-conductor.mjs");
const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;

/** Resolves at the first line on `output` (the answer to initialize), in ms since `started`. */
function firstLine(output: Readable, started: bigint): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      if (!text.includes("\n")) return;
      output.off("data", onData);
      if (!text.includes('"result"')) reject(new Error(`not an answer: ${text}`));
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
    };
    output.on("data", onData);
  });
}

async function spawned(command: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin!.write(INITIALIZE);
  const ms = await firstLine(child.stdout!, started);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin!.end();
  await exited;
  return ms;
}

async function inProcess(module: InProcessModule): Promise<number> {
  const started = process.hrtime.bigint();
  const [input, output, stderr] = [new PassThrough(), new PassThrough({ highWaterMark: 64 * 1024 }), new PassThrough()];
  stderr.pipe(process.stderr);
  const run = module.runInProcess({
    args: ["--config", config!],
    env: process.env,
    cwd: process.cwd(),
    self: { runtime: process.execPath, script: conductorScript, env: {} },
    input,
    output,
    stderr,
    signal: new AbortController().signal,
  });
  input.write(INITIALIZE);
  const ms = await firstLine(output, started);
  input.end(); // the client leaves: the stop sequence
  await run.exited;
  return ms;
}

const module = (await import(pathToFileURL(path.join(dist, "symposium-conductor-in-process.mjs")).href)) as InProcessModule;
const samples = { direct: [] as number[], inProcess: [] as number[], process: [] as number[] };
const arms: Array<[keyof typeof samples, () => Promise<number>]> = [
  ["direct", () => spawned(agent)],
  ["inProcess", () => inProcess(module)],
  ["process", () => spawned([process.execPath, conductorScript, "run", "--config", config])],
];
for (let round = 0; round <= runs; round++) {
  for (const [arm, measure] of arms) {
    const ms = await measure();
    if (round > 0) samples[arm].push(ms); // round 0 warms the caches and the code
  }
}
process.stdout.write(`${JSON.stringify(samples)}\n`);
