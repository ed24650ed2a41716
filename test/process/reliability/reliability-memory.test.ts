// Bounded memory through every hop (docs/conductor.md, docs/proxy.md:
// "Guarantees"): when the client stops reading, or the agent stops reading,
// the chain holds the writer back instead of buffering what it cannot pass on.
// Resident memory is read from /proc while 200 MB try to flow; then the
// reader resumes and every line must still arrive.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { descendants, eventually, tempDir, type RunningProcess } from "../../support/processes.js";
import { chainWithFaultAgent, peakResidentMb, reap, type Shape } from "../../support/reliability.js";

const skip = fs.existsSync("/proc/self/status") ? false : "reads resident memory from /proc";
const VOLUME = 200 * 1024 * 1024;
const LINE_BYTES = 16 * 1024;
const LIMIT_MB = 150;

/** The chain's own processes: wrap mode's proxy, or the conductor and its proxy processes (not the agent). */
function chainPids(proc: RunningProcess, agentPid: number | undefined): number[] {
  const pid = proc.child.pid!;
  return [pid, ...descendants(pid).filter((child) => child !== agentPid)];
}

function agentPid(proc: RunningProcess): number | undefined {
  const all = descendants(proc.child.pid!);
  const table = all.map((pid) => ({ pid, cmd: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") }));
  return table.find((entry) => entry.cmd.includes("fault-agent"))?.pid;
}

function chainFor(shape: Shape | "conductor+proxy", env: NodeJS.ProcessEnv): RunningProcess {
  return shape === "conductor+proxy" ? chainWithFaultAgent("conductor", env, 1) : chainWithFaultAgent(shape, env);
}

for (const shape of ["wrap", "conductor", "conductor+proxy"] as const) {
  describe(`${shape}: bounded memory`, () => {
    it(`stays under ${LIMIT_MB} MB while the client reads nothing and the agent sends 200 MB, and loses nothing`, { skip }, async () => {
      const progress = path.join(tempDir(), "progress");
      const proc = chainFor(shape, { FAULT_PROGRESS_FILE: progress });
      const out = proc.child.stdout!;
      out.pause();
      proc.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "_test/flood", params: { bytes: VOLUME, lineBytes: LINE_BYTES } }) + "\n");
      await eventually(() => agentPid(proc) !== undefined, 10_000, "the agent to start");
      const agent = agentPid(proc);
      const pids = chainPids(proc, agent);
      let last = { bytes: 0, lines: 0 };
      const flood = (): { bytes: number; lines: number } => {
        try {
          last = JSON.parse(fs.readFileSync(progress, "utf8")) as { bytes: number; lines: number };
        } catch {
          // not written yet, or being rewritten
        }
        return last;
      };
      const written = (): number => flood().bytes;
      const floodDoneOrTimeout = (async () => {
        const deadline = Date.now() + 4_000;
        while (Date.now() < deadline && written() < VOLUME) await sleep(50);
      })();
      const peaks = await peakResidentMb(pids, floodDoneOrTimeout);

      let newlines = 0;
      let answered = false;
      let tail = "";
      out.on("data", (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
        tail = (tail + chunk.toString("utf8", Math.max(0, chunk.length - 200))).slice(-400);
        if (tail.includes('"id":1,"result"')) answered = true;
      });
      out.resume();
      const deadline = Date.now() + 15_000;
      while (!answered && Date.now() < deadline) await sleep(50);
      proc.child.stdin!.end();
      await proc.exited;
      reap(agent);
      assert.ok(
        peaks.every((peak) => peak < LIMIT_MB),
        `peak resident memory ${peaks.map((peak) => peak.toFixed(0)).join(", ")} MB (pids ${pids.join(",")}), limit ${LIMIT_MB} MB`,
      );
      assert.ok(answered, "the flood's answer arrived after the client resumed");
      assert.equal(newlines, flood().lines + 1, "every line arrived, and the answer");
    });

    it(`stays under ${LIMIT_MB} MB while the agent reads nothing and the client sends 200 MB`, { skip }, async () => {
      const proc = chainFor(shape, { FAULT_DEAF: "1" });
      await eventually(() => agentPid(proc) !== undefined, 10_000, "the agent to start");
      const agent = agentPid(proc);
      const pids = chainPids(proc, agent);
      const line = JSON.stringify({ jsonrpc: "2.0", method: "_test/note", params: { text: "y".repeat(LINE_BYTES) } }) + "\n";
      const input = proc.child.stdin!;
      input.on("error", () => {});
      const send = (async () => {
        const deadline = Date.now() + 4_000;
        let sent = 0;
        while (sent < VOLUME && Date.now() < deadline) {
          sent += line.length;
          if (!input.write(line)) {
            await Promise.race([new Promise((resolve) => input.once("drain", resolve)), sleep(Math.max(0, deadline - Date.now()))]);
          }
        }
      })();
      const peaks = await peakResidentMb(pids, send);
      proc.child.kill("SIGTERM");
      await proc.exited;
      reap(agent);
      assert.ok(
        peaks.every((peak) => peak < LIMIT_MB),
        `peak resident memory ${peaks.map((peak) => peak.toFixed(0)).join(", ")} MB (pids ${pids.join(",")}), limit ${LIMIT_MB} MB`,
      );
    });
  });
}
