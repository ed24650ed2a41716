// `npm run bench`: every figure is a ratio against a baseline measured in the
// same run, interleaved A B A B …, median of RUNS runs (after one warm-up
// pair). Prints one line per figure and writes docs/benchmarks.md.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseLine } from "../acp-wire/src/index.js";
import { EditorContextInjector } from "../editor-context-proxy/src/index.js";
import { STATE_FILE_ENV } from "../editor-state/src/index.js";

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const REPO = path.resolve(OUT, "..");
const node = process.execPath;
const CLIENT = path.join(OUT, "bench", "programs", "bench-client.js");
const AGENT = [node, path.join(OUT, "bench", "programs", "bench-agent.js")];
const PROXY = [node, path.join(REPO, "dist", "symposium-editor-context.mjs")];
const CONDUCTOR = [node, path.join(REPO, "dist", "symposium-conductor.mjs")];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Figure {
  id: string;
  what: string;
  value: string;
  goal: string;
  met: boolean;
  detail: string;
}

type Scenario = "down" | "up" | "prompts";

function measure(scenario: Scenario, count: number, command: string[], env: NodeJS.ProcessEnv = {}): { rate: number; peakRssKb?: number } {
  const output = execFileSync(node, [CLIENT, scenario, String(count), "--", ...command], {
    env: { ...process.env, [STATE_FILE_ENV]: "", ...env },
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(output.trim()) as { rate: number; peakRssKb?: number };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

type Arm = "baseline" | "candidate" | "reference";
type Run = (arm: Arm) => { rate: number; peakRssKb?: number };

/**
 * Runs the arms in turn (A B R A B R …) and returns their medians. The
 * reference arm puts `cat` where the candidate's proxy or conductor sits: the
 * cost of the extra process hops alone, which no proxy code can go below.
 */
function interleaved(run: Run, withReference: boolean) {
  const arms: Arm[] = withReference ? ["baseline", "candidate", "reference"] : ["baseline", "candidate"];
  arms.forEach((arm) => run(arm)); // warm-up round: page cache, JIT of the shared programs
  const samples: Record<Arm, number[]> = { baseline: [], candidate: [], reference: [] };
  const rss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const arm of arms) {
      const result = run(arm);
      samples[arm].push(result.rate);
      if (arm === "candidate" && result.peakRssKb) rss.push(result.peakRssKb);
    }
  }
  return {
    baseline: median(samples.baseline),
    candidate: median(samples.candidate),
    reference: withReference ? median(samples.reference) : null,
    rss,
  };
}

function ratioFigure(id: string, what: string, goalRatio: number, unit: string, result: { baseline: number; candidate: number; reference: number | null }): Figure {
  const ratio = result.candidate / result.baseline;
  const reference = result.reference === null ? "" : `; the same hops through \`cat\`: ${(result.reference / result.baseline).toFixed(2)} × direct`;
  return {
    id,
    what,
    value: `${ratio.toFixed(2)} × direct`,
    goal: `≥ ${goalRatio} × direct`,
    met: ratio >= goalRatio,
    detail: `${Math.round(result.candidate).toLocaleString("en")} vs ${Math.round(result.baseline).toLocaleString("en")} ${unit}${reference}`,
  };
}

const POSIX_SHELL = process.platform !== "win32";
const AGENT_LINE = AGENT.join(" ");
/** `sh -c` pipelines that put `cat` processes where the proxy or conductor would be. */
const catBetween = (before: number, after: number): string[] => [
  "sh",
  "-c",
  [...Array<string>(before).fill("cat"), AGENT_LINE, ...Array<string>(after).fill("cat")].join(" | "),
];

function freshStateFile(dir: string, selectionBytes = 200): string {
  const file = path.join(dir, "state.json");
  const text = "let answer = 42;\n".repeat(Math.ceil(selectionBytes / 17)).slice(0, selectionBytes);
  fs.writeFileSync(
    file,
    JSON.stringify({
      activeFile: "/project/src/main.ts",
      languageId: "typescript",
      selection: { text, startLine: 1, endLine: text.split("\n").length },
      workspaceFolders: ["/project"],
    }),
  );
  return file;
}

function p1andP6(): Figure[] {
  const count = 100_000;
  const result = interleaved(
    (arm) => measure("down", count, arm === "baseline" ? AGENT : arm === "candidate" ? [...PROXY, "--", ...AGENT] : catBetween(0, 1)),
    POSIX_SHELL,
  );
  const peakMb = Math.max(...result.rss) / 1024;
  return [
    ratioFigure("P1", "wrap-mode proxy, agent→client flood of 1 KiB session/update", 0.95, "msg/s", result),
    {
      id: "P6",
      what: "proxy resident memory during P1",
      value: `${peakMb.toFixed(1)} MB peak`,
      goal: "≤ 60 MB",
      met: peakMb <= 60,
      detail: `peak VmRSS of the proxy process over ${result.rss.length} runs (median of the runs' peaks: ${(median(result.rss) / 1024).toFixed(1)} MB; a bare \`node\` starts at about 41 MB)`,
    },
  ];
}

function p2(): Figure {
  const count = 100_000;
  const result = interleaved(
    (arm) => measure("up", count, arm === "baseline" ? AGENT : arm === "candidate" ? [...PROXY, "--", ...AGENT] : catBetween(1, 0)),
    POSIX_SHELL,
  );
  return ratioFigure("P2", "wrap-mode proxy, client→agent flood of 1 KiB non-prompt messages", 0.8, "msg/s at the agent", result);
}

function p3(dir: string): Figure {
  const count = 2_000;
  const result = interleaved(
    (arm) =>
      arm === "baseline"
        ? measure("prompts", count, AGENT)
        : arm === "candidate"
          ? measure("prompts", count, [...CONDUCTOR, "agent", AGENT_LINE], { [STATE_FILE_ENV]: freshStateFile(dir) })
          : measure("prompts", count, catBetween(1, 1)),
    POSIX_SHELL,
  );
  return ratioFigure("P3", "conductor with the in-process editor-context proxy: prompt round trips", 0.7, "round trips/s", result);
}

function p4(): Figure {
  const count = 20_000;
  const proxy = PROXY.join(" ");
  // Agent → conductor → proxy → conductor → proxy → conductor → proxy → conductor → client: 7 extra hops.
  const result = interleaved(
    (arm) =>
      measure("down", count, arm === "baseline" ? AGENT : arm === "candidate" ? [...CONDUCTOR, "agent", proxy, proxy, proxy, AGENT_LINE] : catBetween(0, 7)),
    POSIX_SHELL,
  );
  return ratioFigure("P4", "conductor with 3 pass-through proxy processes, agent→client flood", 0.4, "msg/s", result);
}

/** P5, in process: one injection with a 64 KiB selection, the file rewritten before each so it is read every time. */
function p5(dir: string): Figure {
  const iterations = 2_000;
  const line = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "explain" }] } }));
  const time = (injector: EditorContextInjector, before: (i: number) => void): number[] => {
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
      before(i);
      const started = process.hrtime.bigint();
      const parsed = parseLine(line);
      const rewritten = parsed.ok ? injector.rewrite(parsed.message) : null;
      const forwarded = rewritten === null ? line : JSON.stringify(rewritten);
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (forwarded.length === 0) throw new Error("unreachable");
    }
    return samples.sort((a, b) => a - b);
  };
  const file = path.join(dir, "p5.json");
  const selection = "const value = compute(input);\n".repeat(2_200).slice(0, 64 * 1024);
  const write = (i: number) =>
    fs.writeFileSync(file, JSON.stringify({ activeFile: "/p/a.ts", languageId: "typescript", selection: { text: `${i}${selection}`, startLine: 1, endLine: 2_200 }, workspaceFolders: ["/p"] }));
  const injection = new EditorContextInjector({ stateFile: file });
  const baseline = new EditorContextInjector({ stateFile: path.join(dir, "absent.json") });
  time(injection, write); // warm-up
  const withFile = time(injection, write);
  const without = time(baseline, () => {});
  const pct = (samples: number[], p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!;
  const p99 = pct(withFile, 99);
  return {
    id: "P5",
    what: "one injection (stat + read + validate + format), 64 KiB selection",
    value: `p50 ${pct(withFile, 50).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms`,
    goal: "p99 ≤ 1 ms",
    met: p99 <= 1,
    detail: `forwarding without a state file: p50 ${pct(without, 50).toFixed(3)} ms, p99 ${pct(without, 99).toFixed(3)} ms (${(pct(withFile, 50) / pct(without, 50)).toFixed(0)} × at p50)`,
  };
}

function report(figures: Figure[], seconds: number): void {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const date = new Date().toISOString().slice(0, 10);
  const rows = figures.map((f) => `| ${f.id} | ${f.what} | ${f.value} | ${f.goal} | ${f.met ? "met" : "**not met**"} | ${f.detail} |`);
  const text = `# Benchmarks

Latest run: ${date}, on ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.
Run with \`npm run bench\` (${Math.round(seconds)} s). Every ratio compares the candidate with a baseline measured in
the same run, interleaved A B A B …, median of ${RUNS} runs after one warm-up pair. The baseline is the same
client program (\`bench/programs/bench-client.ts\`) talking to the same agent program
(\`bench/programs/bench-agent.ts\`) directly, without the proxy or conductor.

| id | what | value | goal | | detail |
|---|---|---|---|---|---|
${rows.join("\n")}

Notes on reading these figures are in [benchmarks-notes.md](benchmarks-notes.md).
`;
  fs.writeFileSync(path.join(REPO, "docs", "benchmarks.md"), text);
}

const started = Date.now();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "symposium-bench-"));
const only = process.env.BENCH_ONLY?.split(",");
const steps: Array<[string, () => Figure | Figure[]]> = [
  ["P1", p1andP6],
  ["P2", p2],
  ["P3", () => p3(dir)],
  ["P4", p4],
  ["P5", () => p5(dir)],
];
const figures: Figure[] = [];
for (const [id, step] of steps) {
  if (only && !only.includes(id)) continue;
  for (const figure of [step()].flat()) {
    figures.push(figure);
    console.log(`${figure.id} ${figure.what}: ${figure.value} (goal ${figure.goal}) ${figure.met ? "met" : "NOT MET"} — ${figure.detail}`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
if (!only) report(figures, (Date.now() - started) / 1000);
