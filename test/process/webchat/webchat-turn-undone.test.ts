// The built-in chat after a turn is undone: the real conductor in front of an
// agent that writes the disk records two turns; the checkpoint store undoes
// one as VS Code's Undo turn does (it marks the turn's record undone), and the
// page in Chromium, inside a parent frame as in VS Code's panel, then says
// "Undone" on that turn's row with no Review, Undo or Rewind left, offers
// "Rewind to here" only where a later turn still stands, and a page opened
// afterwards sees the same.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame } from "playwright-core";
import { quote } from "shell-quote";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { openChatInFrame, type ChatInFrame } from "../../support/chat-in-frame.js";
import { CONDUCTOR_CLI, OUT_DIR, scratchDirs } from "../../support/processes.js";

const skip = chromiumSkipReason();
const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");
const TIMEOUT = { timeout: 20_000 };
/** `SYMPOSIUM_SCREENSHOTS=DIR` keeps pictures of the undone turn's row, light and dark, to look at. */
const SCREENSHOTS = process.env.SYMPOSIUM_SCREENSHOTS;

const scratch = scratchDirs();

async function send(frame: Frame, steps: unknown[]): Promise<void> {
  await frame.fill("#input", JSON.stringify(steps));
  await frame.press("#input", "Enter");
}

/** Each turn row's state: its summary, whether it says Undone, and the buttons it offers (visible ones). */
function rows(frame: Frame): Promise<Array<{ text: string; buttons: string[] }>> {
  return frame.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".turn-changes")].map((note) => ({
      text: note.textContent ?? "",
      buttons: [...note.querySelectorAll<HTMLButtonElement>("button")].filter((button) => !button.hidden).map((button) => button.textContent ?? ""),
    })),
  );
}

async function screenshots(chat: ChatInFrame): Promise<void> {
  if (!SCREENSHOTS) return;
  for (const theme of ["light", "dark"]) {
    await chat.post({ type: "symposium/theme", theme });
    await chat.frame.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
    await chat.page.screenshot({ path: path.join(SCREENSHOTS, `webchat-turn-undone-${theme}.png`) });
  }
}

describe("the built-in chat: a turn undone since", { skip }, () => {
  const suite = chatSuite();

  it("says Undone on the turn's row, offers nothing there, and Rewind only where a later turn stands", async () => {
    const home = scratch("chat-undone-home-");
    const project = scratch("chat-undone-project-");
    fs.writeFileSync(path.join(project, "kept.txt"), "before\n");
    const server = await suite.serve({
      command: quote([process.execPath, CONDUCTOR_CLI, "agent", quote([process.execPath, DISK_AGENT])]),
      projectDir: project,
      env: {
        SYMPOSIUM_EDITOR_STATE_FILE: path.join(home, "no-state.json"),
        SYMPOSIUM_CONFIG: path.join(home, "config.jsonc"),
        SYMPOSIUM_CHECKPOINTS_DIR: path.join(home, "checkpoints"),
      },
    });
    const url = new URL(server.url);
    url.searchParams.set("conversation", "undone");
    const chat = await openChatInFrame(suite.browser, url.toString());
    try {
      await chat.page.setViewportSize({ width: 900, height: 420 });
      await send(chat.frame, [{ op: "write", path: "first.txt", content: "one\n" }]);
      await chat.frame.waitForSelector(".turn-changes", TIMEOUT);
      await send(chat.frame, [{ op: "edit", path: "kept.txt", find: "before", replace: "after" }]);
      await chat.frame.waitForFunction(() => document.querySelectorAll(".turn-changes").length === 2, undefined, TIMEOUT);
      assert.deepEqual(await rows(chat.frame), [
        { text: "1 file changedReviewUndo turnRewind to here", buttons: ["Review", "Undo turn", "Rewind to here"] },
        // The last turn: rewinding to it would undo nothing.
        { text: "1 file changedReviewUndo turnRewind to here", buttons: ["Review", "Undo turn"] },
      ]);
      await chat.frame.click(".turn-changes .turn-rewind");
      await chat.page.waitForFunction(() =>
        (window as unknown as { requests: Array<{ kind?: unknown }> }).requests.some((request) => request.kind === "rewindTurn"),
      );
      const [rewind] = (await chat.requests()).filter((request) => request.kind === "rewindTurn");
      const store = (await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: path.join(home, "checkpoints"), log: () => {} }))!;
      const [first, second] = store.list(project).records;
      assert.deepEqual(rewind, { kind: "rewindTurn", project, turn: first!.id }, "Rewind asks VS Code for the first turn");

      // VS Code's Undo turn on the second turn (agent-turns.ts runs the same store call).
      await store.restore(project, second!.id);
      assert.equal(fs.readFileSync(path.join(project, "kept.txt"), "utf8"), "before\n");
      await chat.frame.waitForSelector(`.turn-changes.undone[data-turn="${second!.id}"]`, TIMEOUT);
      assert.deepEqual(await rows(chat.frame), [
        // Nothing later stands: no Rewind on the first either.
        { text: "1 file changedReviewUndo turnRewind to here", buttons: ["Review", "Undo turn"] },
        { text: "1 file changedUndone", buttons: [] },
      ]);
      await screenshots(chat);

      // A page opened now replays the same: the undo is in the transcript.
      const plain = await openChatPage(suite.browser, server, { conversation: "undone" });
      await plain.waitForSelector(`.turn-changes.undone[data-turn="${second!.id}"]`, TIMEOUT);
      assert.equal(await plain.locator(`.turn-changes[data-turn="${first!.id}"].undone`).count(), 0, "the first turn stands");
      await plain.close();
    } finally {
      await chat.close();
    }
  });
});
