// Round one's figures: the proxy and the conductor on the wire (P1–P6).
// P1–P4 run the bench client against the agent directly and through the
// candidate, interleaved; P5 times one injection in this process.

import * as path from "node:path";
import * as fs from "node:fs";
import { parseLine } from "../../acp-wire/src/index.js";
import { EditorContextInjector } from "../../editor-context-proxy/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import {
  AGENT,
  AGENT_LINE,
  NODE_RELAY,
  POSIX_SHELL,
  RUST_CONDUCTOR,
  beforeArm,
  catBetween,
  type Arm,
  type Measured,
  freshStateFile,
  interleaved,
  measure,
  median,
  programsFor,
  ratioFigure,
  rustPeer,
  type Figure,
} from "./common.js";

/** The command for each arm of P1 and P2: the agent, the proxy in wrap mode (this build's or the one before), `cat` hops, or a bare Node relay. */
function wrapArm(arm: Arm, cat: string[]): string[] {
  if (arm === "baseline") return AGENT;
  if (arm === "candidate" || arm === "before") return [...programsFor(arm).proxy, "--", ...AGENT];
  return arm === "relay" ? [...NODE_RELAY, ...AGENT] : cat;
}

export function p1andP6(): Figure[] {
  const count = 100_000;
  const result = interleaved((arm) => measure("down", count, wrapArm(arm, catBetween(0, 1))), { reference: POSIX_SHELL, relay: true });
  const peakMb = Math.max(...result.rss) / 1024;
  return [
    ratioFigure("P1", "wrap-mode proxy (the conductor's chain, the agent its one process), agent→client flood of 1 KiB session/update", 0.25, "msg/s", result),
    {
      id: "P6",
      what: "proxy resident memory during P1",
      value: `${peakMb.toFixed(1)} MB peak`,
      goal: "≤ 60 MB",
      met: peakMb <= 60,
      detail: `peak VmRSS of the proxy process over ${result.rss.length} runs (median of the runs' peaks: ${(median(result.rss) / 1024).toFixed(1)} MB; a Node program that only pipes: ${(Math.max(...result.relayRss) / 1024).toFixed(1)} MB; a bare \`node\` starts at about 41 MB)`,
    },
  ];
}

export function p2(): Figure {
  const count = 100_000;
  const result = interleaved((arm) => measure("up", count, wrapArm(arm, catBetween(1, 0))), { reference: POSIX_SHELL, relay: true });
  return ratioFigure("P2", "wrap-mode proxy (the conductor's chain), client→agent flood of 1 KiB non-prompt messages", 0.25, "msg/s at the agent", result);
}

export function p3(dir: string): Figure {
  const count = 2_000;
  // The arms with editor context must have put it in front of every prompt (a stale state file would not).
  const withEditorContext = (arm: Arm, command: string[]): Measured => {
    // Turn checkpoints off: P3 is the route's cost; a snapshot per prompt is C1's (checkpoints.ts).
    const result = measure("prompts", count, command, { [STATE_FILE_ENV]: freshStateFile(dir), SYMPOSIUM_CHECKPOINTS: "off" });
    if (result.withContext !== count) throw new Error(`P3, ${arm}: ${result.withContext ?? 0} of ${count} prompts reached the agent with editor context`);
    return result;
  };
  const result = interleaved(
    (arm) =>
      arm === "baseline"
        ? measure("prompts", count, AGENT)
        : arm === "candidate" || arm === "before"
          ? withEditorContext(arm, [...programsFor(arm).conductor, "agent", AGENT_LINE])
          : arm === "rust"
            ? // The Rust conductor has no in-process hook: our proxy runs as its first component.
              withEditorContext(arm, [RUST_CONDUCTOR!, "agent", programsFor(arm).proxy.join(" "), AGENT_LINE])
            : measure("prompts", count, arm === "relay" ? [...NODE_RELAY, ...AGENT] : catBetween(1, 1)),
    { reference: POSIX_SHELL, relay: true, rust: RUST_CONDUCTOR !== null },
  );
  // A sequential ping-pong is latency: say what the conductor adds to one round trip.
  const micros = (rate: number) => 1e6 / rate;
  const direct = micros(result.baseline);
  const added = micros(result.candidate) - direct;
  const ratio = result.candidate / result.baseline;
  const signed = (us: number) => `${us < 0 ? "−" : "+"}${Math.abs(us).toFixed(0)} µs`;
  const cat =
    (result.reference === null ? "" : `; the same hops through \`cat\`: ${signed(micros(result.reference) - direct)}`) +
    (result.relay === null ? "" : `; a Node program that only pipes: ${signed(micros(result.relay) - direct)}`) +
    beforeArm(result.before, (before) => signed(micros(before) - direct)) +
    rustPeer(result.rust, (rust) => `${signed(micros(rust) - direct)} (our proxy as its component)`);
  return {
    id: "P3",
    what: "conductor with the in-process editor-context proxy: added latency per prompt round trip",
    value: `${signed(added)} (${ratio.toFixed(2)} × direct)`,
    goal: "ahead of the Rust reference conductor (fewer µs added)",
    met: result.rust !== null && result.candidate > result.rust,
    detail: `${micros(result.candidate).toFixed(0)} vs ${direct.toFixed(0)} µs per round trip (${Math.round(result.candidate).toLocaleString("en")} vs ${Math.round(result.baseline).toLocaleString("en")} round trips/s)${cat}`,
  };
}

export function p4(): Figure {
  const count = 20_000;
  // Agent → conductor → proxy → conductor → proxy → conductor → proxy → conductor → client: 7 extra hops.
  const chain = (conductor: string[], programs: { proxy: string[] }) => {
    const proxy = programs.proxy.join(" ");
    return [...conductor, "agent", proxy, proxy, proxy, AGENT_LINE];
  };
  const result = interleaved(
    (arm) =>
      measure(
        "down",
        count,
        arm === "baseline"
          ? AGENT
          : arm === "candidate" || arm === "before"
            ? chain(programsFor(arm).conductor, programsFor(arm))
            : arm === "rust"
              ? chain([RUST_CONDUCTOR!], programsFor(arm))
              : catBetween(0, 7),
      ),
    { reference: POSIX_SHELL, rust: RUST_CONDUCTOR !== null },
  );
  const figure = ratioFigure("P4", "conductor with 3 pass-through proxy processes, agent→client flood", 0, "msg/s", result, true);
  return { ...figure, goal: "ahead of the Rust reference conductor", met: result.rust !== null && result.candidate > result.rust };
}

/** P5, in process: one injection with a 64 KiB selection, the file rewritten before each so it is read every time. */
export function p5(dir: string): Figure {
  const iterations = 2_000;
  const line = Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "explain" }] } }),
  );
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
    fs.writeFileSync(
      file,
      JSON.stringify({
        activeFile: "/p/a.ts",
        languageId: "typescript",
        selection: { text: `${i}${selection}`, startLine: 1, endLine: 2_200 },
        workspaceFolders: ["/p"],
      }),
    );
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
