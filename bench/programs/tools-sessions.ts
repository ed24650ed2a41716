// P17 and P18: conversations opened as the built-in chat opens them, the
// conductor's `run` in this long-lived process (dist/symposium-conductor-in-process.mjs),
// each with an agent that connects to its session's MCP servers and lists
// their tools inside session/new, as Claude Code does
// (test/fixtures/mcp-http-agent.ts). `tools`: `none` (no state file: no
// editor tools), `http` (the conductor serves them) or `stdio` (a server
// process per session). Opens CONVERSATIONS conversations one after another,
// times each session/new, then, all still open, sums the resident memory of
// this process and every process under it. Prints one JSON line.
//
//   node tools-sessions.js <dist> <none|http|stdio> <conversations> <state file> -- <agent command...>

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { InProcessModule } from "./in-process-module.js";
import { rssMb } from "../../test/support/memory.js";
import { descendants } from "../../test/support/processes.js";

const [dist, tools, count, stateFile, separator, ...agent] = process.argv.slice(2);
if (dist === undefined || !["none", "http", "stdio"].includes(tools ?? "") || stateFile === undefined || separator !== "--" || agent.length === 0)
  throw new Error("usage: tools-sessions <dist> <none|http|stdio> <conversations> <state file> -- <agent command...>");

const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tools-sessions-")), "config.jsonc");
fs.writeFileSync(config, JSON.stringify({ agent: agent.map((word) => JSON.stringify(word)).join(" ") }));
const env: NodeJS.ProcessEnv = { ...process.env, SYMPOSIUM_CONFIG: config };
if (tools !== "none") env.SYMPOSIUM_EDITOR_STATE_FILE = stateFile;
if (tools === "stdio") env.SYMPOSIUM_EDITOR_TOOLS_TRANSPORT = "stdio";

/** Answers on `output`, by id. */
function answers(output: Readable): (id: number) => Promise<void> {
  const waiting = new Map<number, () => void>();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n")) {
      const message = JSON.parse(text.slice(0, newline)) as { id?: number; error?: unknown };
      text = text.slice(newline + 1);
      if (message.error !== undefined) throw new Error(`refused: ${JSON.stringify(message.error)}`);
      if (typeof message.id === "number") waiting.get(message.id)?.();
    }
  });
  return (id) => new Promise((resolve) => waiting.set(id, resolve));
}

const module = (await import(pathToFileURL(path.join(dist, "symposium-conductor-in-process.mjs")).href)) as InProcessModule;
const open: Array<{ input: Writable; exited: Promise<number> }> = [];
const sessionNewMs: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const [input, output, stderr] = [new PassThrough(), new PassThrough(), new PassThrough()];
  stderr.resume();
  const run = module.runInProcess({
    args: ["--config", config],
    env,
    cwd: process.cwd(),
    self: { runtime: process.execPath, script: path.join(dist, "symposium-conductor.mjs"), env: {} },
    input,
    output,
    stderr,
    signal: new AbortController().signal,
  });
  const answered = answers(output);
  input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  await answered(1);
  const started = process.hrtime.bigint();
  input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: process.cwd(), mcpServers: [] } })}\n`);
  await answered(2);
  sessionNewMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  open.push({ input, exited: run.exited });
}
await new Promise((resolve) => setTimeout(resolve, 500)); // the servers settle after their handshakes
const processes = descendants(process.pid);
const rssOrNone = (pid: number): number => {
  try {
    return rssMb(pid);
  } catch {
    return 0; // gone since it was listed (ps itself)
  }
};
const totalRssMb = rssMb(process.pid) + processes.reduce((sum, pid) => sum + rssOrNone(pid), 0);
for (const conversation of open) conversation.input.end();
await Promise.all(open.map((conversation) => conversation.exited));
process.stdout.write(`${JSON.stringify({ sessionNewMs, totalRssMb, processes: processes.length })}\n`);
