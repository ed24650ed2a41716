// The built-in chat after a turn that changed files: the
// real conductor in front of an agent that writes the disk itself records the
// turn, the chat server reads its checkpoint record, and the page in Chromium
// shows "N files changed" with Review and Undo turn; inside VS Code's panel
// (a parent frame here) the buttons ask VS Code, through the bridge, to
// review or undo that turn. A turn that changed nothing shows nothing.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Frame } from "playwright-core";
import { quote } from "shell-quote";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { openChatInFrame } from "../../support/chat-in-frame.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, scratchDirs } from "../../support/processes.js";

const skip = chromiumSkipReason();
const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");

const scratch = scratchDirs();

async function send(frame: Frame, steps: unknown[]): Promise<void> {
  await frame.fill("#input", JSON.stringify(steps));
  await frame.press("#input", "Enter");
}

describe("the built-in chat: a turn's changed files (checkpoints)", { skip }, () => {
  const suite = chatSuite();

  /** The chat server on our conductor in front of the disk agent, recording turns under `home`. */
  function serveDiskAgent(home: string, project: string, env: Record<string, string> = {}) {
    return suite.serve({
      command: quote([process.execPath, CONDUCTOR_CLI, "agent", quote([process.execPath, DISK_AGENT])]),
      projectDir: project,
      env: {
        SYMPOSIUM_EDITOR_STATE_FILE: path.join(home, "no-state.json"),
        SYMPOSIUM_CONFIG: path.join(home, "config.jsonc"),
        SYMPOSIUM_CHECKPOINTS_DIR: path.join(home, "checkpoints"),
        ...env,
      },
    });
  }

  it("shows 'N files changed' after a turn that wrote files, and Review / Undo turn ask VS Code for that turn", async () => {
    const home = scratch("chat-turns-home-");
    const project = scratch("chat-turns-project-");
    fs.writeFileSync(path.join(project, "kept.txt"), "before\n");
    const checkpoints = path.join(home, "checkpoints");
    const server = await serveDiskAgent(home, project);
    const url = new URL(server.url);
    url.searchParams.set("conversation", "turns");
    const chat = await openChatInFrame(suite.browser, url.toString());
    try {
      await send(chat.frame, [
        { op: "write", path: "new.txt", content: "made by the agent\n" },
        { op: "edit", path: "kept.txt", find: "before", replace: "after" },
      ]);
      const note = await chat.frame.waitForSelector(".turn-changes", { timeout: 20_000 });
      assert.match((await note.textContent()) ?? "", /^2 files changed/);
      // `SYMPOSIUM_SCREENSHOTS=DIR` keeps a picture of the note, to look at.
      if (process.env.SYMPOSIUM_SCREENSHOTS) await chat.page.screenshot({ path: path.join(process.env.SYMPOSIUM_SCREENSHOTS, "turn-changes.png") });
      const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: checkpoints, log: () => {} });
      const [turn] = store!.list(project).records;
      assert.equal(await note.getAttribute("data-turn"), turn!.id);

      await chat.frame.click(".turn-changes .turn-review");
      await chat.frame.click(".turn-changes .turn-undo");
      await chat.page.waitForFunction(
        () => (window as unknown as { requests: Array<{ kind?: unknown }> }).requests.filter((request) => String(request.kind).endsWith("Turn")).length === 2,
      );
      const asked = (await chat.requests()).filter((request) => String(request.kind).endsWith("Turn"));
      assert.deepEqual(asked, [
        { kind: "reviewTurn", project, turn: turn!.id },
        { kind: "undoTurn", project, turn: turn!.id },
      ]);
      // The last turn: rewinding to it would undo nothing (webchat-turn-undone.test.ts asks for an earlier one's).
      assert.equal(await chat.frame.locator(".turn-changes .turn-rewind").isHidden(), true);

      // A turn that changed nothing: recorded, and no note for it.
      await send(chat.frame, []);
      await eventually(() => store!.list(project).records.filter((record) => record.state === "done").length === 2, 20_000, "the second turn's record");
      // The note would come from the same record: a page opened now has the whole transcript, with the one note.
      const plain = await openChatPage(suite.browser, server, { conversation: "turns" });
      await plain.waitForSelector(".turn-changes");
      await plain.waitForFunction(() => document.querySelectorAll(".message.user").length === 2);
      assert.equal(await plain.locator(".turn-changes").count(), 1);
      // Outside VS Code's panel: no buttons, the command line instead.
      assert.equal(await plain.locator(".turn-changes button").count(), 0);
      assert.match((await plain.textContent(".turn-changes")) ?? "", /checkpoints diff/);
      await plain.close();
    } finally {
      await chat.close();
    }
  });

  it("says so when a turn's changes could not be recorded (a snapshot over its time budget), with no Review or Undo", async () => {
    const home = scratch("chat-turns-home-");
    const project = scratch("chat-turns-project-");
    // No snapshot (a git process) finishes in 1 ms: the turn is skipped, as a very big project's is.
    const server = await serveDiskAgent(home, project, { SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "1" });
    const url = new URL(server.url);
    url.searchParams.set("conversation", "too-big");
    const chat = await openChatInFrame(suite.browser, url.toString());
    try {
      await send(chat.frame, [{ op: "write", path: "new.txt", content: "made by the agent\n" }]);
      const note = await chat.frame.waitForSelector(".turn-not-recorded", { timeout: 20_000 });
      assert.match((await note.textContent()) ?? "", /not recorded.*budget/);
      assert.equal(await chat.frame.locator(".turn-changes button").count(), 0);
      assert.equal(fs.readFileSync(path.join(project, "new.txt"), "utf8"), "made by the agent\n", "the agent's write itself is untouched");
    } finally {
      await chat.close();
    }
  });
});
