// Nothing of the real Toad is left behind (issue 49): after rounds of what a
// user does to the panel — the page reloaded (Toad starts a new app per
// websocket; the old one is asked to quit), then Stop or Restart Chat (the
// extension asks the host to stop and ends its process tree) — no process is
// left running in the project. Under CPU load, as in the bench run where
// three Toad apps (they ignore SIGTERM) outlived their parent.

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import WebSocket from "ws";
import { requestStop } from "../../extension/src/panel/panel-host-client.js";
import { stopProcessTree } from "../../acp-wire/src/processes.js";
import { busyLoops } from "../support/cpu-load.js";
import { eventually } from "../support/processes.js";
import { appsAndAgents, realToadSkip, startToadHost, type ToadHost } from "../support/toad.js";

const skip = realToadSkip();
const ROUNDS = 3;

/** Pids of the processes whose working directory is `dir` (Linux /proc). */
function processesIn(dir: string): number[] {
  const real = fs.realpathSync(dir);
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
        return cwd === real || cwd.startsWith(`${real}${path.sep}`);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

function describeProcesses(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim()}`;
      } catch {
        return `${pid} (gone)`;
      }
    })
    .join("; ");
}

/** A page's websocket to Toad through the gate: Toad starts an app (with its conductor and agent) for it. */
function openPage(host: ToadHost): WebSocket {
  const { port, secret } = host.spec;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?width=80&height=24&token=${secret}`, { headers: { origin: `http://127.0.0.1:${port}` } });
  socket.on("error", () => {});
  return socket;
}

/** Waits until an app other than `before`'s runs with its conductor and agent. */
async function newAppRuns(host: ToadHost, before: number[]): Promise<void> {
  await eventually(() => appsAndAgents(host).filter((pid) => !before.includes(pid)).length >= 3, 60_000, "a new Toad app, its conductor and its agent");
}

/** What Stop and Restart Chat do to the host (panel-lifecycle.ts stopHost): ask it, then end its tree. */
async function stopAsTheExtensionDoes(host: ToadHost): Promise<void> {
  await requestStop(host.spec.port, host.spec.secret);
  await stopProcessTree(host.child.pid!);
}

describe("the real Toad leaves nothing behind", { skip, timeout: 600_000 }, () => {
  it(`after ${ROUNDS} rounds of a page reload then Stop or Restart, under CPU load: no process left in the project`, async () => {
    const projects: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const host = await startToadHost();
      projects.push(host.workspace);
      const first = openPage(host);
      await newAppRuns(host, []);
      // The page reloads: its websocket closes and a new one comes; Toad starts another app.
      const before = appsAndAgents(host);
      first.close();
      const second = openPage(host);
      await newAppRuns(host, before);
      const load = busyLoops(3);
      try {
        await stopAsTheExtensionDoes(host);
      } finally {
        load.stop();
        second.terminate();
      }
      await host.exited;
    }
    const left = (): number[] => projects.flatMap(processesIn);
    // Whatever the stop ended may take a moment to be reaped; what is still there then was left behind.
    await eventually(() => left().length === 0, 5_000, "no process left in the projects").catch((error: Error) => {
      const pids = left();
      for (const pid of pids) process.kill(pid, "SIGKILL");
      throw new Error(`${error.message}: ${describeProcesses(pids)}`);
    });
  });
});
