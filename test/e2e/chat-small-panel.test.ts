// The chat in VS Code's default bottom panel (a 1280×800 window), in
// code-server + Chromium with the demo agent, as a new user opens it: the
// chat's frame is small (its size is logged: test/process/webchat/webchat-small-panel.test.ts
// checks the page at it), the tab strip shows no scroll arrows with one tab, and
// History, once opened, fills the frame with its entry in sight.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { e2eSkipReason } from "../harness/code-server.js";
import { chatFrame, command, demoWindowSuite, waitForText } from "./panel-helpers.js";
import { askInChat, chatTranscript } from "../support/chat-frame.js";

const skip = e2eSkipReason();

describe("the chat in the default bottom panel", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite();

  it("has no scroll arrows on a one-tab strip, and History fills the frame with its entry in sight", async () => {
    await command(demo.page, "Symposium: Open Chat");
    const frame = await chatFrame(demo.page, "#input:visible", 60_000);
    const size = await frame.evaluate(() => ({ width: innerWidth, height: innerHeight }));
    process.stderr.write(`the chat's frame in the default bottom panel: ${size.width}×${size.height}\n`);
    const strip = await frame.evaluate(() => {
      const list = document.querySelector<HTMLElement>(".tab-list")!;
      return { overflowY: list.scrollHeight - list.clientHeight, overflowX: list.scrollWidth - list.clientWidth };
    });
    assert.deepEqual(strip, { overflowY: 0, overflowX: 0 }, "one tab: the strip does not scroll");

    await askInChat(frame, "hello from the bottom panel");
    await waitForText(() => chatTranscript(frame), /hello from the bottom panel[\s\S]*demo agent/, 30_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await frame.click("#history-button");
    const entry = frame.locator("#history .history-entry").first();
    await entry.waitFor({ timeout: 30_000 });
    const seen = await frame.evaluate(() => {
      const history = document.querySelector<HTMLElement>("#history")!.getBoundingClientRect();
      const first = document.querySelector<HTMLElement>("#history .history-entry")!.getBoundingClientRect();
      return { historyBottom: history.bottom, entryBottom: first.bottom, height: innerHeight };
    });
    assert.ok(seen.height - seen.historyBottom < 4, `History reaches the frame's bottom (${JSON.stringify(seen)})`);
    assert.ok(seen.entryBottom <= seen.height, `its entry is in sight (${JSON.stringify(seen)})`);
    assert.equal(await frame.locator("#transcript").isVisible(), false, "the transcript waits hidden under History");
  });
});
