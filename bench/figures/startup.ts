// P9: what a new chat session costs before the agent can answer.

import * as fs from "node:fs";
import * as path from "node:path";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { AGENT, AGENT_LINE, CONDUCTOR, PROXY, RUNS, RUST_CONDUCTOR, freshStateFile, measure, median, node, rustPeer, type Figure } from "./common.js";

/**
 * P9: a new chat session's cost before the agent can answer. Toad starts
 * `<conductor> run` for every chat; the floor is any Node program in between
 * (one that only spawns the agent and pipes its stdio).
 */
export function p9(dir: string): Figure {
  const config = path.join(dir, "p9-config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: AGENT_LINE }));
  const relay = path.join(dir, "p9-relay.mjs");
  fs.writeFileSync(
    relay,
    `import { spawn } from "node:child_process";
const [program, ...args] = process.argv.slice(2);
const agent = spawn(program, args, { stdio: "inherit" });
agent.on("exit", (code) => process.exit(code ?? 1));
`,
  );
  const env = { [STATE_FILE_ENV]: freshStateFile(dir), SYMPOSIUM_CONFIG: config };
  const startupMs = (command: string[]) => 1000 / measure("startup", 1, command, env).rate;
  const runs = { direct: [] as number[], floor: [] as number[], conductor: [] as number[], rust: [] as number[] };
  const arms: Array<[keyof typeof runs, string[]]> = [
    ["direct", AGENT],
    ["floor", [node, relay, ...AGENT]],
    ["conductor", [...CONDUCTOR, "run"]],
    // The same chain under the Rust reference conductor: our proxy as a process in front of the agent.
    ...(RUST_CONDUCTOR === null ? [] : [["rust", [RUST_CONDUCTOR, "agent", PROXY.join(" "), AGENT_LINE]] as [keyof typeof runs, string[]]]),
  ];
  arms.forEach(([, command]) => startupMs(command)); // warm-up
  for (let i = 0; i < Math.max(RUNS, 7); i++) for (const [arm, command] of arms) runs[arm].push(startupMs(command));
  const direct = median(runs.direct);
  const floor = median(runs.floor);
  const conductor = median(runs.conductor);
  const added = conductor - floor;
  return {
    id: "P9",
    what: "new chat session: `symposium-conductor run` (editor-context hook on) answering `initialize`",
    value: `+${added.toFixed(1)} ms over the floor`,
    goal: "≤ +30 ms over the floor",
    met: added <= 30,
    detail:
      `conductor ${conductor.toFixed(1)} ms; floor (a Node program that spawns the agent and pipes its stdio) ${floor.toFixed(1)} ms; the agent started directly ${direct.toFixed(1)} ms` +
      rustPeer(RUST_CONDUCTOR === null ? null : median(runs.rust), (rust) => `${rust.toFixed(1)} ms (+${(rust - floor).toFixed(1)} ms over the floor)`),
  };
}
