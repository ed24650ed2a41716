// A window reload while the machine is busy brings the chat in the panel back
// live (issue 49, P8): in a CI run on a loaded machine the panel on VS Code
// 1.139 still said "Reconnecting to the chat…" over its kept copy 66 s after a
// reload. Here three busy-loop processes keep the cores busy from before the
// reload until the chat is live again, in code-server + Chromium with the demo
// agent; the reload is repeated, each round bounded. Also reported (not
// asserted: a loaded machine cannot meet them): the kept copy on screen and the
// chat live, after the extension activated (P8's goals: 300 ms and 1 s).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { e2eSkipReason, runCommand } from "../harness/code-server.js";
import type { CodeServer } from "../harness/code-server.js";
import { askInChat, chatTranscript } from "../support/chat-frame.js";
import { busyLoops } from "../support/cpu-load.js";
import { chatFrame, command, demoWindowSuite, extensionLog, symposiumActive, waitForText, watchPanel } from "./panel-helpers.js";

const skip = e2eSkipReason();

/** Reloads under load; each must bring the chat back within the bound. */
const ROUNDS = 2;
/**
 * The extension activated → the chat live again, busy cores and all (the failure stayed "Reconnecting" for
 * good). Bounded from our activation: VS Code's own share of a reload (workbench, extension host) on a machine
 * this loaded can take minutes, and is waited for without a bound of ours.
 */
const LIVE_AFTER_ACTIVATION_MS = 30_000;
const VSCODE_BACK_MS = 300_000;
const BUSY_LOOPS = 3;

/** When the extension's log last said it activated, after `since` (its lines carry the local wall clock, as this process's). */
function activatedAt(server: CodeServer, since: number): number | undefined {
  const times = extensionLog(server)
    .split("\n")
    .filter((line) => /\] Symposium .* activated/.test(line))
    .map((line) => new Date(line.slice(0, 23).replace(" ", "T")).getTime())
    .filter((at) => at >= since);
  return times.at(-1);
}

describe("the panel after a window reload on a busy machine", { skip, timeout: 900_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) => symposiumActive(window.page));

  it(`comes back live within ${LIVE_AFTER_ACTIVATION_MS / 1000} s of activation after each of ${ROUNDS} reloads while ${BUSY_LOOPS} busy loops run`, async () => {
    await demo.page.keyboard.press("Control+Alt+Y");
    const frame = await chatFrame(demo.page, "#input:visible", 60_000);
    await askInChat(frame, "a question before the reloads");
    await waitForText(() => chatTranscript(frame), /a question before the reloads[\s\S]*demo agent/, 60_000);
    const asked = "a question before the reloads";
    for (let round = 1; round <= ROUNDS; round++) {
      // The chat page sends the panel its copy at most once a second: the reload finds it kept.
      await demo.page.waitForTimeout(1_500);
      const load = busyLoops(BUSY_LOOPS);
      try {
        const pressed = Date.now();
        await (round === 1 ? command(demo.page, "Developer: Reload Window") : runCommand(demo.page, "Developer: Reload Window"));
        await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: VSCODE_BACK_MS });
        const looks = await watchPanel(demo.page, (look) => look.chat.includes(asked) && !look.kept, VSCODE_BACK_MS);
        const live = looks.at(-1)!.at!;
        const activated = activatedAt(demo.server, pressed);
        const keptSeen = looks.find((look) => look.kept.includes(asked))?.at;
        const after = (at: number | undefined) => (at === undefined || activated === undefined ? "?" : `${at - activated}`);
        process.stderr.write(
          `round ${round}: reload → live ${live - pressed} ms; after activation: kept copy on screen ${after(keptSeen)} ms, live ${after(live)} ms\n`,
        );
        assert.ok(activated !== undefined, "the extension's log says it activated");
        assert.ok(live - activated <= LIVE_AFTER_ACTIVATION_MS, `live ${live - activated} ms after the extension activated`);
        assert.equal(
          looks.find((look) => look.status.includes("Starting")),
          undefined,
          "the remembered host is reconnected to, never replaced by a new one",
        );
      } finally {
        load.stop();
      }
    }
  });
});
