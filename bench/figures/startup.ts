// P9: what a new chat session costs before the agent can answer.
// Toad-cold: the panel's cold start with the real Toad beside the built-in chat.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { builtinChatArgs, toadArgs } from "../../extension/src/panel/frontend-command-line.js";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../../test/harness/code-server.js";
import { startTestHost, waitForFrontend } from "../../test/support/panel-host.js";
import { TOAD_LAUNCHER, TOAD_SKIP_REASON } from "../../test/support/toad.js";
import { WEBCHAT_CLI } from "../../test/support/webchat-server.js";
import { framesMoments, noteMoments } from "./panel-reload.js";
import {
  AGENT,
  AGENT_LINE,
  BEFORE,
  CONDUCTOR,
  OUT,
  PROXY,
  REPO,
  RUNS,
  RUST_CONDUCTOR,
  beforeArm,
  freshStateFile,
  measure,
  median,
  node,
  rustPeer,
  type Figure,
} from "./common.js";

const CHAT_START = path.join(OUT, "bench", "programs", "chat-start.js");

/**
 * P9: a new chat session's cost before the agent can answer. Toad starts
 * `<conductor> run` for every chat; the floor is any Node program in between
 * (one that only spawns the agent and pipes its stdio). The goal: no slower
 * than the Rust reference conductor in front of the same chain.
 */
export function p9(dir: string): Figure[] {
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
  const runs = { direct: [] as number[], floor: [] as number[], conductor: [] as number[], before: [] as number[], rust: [] as number[] };
  const arms: Array<[keyof typeof runs, string[]]> = [
    ["direct", AGENT],
    ["floor", [node, relay, ...AGENT]],
    ["conductor", [...CONDUCTOR, "run"]],
    ...(BEFORE === null ? [] : [["before", [...BEFORE.conductor, "run"]] as [keyof typeof runs, string[]]]),
    // The same chain under the Rust reference conductor: our proxy as a process in front of the agent.
    ...(RUST_CONDUCTOR === null ? [] : [["rust", [RUST_CONDUCTOR, "agent", PROXY.join(" "), AGENT_LINE]] as [keyof typeof runs, string[]]]),
  ];
  arms.forEach(([, command]) => startupMs(command)); // warm-up
  for (let i = 0; i < Math.max(RUNS, 7); i++) for (const [arm, command] of arms) runs[arm].push(startupMs(command));
  const direct = median(runs.direct);
  const floor = median(runs.floor);
  const conductor = median(runs.conductor);
  const rust = RUST_CONDUCTOR === null ? null : median(runs.rust);
  const added = conductor - floor;
  return [
    {
      id: "P9",
      what: "new chat session: `symposium-conductor run` (editor-context hook on) answering `initialize`",
      value: `${conductor.toFixed(1)} ms, +${added.toFixed(1)} ms over the floor`,
      goal: "≤ the Rust reference conductor; ≤ +30 ms over the floor",
      met: added <= 30 && (rust === null || conductor <= rust),
      detail:
        `floor (a Node program that spawns the agent and pipes its stdio) ${floor.toFixed(1)} ms; the agent started directly ${direct.toFixed(1)} ms` +
        beforeArm(BEFORE === null ? null : median(runs.before), (before) => `${before.toFixed(1)} ms`) +
        rustPeer(rust, (value) => `${value.toFixed(1)} ms (${overFloor(value - floor)})`),
    },
    p9Chat(config, env),
  ];
}

/** "+12.3 ms over the floor", or "45.9 ms under the floor" (the Rust conductor pays no Node start of its own). */
function overFloor(ms: number): string {
  return ms >= 0 ? `+${ms.toFixed(1)} ms over the floor` : `${(-ms).toFixed(1)} ms under the floor`;
}

/**
 * P9 for the built-in chat (bench/programs/chat-start.ts): a conversation's start inside one long-lived
 * process, as the chat server pays it: the conductor's `run` in that process against the agent spawned
 * directly, and the conductor process the chat spawned before.
 */
function p9Chat(config: string, env: NodeJS.ProcessEnv): Figure {
  const output = execFileSync(node, [CHAT_START, path.join(REPO, "dist"), String(Math.max(RUNS, 7)), config, "--", ...AGENT], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  const samples = JSON.parse(output.trim()) as { direct: number[]; inProcess: number[]; process: number[] };
  const [direct, inProcess, spawned] = [median(samples.direct), median(samples.inProcess), median(samples.process)];
  return {
    id: "P9-chat",
    what: "new conversation in the built-in chat: the conductor's `run` in the chat's process (hook on) answering `initialize`",
    value: `${inProcess.toFixed(1)} ms, +${(inProcess - direct).toFixed(1)} ms over the agent started directly`,
    goal: "≤ +10 ms over the agent started directly",
    met: inProcess - direct <= 10,
    detail: `the agent started directly ${direct.toFixed(1)} ms; the conductor as a process (what the chat ran before) ${spawned.toFixed(1)} ms; all from one long-lived Node process, as the chat server, interleaved, median of ${samples.direct.length}`,
  };
}

type ColdArm = "builtin" | "toad";

/** One cold start: the panel host spawned → its frontend answering → the chat page's first server message in Chromium. */
async function coldStart(browser: Browser, arm: ColdArm, workspace: string, config: string): Promise<{ total: number; ready: number }> {
  // What the extension gives each frontend (extension/src/panel/frontend-command-line.ts).
  const conductor = { program: node, args: [CONDUCTOR[1]!] };
  const frontend =
    arm === "toad"
      ? { program: TOAD_LAUNCHER, args: toadArgs(conductor, "posix") }
      : { program: node, args: [WEBCHAT_CLI, ...builtinChatArgs(conductor, workspace)] };
  const started = Date.now();
  const host = await startTestHost({ frontend, cwd: workspace, env: { SYMPOSIUM_CONFIG: config } });
  const page = await browser.newPage();
  try {
    await waitForFrontend(host, "running", 60_000);
    const ready = Date.now() - started;
    await page.addInitScript(noteMoments, arm === "toad");
    await page.goto(`${host.gate}/?token=${host.spec.secret}`);
    const first = await page.waitForFunction(
      () => (window as unknown as { symposiumMoments: { firstMessageAt: number } }).symposiumMoments.firstMessageAt > 0,
      undefined,
      {
        timeout: 60_000,
        polling: 20,
      },
    );
    await first.dispose();
    return { total: (await framesMoments(page.mainFrame())).firstMessageAt - started, ready };
  } finally {
    await page.close();
    await fetch(`${host.gate}/.symposium/stop`, { method: "POST", headers: { authorization: `Bearer ${host.spec.secret}` } }).catch(() => undefined);
    await host.exited;
  }
}

/**
 * The panel's cold start with the real Toad (scripts/install-toad.sh) beside
 * the built-in chat, without code-server: the host spawned with the frontend
 * the extension would give it, until the chat page (Chromium, through the gate)
 * has its first server message. Interleaved; none when Toad is not installed.
 */
export async function toadColdStart(dir: string): Promise<Figure[]> {
  if (!fs.existsSync(TOAD_LAUNCHER)) {
    process.stderr.write(`Toad-cold ${TOAD_SKIP_REASON}\n`);
    return [];
  }
  const workspace = path.join(dir, "toad-cold-project");
  fs.mkdirSync(workspace, { recursive: true });
  const config = path.join(dir, "toad-cold-config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: `'${node}' '${CONDUCTOR[1]}' demo-agent`, proxies: [] }));
  const browser = await launchBrowser();
  const runs = { builtin: [] as Array<{ total: number; ready: number }>, toad: [] as Array<{ total: number; ready: number }> };
  try {
    for (let round = 0; round <= RUNS; round++) {
      for (const arm of ["builtin", "toad"] as const) {
        const sample = await coldStart(browser, arm, workspace, config);
        if (round > 0) runs[arm].push(sample); // round 0 warms the caches
      }
    }
  } finally {
    await browser.close();
  }
  const m = (arm: ColdArm, pick: (s: { total: number; ready: number }) => number) => median(runs[arm].map(pick));
  const toad = m("toad", (s) => s.total);
  const builtin = m("builtin", (s) => s.total);
  return [
    {
      id: "Toad-cold",
      what: "panel cold start with the real Toad (batrachian-toad 0.6.20): host spawned → Toad's page (Chromium, through the gate) has the first output of its Toad app",
      value: `${toad.toFixed(0)} ms = ${(toad / builtin).toFixed(2)} × the built-in chat (${builtin.toFixed(0)} ms)`,
      goal: "none (a reference beside the built-in chat)",
      met: true,
      detail: `frontend answering HTTP (host's identity says running) after ${m("toad", (s) => s.ready).toFixed(0)} ms with Toad, ${m("builtin", (s) => s.ready).toFixed(0)} ms with the built-in chat; the rest is the page: load through the gate, websocket, first output (Toad: its new app drawing its screen, textual-serve's -first-byte; built-in chat: its first server message); median of ${RUNS}, interleaved, one Chromium, no code-server`,
    },
  ];
}
