// What every figure shares: where the programs are, the Figure line, running
// the bench client against a command, medians, and interleaving the arms.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";

export const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO = path.resolve(OUT, "..");
export const node = process.execPath;
export const CLIENT = path.join(OUT, "bench", "programs", "bench-client.js");
export const AGENT = [node, path.join(OUT, "bench", "programs", "bench-agent.js")];
export const AGENT_LINE = AGENT.join(" ");
export const NODE_RELAY = [node, path.join(OUT, "bench", "programs", "node-relay.js")];
export const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Our two CLIs as one build ships them (a `dist` directory): how P1–P4 run the proxy and the conductor. */
export interface Programs {
  proxy: string[];
  conductor: string[];
}

export function programsIn(dist: string): Programs {
  return { proxy: [node, path.join(dist, "symposium-editor-context.mjs")], conductor: [node, path.join(dist, "symposium-conductor.mjs")] };
}

/** This build's programs. */
export const OURS = programsIn(path.join(REPO, "dist"));
export const PROXY = OURS.proxy;
export const CONDUCTOR = OURS.conductor;

/**
 * Another build's `dist` (BENCH_BEFORE=<dir>, e.g. an earlier commit built in a worktree): P1–P4 then run
 * it as a "before" arm, interleaved with this build's, so a change is judged before/after in the same runs.
 */
export const BEFORE: Programs | null = process.env.BENCH_BEFORE ? programsIn(path.resolve(process.env.BENCH_BEFORE)) : null;

/**
 * The Rust reference conductor (agent-client-protocol-conductor) as a peer arm of P3, P4 and P9: the
 * release build `npm run bench` asks of scripts/install-rust-peers.sh (the tests' debug build would
 * time the compiler's settings, not the conductor); null when it is not installed (the figures say so).
 */
export const RUST_CONDUCTOR: string | null = (() => {
  const binary = path.join(
    process.env.SYMPOSIUM_CACHE || path.join(os.homedir(), ".cache", "symposium"),
    "rust-peers-release",
    "bin",
    "agent-client-protocol-conductor",
  );
  return fs.existsSync(binary) ? binary : null;
})();
export const RUST_CONDUCTOR_NAME = "agent-client-protocol-conductor 5.0.0";
export const POSIX_SHELL = process.platform !== "win32";

export interface Figure {
  id: string;
  what: string;
  value: string;
  goal: string;
  met: boolean;
  detail: string;
}

type Scenario = "down" | "up" | "prompts" | "startup";

/** What the bench client prints: the rate, and per scenario the peak memory or how many prompts carried editor context. */
export interface Measured {
  rate: number;
  peakRssKb?: number;
  withContext?: number;
}

export function measure(scenario: Scenario, count: number, command: string[], env: NodeJS.ProcessEnv = {}): Measured {
  const output = execFileSync(node, [CLIENT, scenario, String(count), "--", ...command], {
    env: { ...process.env, [STATE_FILE_ENV]: "", ...env },
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(output.trim()) as Measured;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export type Arm = "baseline" | "candidate" | "before" | "reference" | "relay" | "rust";
type Run = (arm: Arm) => Measured;

/** The arms a figure runs besides the baseline and the candidate (and "before" whenever BENCH_BEFORE is set). */
export interface ExtraArms {
  /** `cat` where the candidate sits: the cost of the extra process hops alone, which no proxy code can go below. */
  reference?: boolean;
  /** A Node program that only pipes there (`bench/programs/node-relay.ts`): what a Node hop costs by itself. */
  relay?: boolean;
  /** The Rust reference conductor in the candidate's place. */
  rust?: boolean;
}

/** Runs the arms in turn (A B R A B R …) and returns their medians (null: an arm not run). */
export function interleaved(run: Run, extra: ExtraArms) {
  const arms: Arm[] = [
    "baseline",
    "candidate",
    ...(BEFORE !== null ? ["before" as const] : []),
    ...(extra.reference ? ["reference" as const] : []),
    ...(extra.relay ? ["relay" as const] : []),
    ...(extra.rust ? ["rust" as const] : []),
  ];
  arms.forEach((arm) => run(arm)); // warm-up round: page cache, JIT of the shared programs
  const samples: Record<Arm, number[]> = { baseline: [], candidate: [], before: [], reference: [], relay: [], rust: [] };
  const rss: number[] = [];
  const relayRss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const arm of arms) {
      const result = run(arm);
      samples[arm].push(result.rate);
      if (arm === "candidate" && result.peakRssKb) rss.push(result.peakRssKb);
      if (arm === "relay" && result.peakRssKb) relayRss.push(result.peakRssKb);
    }
  }
  const medianOf = (arm: Arm) => (arms.includes(arm) ? median(samples[arm]) : null);
  return {
    baseline: median(samples.baseline),
    candidate: median(samples.candidate),
    before: medianOf("before"),
    reference: medianOf("reference"),
    relay: medianOf("relay"),
    rust: medianOf("rust"),
    rss,
    relayRss,
  };
}

/** The programs an arm runs where ours sit: this build's, or the "before" build's. */
export function programsFor(arm: Arm): Programs {
  return arm === "before" && BEFORE !== null ? BEFORE : OURS;
}

/** The "before" arm's figure in a detail line, when there is one. */
export function beforeArm(value: number | null, describe: (value: number) => string): string {
  return value === null ? "" : `; before (BENCH_BEFORE build), same runs: ${describe(value)}`;
}

export function ratioFigure(
  id: string,
  what: string,
  goalRatio: number,
  unit: string,
  result: { baseline: number; candidate: number; before: number | null; reference: number | null; relay: number | null; rust: number | null },
  withRust = false,
): Figure {
  const ratio = result.candidate / result.baseline;
  const relay = result.relay == null ? "" : `; a Node program that only pipes: ${(result.relay / result.baseline).toFixed(2)} × direct`;
  const reference =
    (result.reference === null ? "" : `; the same hops through \`cat\`: ${(result.reference / result.baseline).toFixed(2)} × direct`) +
    relay +
    beforeArm(result.before, (before) => `${(before / result.baseline).toFixed(2)} × direct, ${Math.round(before).toLocaleString("en")} ${unit}`) +
    rustPeer(withRust ? result.rust : undefined, (rust) => `${(rust / result.baseline).toFixed(2)} × direct, ${Math.round(rust).toLocaleString("en")} ${unit}`);
  return {
    id,
    what,
    value: `${ratio.toFixed(2)} × direct`,
    goal: `≥ ${goalRatio} × direct`,
    met: ratio >= goalRatio,
    detail: `${Math.round(result.candidate).toLocaleString("en")} vs ${Math.round(result.baseline).toLocaleString("en")} ${unit}${reference}`,
  };
}

/** The Rust reference conductor's arm in a figure's detail: measured, or why not (undefined: the figure has no such arm). */
export function rustPeer(value: number | null | undefined, describe: (value: number) => string): string {
  if (value === undefined) return "";
  return value === null
    ? `; ${RUST_CONDUCTOR_NAME}: not installed (scripts/install-rust-peers.sh --release)`
    : `; ${RUST_CONDUCTOR_NAME}, same chain: ${describe(value)}`;
}

/** `sh -c` pipelines that put `cat` processes where the proxy or conductor would be. */
export const catBetween = (before: number, after: number): string[] => [
  "sh",
  "-c",
  [...Array<string>(before).fill("cat"), AGENT_LINE, ...Array<string>(after).fill("cat")].join(" | "),
];

/** A state file with a selection of `selectionBytes`, as the tracker would write it. */
export function freshStateFile(dir: string, selectionBytes = 200): string {
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

/** Resident memory of a process in KiB (Linux /proc; 0 elsewhere or when it is gone). */
export function residentKb(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used, in ms (Linux /proc, clock ticks of 10 ms; 0 elsewhere). */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
