// Workspace trust, in code-server + Chromium with VS Code's
// workspace trust on: the folder opens in Restricted Mode; opening the chat
// starts no host, chat, agent or command, and the panel says why, with a button
// to the trust editor; once the user trusts the folder there, the chat starts.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { e2eSkipReason } from "../harness/code-server.js";
import { chatFrame, command, demoWindowSuite, extensionLog, panelStatusFrame, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();

describe("the chat in an untrusted workspace (Restricted Mode)", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, undefined, { workspaceTrust: true });

  it("starts nothing and says why, with a button to the trust editor", async () => {
    await demo.page
      .locator(".statusbar-item", { hasText: /Restricted Mode/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await command(demo.page, "Symposium: Open Chat");
    const panel = await panelStatusFrame(demo.page, /Restricted Mode/, 30_000);
    assert.match(await panel.locator("#message").innerText(), /starts once you trust the workspace/);
    assert.equal(await panel.locator("#retry").innerText(), "Manage Workspace Trust");
    await demo.page.waitForTimeout(2000);
    const log = extensionLog(demo.server);
    assert.match(log, /the workspace is not trusted \(Restricted Mode\): the chat starts once it is/);
    assert.doesNotMatch(log, /starting the chat host/, "no host started");
    assert.equal(demo.page.frames().filter((frame) => /[?&]token=/.test(frame.url())).length, 0, "no chat frame");
  });

  it("starts the chat once the user trusts the workspace", async () => {
    const panel = await panelStatusFrame(demo.page, /Restricted Mode/, 10_000);
    await panel.locator("#retry").click();
    const trust = demo.page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust/ }).first();
    await trust.waitFor({ timeout: 30_000 });
    await trust.click();
    const frame = await chatFrame(demo.page, "#input:visible", 60_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    await waitForText(async () => extensionLog(demo.server), /the workspace is trusted now: starting the chat/, 10_000);
  });
});
