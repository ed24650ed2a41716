// P17 and P18: what the editor's tools add to a conversation, for an agent
// that starts its MCP servers inside session/new (the fixture does what Claude
// Code does: connects and lists the tools before it answers). Each run is one
// long-lived process (bench/programs/tools-sessions.ts, as the chat server)
// opening 8 conversations through the conductor's in-process `run`: without
// the tools, with them over http (served by the conductor), and with them on
// stdio (a server process per session, what every agent got before), arms
// interleaved, median of RUNS.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { OUT, REPO, RUNS, median, node, percentile, type Figure } from "./common.js";

const PROGRAM = path.join(OUT, "bench", "programs", "tools-sessions.js");
const AGENT = path.join(OUT, "test", "fixtures", "mcp-http-agent.js");
const CONVERSATIONS = 8;
type Arm = "none" | "http" | "stdio";

interface Run {
  sessionNewMs: number[];
  totalRssMb: number;
}

function run(arm: Arm, stateFile: string): Run {
  const line = execFileSync(node, [PROGRAM, path.join(REPO, "dist"), arm, String(CONVERSATIONS), stateFile, "--", node, AGENT, "http"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(line) as Run;
}

export function p17andP18(dir: string): Figure[] {
  const stateFile = path.join(dir, "p17-state.json");
  fs.writeFileSync(stateFile, JSON.stringify({ version: 1, activeFile: "/p/a.ts", workspaceFolders: ["/p"] }), { mode: 0o600 });
  const arms: Arm[] = ["none", "http", "stdio"];
  const runs: Record<Arm, Run[]> = { none: [], http: [], stdio: [] };
  for (let round = 0; round <= RUNS; round++) {
    for (const arm of arms) {
      const measured = run(arm, stateFile);
      if (round > 0) runs[arm].push(measured); // round 0 warms the caches
    }
  }
  const sessionNew = (arm: Arm): number[] => runs[arm].flatMap((each) => each.sessionNewMs);
  const [none, http, stdio] = arms.map((arm) => percentile(sessionNew(arm), 50)) as [number, number, number];
  const memory = (arm: Arm): number => median(runs[arm].map((each) => each.totalRssMb));
  const perConversation = (arm: Arm): number => (memory(arm) - memory("none")) / CONVERSATIONS;
  return [
    {
      id: "P17",
      what: "session/new with the editor's tools, for an agent that connects and lists them inside session/new (as Claude Code does): through the conductor in the chat's process",
      value: `+${(http - none).toFixed(1)} ms over the same without the tools (p50)`,
      goal: "p50 ≤ +20 ms",
      met: http - none <= 20,
      detail: `p50 ${http.toFixed(1)} ms over http vs ${none.toFixed(1)} ms without (${CONVERSATIONS} conversations a run, ${RUNS} runs, the first session/new of a conductor included); the stdio server it replaces: ${stdio.toFixed(1)} ms (+${(stdio - none).toFixed(1)} ms); p90 ${percentile(sessionNew("http"), 90).toFixed(1)} / ${percentile(sessionNew("none"), 90).toFixed(1)} / ${percentile(sessionNew("stdio"), 90).toFixed(1)} ms`,
    },
    {
      id: "P18",
      what: `memory per conversation with the editor's tools, ${CONVERSATIONS} conversations open: the chat's process and every process under it`,
      value: `+${perConversation("http").toFixed(1)} MB a conversation over the same without`,
      goal: "≤ 5 MB",
      met: perConversation("http") <= 5,
      detail: `VmRSS summed, all ${CONVERSATIONS} open, median of ${RUNS}: ${memory("http").toFixed(0)} MB with the tools over http, ${memory("none").toFixed(0)} MB without; with a stdio server per session ${memory("stdio").toFixed(0)} MB (+${perConversation("stdio").toFixed(1)} MB a conversation)`,
    },
  ];
}
