// The stop sequence (acp-wire/src/processes.ts) with real processes: a
// missing `ps` crashes nothing, a descendant in a group of its own is found
// while its parent lives and ends too, and many stops at once leave the event
// loop free (the process table is walked asynchronously, once for them all).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { spawnProgram, stopProcesses, taskkillArgs } from "../../acp-wire/src/index.js";
import { OUT_DIR, descendants, eventually, isAlive, startProcess, tempDir } from "../support/processes.js";

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

  it("asks Windows politely first: taskkill /T, then /T /F", () => {
    assert.deepEqual(taskkillArgs([12, 34], false), ["/PID", "12", "/PID", "34", "/T"]);
    assert.deepEqual(taskkillArgs([12], true), ["/PID", "12", "/T", "/F"]);
  });
});
