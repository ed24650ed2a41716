import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { RestartPolicy } from "../../../panel-host/src/restart-policy.js";

describe("frontend restart policy", () => {
  const options = { maxCrashes: 4, windowMs: 60_000, baseDelayMs: 500, maxDelayMs: 1_500 };

  it("restarts with doubling delays, capped, then gives up within the window", () => {
    const policy = new RestartPolicy(options);
    assert.deepEqual(policy.onCrash(0), { action: "restart", delayMs: 500, crashes: 1 });
    assert.deepEqual(policy.onCrash(1_000), { action: "restart", delayMs: 1_000, crashes: 2 });
    assert.deepEqual(policy.onCrash(2_000), { action: "restart", delayMs: 1_500, crashes: 3 });
    assert.deepEqual(policy.onCrash(3_000), { action: "give-up", crashes: 4 });
  });

  it("forgets crashes older than the window", () => {
    const policy = new RestartPolicy(options);
    policy.onCrash(0);
    policy.onCrash(1_000);
    policy.onCrash(30_000);
    assert.deepEqual(policy.onCrash(70_000), { action: "restart", delayMs: 1_000, crashes: 2 });
  });
});
