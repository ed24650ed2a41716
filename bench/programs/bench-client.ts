// The client side of the benchmarks. Starts the command after `--` (an agent,
// or a proxy or conductor in front of one), opens a session, runs one
// scenario, and prints a single JSON line with what it measured. Like any
// ACP client it parses every message it receives.
//
//   node bench-client.js down <count> -- <command...>     agent→client flood: messages/s here
//   node bench-client.js up <count> -- <command...>       client→agent flood: messages/s at the agent
//   node bench-client.js prompts <count> -- <command...>  sequential prompt round trips/s
//   node bench-client.js startup 1 -- <command...>        spawn → answer to initialize, in ms

import { spawn } from "node:child_process";
import * as fs from "node:fs";

const [scenario, countArg, separator, program, ...args] = process.argv.slice(2);
if (separator !== "--" || program === undefined) throw new Error("usage: bench-client <down|up|prompts|startup> <count> -- <command...>");
const count = Number(countArg);

const spawnedAt = process.hrtime.bigint();
const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map<number, (result: Record<string, unknown>) => void>();
let updates = 0;
let nextId = 1;
let buffer = "";
let peakRssKb = 0;

child.stdout.setEncoding("utf8");
child.stdout.on("data", (chunk: string) => {
  buffer += chunk;
  let start = 0;
  let newline = buffer.indexOf("\n", start);
  while (newline !== -1) {
    receive(buffer.slice(start, newline));
    start = newline + 1;
    newline = buffer.indexOf("\n", start);
  }
  buffer = buffer.slice(start);
});

/** Every line is parsed, as any ACP client must; session/update notifications are counted. */
function receive(line: string): void {
  const message = JSON.parse(line) as { id?: number; method?: string; result?: Record<string, unknown>; error?: unknown };
  if (message.method === "session/update") {
    updates++;
    return;
  }
  if (message.error) throw new Error(`error answer: ${line}`);
  const resolve = typeof message.id === "number" ? waiting.get(message.id) : undefined;
  if (resolve) {
    waiting.delete(message.id!);
    resolve(message.result ?? {});
  }
}

function request(method: string, params: unknown): Promise<Record<string, unknown>> {
  const id = nextId++;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => waiting.set(id, resolve));
}

/** Peak resident memory of the process we started (Linux /proc; 0 elsewhere). */
function sampleRss(): void {
  try {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peakRssKb = Math.max(peakRssKb, kb);
  } catch {
    // not Linux, or already gone
  }
}

async function floodDown(): Promise<Record<string, number>> {
  const sampler = setInterval(sampleRss, 25);
  const started = process.hrtime.bigint();
  await request("_bench/flood", { count, bytes: 1024 });
  const elapsedNs = Number(process.hrtime.bigint() - started);
  clearInterval(sampler);
  if (updates !== count) throw new Error(`expected ${count} updates, got ${updates}`);
  return { rate: count / (elapsedNs / 1e9), elapsedNs, peakRssKb };
}

async function floodUp(): Promise<Record<string, number>> {
  const skeleton = JSON.stringify({ jsonrpc: "2.0", method: "_bench/note", params: { sessionId: "bench", pad: "" } });
  const line = skeleton.replace('"pad":""', `"pad":"${"y".repeat(1024 - skeleton.length - 1)}"`) + "\n";
  const batch = line.repeat(64);
  for (let sent = 0; sent < count; sent += 64) {
    if (!child.stdin.write(count - sent >= 64 ? batch : line.repeat(count - sent))) {
      await new Promise((resolve) => child.stdin.once("drain", resolve));
    }
  }
  const notes = (await request("_bench/notes", {})) as { count: number; elapsedNs: number };
  if (notes.count !== count) throw new Error(`agent counted ${notes.count} of ${count}`);
  return { rate: count / (notes.elapsedNs / 1e9), elapsedNs: notes.elapsedNs };
}

async function prompts(): Promise<Record<string, number>> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    await request("session/prompt", { sessionId: "bench", prompt: [{ type: "text", text: `prompt ${i}` }] });
  }
  const elapsedNs = Number(process.hrtime.bigint() - started);
  // Which prompts reached the agent with the editor context in front (a figure that claims it must have it).
  const { withContext } = (await request("_bench/prompts", {})) as { withContext: number };
  return { rate: count / (elapsedNs / 1e9), elapsedNs, withContext };
}

await request("initialize", { protocolVersion: 1, clientCapabilities: {} });
const startupMs = Number(process.hrtime.bigint() - spawnedAt) / 1e6;
await request("session/new", { cwd: process.cwd(), mcpServers: [] });
const startup = async (): Promise<Record<string, number>> => ({ rate: 1000 / startupMs, startupMs });
const scenarios: Record<string, () => Promise<Record<string, number>>> = { down: floodDown, up: floodUp, prompts, startup };
const measure = scenarios[scenario!];
if (!measure) throw new Error(`unknown scenario ${scenario}`);
const result = await measure();
child.stdin.end();
await new Promise((resolve) => child.once("exit", resolve));
process.stdout.write(JSON.stringify(result) + "\n");
