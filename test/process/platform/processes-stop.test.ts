// The stop sequence (acp-wire/src/processes.ts) with real processes: a
// missing `ps` crashes nothing, a descendant in a group of its own is found
// while its parent lives and ends too (read before any signal), SIGKILL is sent
// however late the timers fire, and many stops at once leave the event
// loop free (the process table is walked asynchronously, once for them all).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { spawnProgram, stopProcesses, stopProcessTree, taskkillArgs } from "../../../acp-wire/src/index.js";
import { OUT_DIR, descendants, eventually, isAlive, startProcess, tempDir } from "../../support/processes.js";

const STOP_HOST = path.join(OUT_DIR, "test", "fixtures", "stop-host.js");
const POSIX = process.platform !== "win32";

describe("stopping processes", () => {
  it(
    "survives a PATH without ps (or any other tool), and the child and its detached grandchild still end",
    { skip: !POSIX && "POSIX signals and PATH layout" },
    async () => {
      const dir = tempDir("stop-host-");
      const pidsFile = path.join(dir, "grandchild");
      // A PATH holding only node (node's own folder may be /usr/bin, which has ps): no ps, no pgrep, no sh.
      const bin = path.join(dir, "bin");
      fs.mkdirSync(bin);
      fs.symlinkSync(process.execPath, path.join(bin, "node"));
      const host = startProcess(process.execPath, [STOP_HOST, "--pids", pidsFile], { PATH: bin });
      const status = await host.exited;
      assert.equal(status, 0, `the host ended with ${status}:\n${host.stderr()}`);
      assert.match(host.stderr(), /^survived$/m);
      const child = Number(/^child (\d+)$/m.exec(host.stderr())![1]);
      const grandchild = Number(fs.readFileSync(pidsFile, "utf8"));
      await eventually(() => !isAlive(child) && !isAlive(grandchild), 10_000, "the child and its grandchild to end");
    },
  );

  it("stops 100 process trees at once without blocking the event loop", { skip: !POSIX && "uses /bin/sh and sleep" }, async () => {
    const children = Array.from({ length: 100 }, () =>
      // sh ignores the end of its input; its sleeps are descendants the stop must find.
      spawnProgram("/bin/sh", ["-c", "sleep 60 & sleep 60 & wait"], { stdio: ["pipe", "ignore", "ignore"] }),
    );
    const sleepsOf = () => children.flatMap((child) => descendants(child.pid!));
    await eventually(() => sleepsOf().length === 200, 10_000, "each tree to have its two sleeps");
    const sleeps = sleepsOf();
    let worstGap = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      worstGap = Math.max(worstGap, Date.now() - last);
      last = Date.now();
    }, 5);
    const started = Date.now();
    await Promise.all(children.map((child) => stopProcesses([child])));
    const took = Date.now() - started;
    clearInterval(ticker);
    assert.ok(worstGap < 250, `the event loop stalled for ${worstGap} ms while stopping 100 trees`);
    assert.ok(took < 3_000, `stopping 100 trees took ${took} ms`);
    assert.ok(
      children.every((child) => child.exitCode !== null || child.signalCode !== null),
      "every root ended",
    );
    await eventually(() => sleeps.every((pid) => !isAlive(pid)), 2_000, "every sleep to end");
  });

  it(
    "reads the tree before signalling it: a child in a group of its own that ignores SIGTERM ends though its parent ends on SIGTERM at once",
    { skip: !POSIX && "POSIX process groups" },
    async () => {
      // The parent ends on SIGTERM; its child leads a group of its own and ignores SIGTERM, as Toad's server and its apps did (issue 49).
      const child = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.stdout.write('ready')";
      const parent = spawnProgram(
        process.execPath,
        [
          "-e",
          `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });` +
            "c.stdout.once('data', () => process.stdout.write(String(c.pid))); process.on('SIGTERM', () => process.exit(0));",
        ],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
      const grandchild = await new Promise<number>((resolve) => parent.stdout!.once("data", (data: Buffer) => resolve(Number(data.toString()))));
      await stopProcessTree(parent.pid!);
      await eventually(() => !isAlive(grandchild), 5_000, "the child in a group of its own to end").catch((error: Error) => {
        process.kill(grandchild, "SIGKILL");
        throw error;
      });
    },
  );

  it("sends SIGKILL before giving up even when a busy machine's tick comes past both moments at once", { skip: !POSIX && "POSIX signals" }, async () => {
    const stubborn = spawnProgram(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.stdout.write('ready')"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    await new Promise((resolve) => stubborn.stdout!.once("data", resolve));
    const stopped = stopProcessTree(stubborn.pid!, { sigtermAfterMs: 0, sigkillAfterMs: 100, giveUpAfterMs: 150 });
    // The event loop held past the SIGKILL and the give-up moments, as a loaded machine holds it.
    const until = Date.now() + 400;
    while (Date.now() < until) {
      // busy
    }
    await stopped;
    await eventually(() => stubborn.exitCode !== null || stubborn.signalCode !== null, 5_000, "the process that ignores SIGTERM to end").catch(
      (error: Error) => {
        stubborn.kill("SIGKILL");
        throw error;
      },
    );
  });

  it("asks Windows politely first: taskkill /T, then /T /F", () => {
    assert.deepEqual(taskkillArgs([12, 34], false), ["/PID", "12", "/PID", "34", "/T"]);
    assert.deepEqual(taskkillArgs([12], true), ["/PID", "12", "/T", "/F"]);
  });
});
