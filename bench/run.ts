// `npm run bench`: every figure against a baseline measured in the same run
// where it has one, interleaved A B A B …, median of RUNS runs (after one
// warm-up round). Prints one line per figure and, when all ran, writes its
// table into docs/benchmarks.md (report.ts; sections written by hand stay).
// The figures live in figures/*.ts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chatFigures } from "./figures/chat.js";
import { c1, c2, c3 } from "./figures/checkpoints.js";
import { streamFigure } from "./figures/chat-stream.js";
import { tabsFigure } from "./figures/chat-tabs.js";
import { REPO, type Figure } from "./figures/common.js";
import { p13, p14, p15 } from "./figures/editor-tools.js";
import { p17andP18 } from "./figures/editor-tools-http.js";
import { p8, p8Toad } from "./figures/panel-reload.js";
import { p9, toadColdStart } from "./figures/startup.js";
import { p7 } from "./figures/tracker.js";
import { w1 } from "./figures/walkthrough.js";
import { p1andP6, p2, p3, p4, p5 } from "./figures/wire.js";
import { renderFigures, writeReport } from "./report.js";

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
  [["P9", "P9-CHAT"], () => p9(dir)],
  [["TOAD-COLD"], () => toadColdStart(dir)],
  [["P10", "P11"], () => chatFigures(dir)],
  [["P12"], () => streamFigure(dir)],
  [["P16"], () => tabsFigure(dir)],
  [["C1"], () => c1(dir)],
  [["C2"], () => c2(dir)],
  [["C3"], c3],
  [["P13"], () => p13(dir)],
  [["P14"], () => p14(dir)],
  [["P15"], () => p15(dir)],
  [["P17", "P18"], () => p17andP18(dir)],
  [["W1"], w1],
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
if (!only) await writeReport(path.join(REPO, "docs", "benchmarks.md"), renderFigures(figures, (Date.now() - started) / 1000));
