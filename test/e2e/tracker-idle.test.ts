// An idle window's state file never goes stale (the reader skips a file older
// than 30 s): the tracker refreshes it while nothing changes. Kept lean, and
// in a file of its own: it has to watch an untouched window for a minute.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { e2eSkipReason } from "../harness/code-server.js";
import { closeTrackedWindow, openTrackedWindow, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const skip = e2eSkipReason();
const SAMPLES = 13;
const SAMPLE_EVERY_MS = 5_000;

describe("editor state tracker in an idle code-server window", { skip, timeout: 300_000 }, () => {
  let window: TrackedWindow;

  before(async () => {
    window = await openTrackedWindow();
  });

  after(() => closeTrackedWindow(window));

  it("keeps an idle window's file younger than 30 s over a minute", async () => {
    await waitForState(window.stateFile, (state) => state !== null);
    const ages: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
      ages.push(Date.now() - fs.statSync(window.stateFile).mtimeMs);
    }
    console.log(`idle file ages (s): ${ages.map((age) => (age / 1000).toFixed(1)).join(" ")}`);
    assert.ok(Math.max(...ages) < 30_000, `oldest ${Math.max(...ages)} ms`);
    assert.ok(Math.max(...ages) > 1_000, "the samples did see time pass");
  });
});
