// The floor for any Node program between a client and an agent that reads the
// agent's output: spawn the agent and `pipe()` both directions, nothing else
// (P1, P2: what a Node hop costs before any proxy code runs).

import { spawn } from "node:child_process";

const [program, ...args] = process.argv.slice(2);
const agent = spawn(program!, args, { stdio: ["pipe", "pipe", "inherit"] });
agent.stdout.pipe(process.stdout);
process.stdin.pipe(agent.stdin);
agent.on("exit", (code) => process.exit(code ?? 1));
