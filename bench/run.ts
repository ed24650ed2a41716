// `npm run bench`: every figure against a baseline measured in the same run
// where it has one, interleaved A B A B …, median of RUNS runs (after one
// warm-up round). Prints one line per figure and, when all ran, writes
// docs/benchmarks.md. The figures live in figures/*.ts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chatFigures } from "./figures/chat.js";
import { streamFigure } from "./figures/chat-stream.js";
import { REPO, RUNS, type Figure } from "./figures/common.js";
import { p8, p8Toad } from "./figures/panel-reload.js";
import { p9, toadColdStart } from "./figures/startup.js";
import { p7 } from "./figures/tracker.js";
import { p1andP6, p2, p3, p4, p5 } from "./figures/wire.js";

function report(figures: Figure[], seconds: number): void {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const date = new Date().toISOString().slice(0, 10);
  const rows = figures.map((f) => `| ${f.id} | ${f.what} | ${f.value} | ${f.goal} | ${f.met ? "met" : "**not met**"} | ${f.detail} |`);
  const text = `# Benchmarks

Latest run: ${date}, on ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.
Run with \`npm run bench\` (${Math.round(seconds)} s). Every ratio or difference compares the candidate with a baseline
measured in the same run, interleaved A B A B …, median of ${RUNS} runs after one warm-up round. For P1–P4 and P9 the
baseline is the same client program (\`bench/programs/bench-client.ts\`) talking to the same agent program
(\`bench/programs/bench-agent.ts\`) directly, without the proxy or conductor; for P10 and P11, an SDK client on the
same agent (\`bench/programs/chat-agent.ts\`) over stdio. P5, P7 and P12 have no baseline: they are times against a limit.
P8's baseline is a cold start of the same panel in the same code-server and browser; its goal applies to the panel's
share of a reload (from the workbench being back to the chat's first server message).
Reference arms, in the same runs, say what no code of ours can go below: the same hops through \`cat\` (P1–P4), a Node
program that only pipes (\`bench/programs/node-relay.ts\`; P1–P3), and for P10 the same chain seen by a websocket
client in Node and a bare page's websocket echo after Enter (the browser's floor).

| id | what | value | goal | | detail |
|---|---|---|---|---|---|
${rows.join("\n")}

Notes on reading these figures are in [benchmarks-notes.md](benchmarks-notes.md).
`;
  fs.writeFileSync(path.join(REPO, "docs", "benchmarks.md"), text);
}

const started = Date.now();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "symposium-bench-"));
const only = process.env.BENCH_ONLY?.split(",").map((id) => id.trim().toUpperCase());
/** Each step makes the figures it names (some measure two figures in one set of runs). */
const steps: Array<[string[], () => Figure | Figure[] | Promise<Figure | Figure[]>]> = [
  [["P1", "P6"], p1andP6],
  [["P2"], p2],
  [["P3"], () => p3(dir)],
  [["P4"], p4],
  [["P5"], () => p5(dir)],
  [["P7"], () => p7(dir)],
  [["P8"], p8],
  [["P8-TOAD"], p8Toad],
  [["P9"], () => p9(dir)],
  [["TOAD-COLD"], () => toadColdStart(dir)],
  [["P10", "P11"], () => chatFigures(dir)],
  [["P12"], () => streamFigure(dir)],
];
const figures: Figure[] = [];
try {
  for (const [ids, step] of steps) {
    if (only && !ids.some((id) => only.includes(id))) continue;
    for (const figure of [await step()].flat()) {
      if (only && !only.includes(figure.id.toUpperCase())) continue;
      figures.push(figure);
      console.log(`${figure.id} ${figure.what}: ${figure.value} (goal ${figure.goal}) ${figure.met ? "met" : "NOT MET"} — ${figure.detail}`);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (!only) report(figures, (Date.now() - started) / 1000);
