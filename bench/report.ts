// docs/benchmarks.md: the table `npm run bench` measures goes between two
// markers; everything around them (sections written by hand: figures measured
// alone, comparisons, re-measurements) is kept as it is. The file is written
// through Prettier, so `npm run lint` passes on what a run leaves.

import * as fs from "node:fs";
import * as os from "node:os";
import * as prettier from "prettier";
import { RUNS, type Figure } from "./figures/common.js";

export const BEGIN = "<!-- Written by `npm run bench` (bench/run.ts) from here to the end marker; edit outside the markers. -->";
export const END = "<!-- End of what `npm run bench` writes. -->";

/** The generated part: the run's machine, the method, one row per figure. */
export function renderFigures(figures: Figure[], seconds: number): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const date = new Date().toISOString().slice(0, 10);
  const rows = figures.map((f) => `| ${f.id} | ${f.what} | ${f.value} | ${f.goal} | ${f.met ? "met" : "**not met**"} | ${f.detail} |`);
  return `Latest run: ${date}, on ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.
Run with \`npm run bench\` (${Math.round(seconds)} s). Every ratio or difference compares the candidate with a baseline
measured in the same run, interleaved A B A B …, median of ${RUNS} runs after one warm-up round. For P1–P4 and P9 the
baseline is the same client program (\`bench/programs/bench-client.ts\`) talking to the same agent program
(\`bench/programs/bench-agent.ts\`) directly, without the proxy or conductor; for P10 and P11, an SDK client on the
same agent (\`bench/programs/chat-agent.ts\`) over stdio. P5, P7 and P12 have no baseline: they are times against a limit.
P8's baseline is a cold start of the same panel in the same code-server and browser; its goal applies to the panel's
share of a reload (from the workbench being back to the chat's first server message). P13's baseline is the same
\`editor_state\` answered directly (the window's channel handler called in-process); P14's, a \`session/new\` forwarded
untouched; P15's, a bare \`node -e\` (Node's own memory, which no server of ours goes below).
Reference arms, in the same runs, say what no code of ours can go below: the same hops through \`cat\` (P1–P4), a Node
program that only pipes (\`bench/programs/node-relay.ts\`; P1–P3), and for P10 the same chain seen by a websocket
client in Node and a bare page's websocket echo after Enter (the browser's floor).

| id | what | value | goal | | detail |
|---|---|---|---|---|---|
${rows.join("\n")}

Notes on reading these figures are in [benchmarks-notes.md](benchmarks-notes.md).`;
}

/**
 * `existing` with the text between the markers replaced by `generated`. A file without
 * markers (as written before them) is taken as generated up to its first `## ` section,
 * and its sections are kept; no file: a title and the markers.
 */
export function mergeGenerated(existing: string | undefined, generated: string): string {
  const block = `${BEGIN}\n\n${generated.trim()}\n\n${END}`;
  if (existing === undefined) return `# Benchmarks\n\n${block}\n`;
  const begin = existing.indexOf(BEGIN);
  const end = existing.indexOf(END);
  if (begin >= 0 && end > begin) return existing.slice(0, begin) + block + existing.slice(end + END.length);
  if (begin >= 0 || end >= 0) throw new Error(`docs/benchmarks.md has one of the bench markers without the other: restore both (${BEGIN} … ${END})`);
  const firstSection = /^## /m.exec(existing)?.index ?? existing.length;
  const title = /^# .*\n/.exec(existing)?.[0] ?? "# Benchmarks\n";
  const kept = existing.slice(firstSection);
  return `${title}\n${block}\n${kept ? `\n${kept}` : ""}`;
}

/** Writes the figures into `file`, keeping what was written there by hand, formatted as `npm run lint` wants. */
export async function writeReport(file: string, generated: string): Promise<void> {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  const options = (await prettier.resolveConfig(file)) ?? {};
  fs.writeFileSync(file, await prettier.format(mergeGenerated(existing, generated), { ...options, filepath: file }));
}
