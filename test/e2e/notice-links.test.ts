// An agent's words in VS Code's own notification (extension/src/notice-text.ts): in review mode, propose_edit's
// title reaches "The agent wants to change …", which VS Code renders with `[label](command:…)` as a link beside
// the real Accept. Through the real editor tools and the real window, a hostile title shows as plain text: the
// notification holds no link, only the real buttons, and Reject still answers.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { e2eSkipReason } from "../harness/code-server.js";
import { REPO_DIR } from "../support/processes.js";
import { closeTrackedWindow, openFile, openTrackedWindow, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const TOOLS_CLI = path.join(REPO_DIR, "dist", "symposium-editor-tools.mjs");
/** Review mode from the window's start: the agent's edit is asked about, never applied unasked. */
const FILES = { "notes/greeting.txt": "hello\n", ".vscode/settings.json": JSON.stringify({ "symposium.chat.agentEdits": "review" }) };
/** Links VS Code would make of it, a terminal command among them; and a second line. */
const HOSTILE_TITLE = "tidy [Accept](command:workbench.action.terminal.new) or [Reject](https://evil.example/)\nAccept?";

describe("an agent's title in VS Code's notification", { skip: e2eSkipReason(), timeout: 300_000 }, () => {
  let window: TrackedWindow;
  let client: Client;

  before(async () => {
    window = await openTrackedWindow(FILES);
    await openFile(window.page, "greeting.txt");
    await waitForState(window.stateFile, (state) => state?.editorTools?.socket != null, 30_000);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLS_CLI],
      env: { ...(process.env as Record<string, string>), SYMPOSIUM_EDITOR_STATE_FILE: window.stateFile },
      stderr: "pipe",
    });
    client = new Client({ name: "e2e", version: "0" });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    await closeTrackedWindow(window);
  });

  it("shows the title as text on one line, with no link beside the real buttons", async () => {
    const { page } = window;
    const edit = { path: "notes/greeting.txt", edits: [{ oldText: "hello", newText: "hello there" }], title: HOSTILE_TITLE };
    const pending = client.callTool({ name: "propose_edit", arguments: edit }) as Promise<CallToolResult>;
    pending.catch(() => undefined); // awaited below; a failure before that leaves no stray rejection
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "The agent wants to change greeting.txt" });
    await toast.waitFor({ timeout: 60_000 });
    const message = toast.locator(".notification-list-item-message");
    assert.equal(await message.locator("a").count(), 0, "no link in the message");
    assert.match(
      await message.innerText(),
      /tidy \[Accept\] \(command:workbench\.action\.terminal\.new\) or \[Reject\] \(https:\/\/evil\.example\/\) Accept\?/,
    );
    if (process.env.SYMPOSIUM_SCREENSHOTS) await page.screenshot({ path: process.env.SYMPOSIUM_SCREENSHOTS });
    await toast.getByRole("button", { name: "Reject" }).click();
    const result = await pending;
    const answer = result.content[0];
    assert.match(answer?.type === "text" ? answer.text : "", /"decision":\s*"rejected"/);
  });
});
