// A machine setting (symposium.agents) put in User settings of a remote window, in code-server +
// Chromium (code-server's window is a remote one, as SSH, WSL, containers and Codespaces are):
// where VS Code does not read it there, no "restart the chat to use it?" offer for a value that
// will not apply, but a notice that names Remote settings and opens them (issue 50, defect 3).
// Where a VS Code does read it (the value in effect changed), the restart is offered as before.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Locator } from "playwright-core";
import { e2eSkipReason } from "../harness/code-server.js";
import { tempDir } from "../support/processes.js";
import { chatFrame, chooseColorTheme, command, demoWindowSuite, editUserSettings, extensionLog, symposiumActive, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();
const shots = process.env.SYMPOSIUM_SCREENSHOTS ?? tempDir("symposium-remote-settings-shots-");

const agent = (id: string) => ({ id, name: "From User settings", distribution: { local: { command: "my-agent", args: ["--acp"] } } });

describe("symposium.agents in User settings of a remote window", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) => symposiumActive(window.page));

  /** Symposium's notification once one shows, and whether the value in effect changed (the extension logs each change as it reads it). */
  async function afterEdit(id: string, edits: number): Promise<{ toast: Locator; applies: boolean }> {
    await editUserSettings(demo.page, demo.server, { "symposium.agents": [agent(id)] });
    const toast = demo.page.locator(".notifications-toasts .notification-toast", { hasText: /Symposium: / });
    await toast.first().waitFor({ timeout: 30_000 });
    const changes = await waitForText(async () => extensionLog(demo.server), new RegExp(`(settings changed: .*){${edits}}`, "s"), 15_000);
    const last =
      changes
        .split("\n")
        .filter((line) => line.includes("settings changed: "))
        .pop() ?? "";
    return { toast: toast.first(), applies: last.includes(`"id":"${id}"`) };
  }

  it("offers no restart for a value that does not apply, and says to use Remote settings, which it opens", async () => {
    await command(demo.page, "Symposium: Open Chat");
    const frame = await chatFrame(demo.page, "#input:visible", 60_000);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 60_000 });

    const { toast, applies } = await afterEdit("user-agent", 1);
    const text = await toast.innerText();
    if (applies) {
      // This VS Code reads the User value in a remote window: the chat can use it after a restart.
      process.stderr.write("this VS Code applies symposium.agents from User settings in a remote window: the restart is offered\n");
      assert.match(text, /Restart the chat to use it\?/);
      return;
    }
    assert.match(text, /symposium\.agents in User settings does not apply in a remote window[\s\S]*Remote settings/);
    assert.equal(
      await demo.page.locator(".notifications-toasts .notification-toast", { hasText: /Restart the chat/ }).count(),
      0,
      "no restart offered for a value that will not apply",
    );
    await toast.screenshot({ path: path.join(shots, "remote-settings-notice-light.png") });
    await toast.getByRole("button", { name: "Open Remote Settings" }).click();
    // VS Code's Settings editor, on its Remote tab.
    await demo.page.locator(".part.editor .settings-editor .settings-tabs-widget .action-label.checked", { hasText: /Remote/ }).waitFor({ timeout: 20_000 });
    await command(demo.page, "View: Close All Editors");

    await chooseColorTheme(demo.page, "Dark Modern");
    const dark = await afterEdit("user-agent-2", 2);
    assert.equal(dark.applies, false);
    await dark.toast.screenshot({ path: path.join(shots, "remote-settings-notice-dark.png") });
    process.stderr.write(`screenshots: ${shots}\n`);
  });
});
