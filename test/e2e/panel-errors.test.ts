// The panel's settings and errors in a real VS Code (code-server) in a real
// browser, driven like a user: changing a setting the chat was started with
// offers a restart; a wrong symposium.acpAgentPath and a frontend that exits
// at once are shown in the panel (themed, with what to do) and in the log,
// and the panel's Retry button tries again. One user's session: each step
// starts from the state the one before left.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import getPort from "get-port";
import type { Browser, Frame, Page } from "playwright-core";
import { e2eSkipReason, type CodeServer } from "../harness/code-server.js";
import { CONDUCTOR_CLI, eventually, tempDir } from "../support/processes.js";
import { FAKE_TOAD, hostProcesses } from "../support/panel-host.js";
import { chatFrame, closeDemoWindow, command, editSettings, extensionLog, gatePort, openDemoWindow, panelStatusFrame } from "./panel-helpers.js";

const skip = e2eSkipReason();

/** Clicks Restart on the notification that says `changed` changed (the offer to restart). */
async function acceptRestartOffer(page: Page, changed: string): Promise<void> {
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: `${changed} changed` });
  await toast.first().waitFor({ timeout: 15_000 });
  assert.match(await toast.first().innerText(), /Restart the chat to use it\?/);
  await toast.first().locator(".monaco-button", { hasText: "Restart" }).click();
}

/** Waits for a host other than `previous`, and returns its pid. */
async function newHost(workspace: string, previous: number | undefined): Promise<number> {
  await eventually(() => hostProcesses(workspace).some((pid) => pid !== previous), 20_000, "a new host");
  return hostProcesses(workspace).find((pid) => pid !== previous)!;
}

/** The status text's colour and VS Code's error colour, as the panel's page computes them. */
function statusColours(frame: Frame): Promise<{ message: string; error: string; variable: string }> {
  return frame.evaluate(() => {
    const probe = document.createElement("span");
    probe.style.color = "var(--vscode-errorForeground)";
    document.body.append(probe);
    const error = getComputedStyle(probe).color;
    probe.remove();
    return {
      message: getComputedStyle(document.getElementById("message")!).color,
      error,
      variable: getComputedStyle(document.documentElement).getPropertyValue("--vscode-errorForeground").trim(),
    };
  });
}

function script(file: string, body: string): string {
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

describe("chat panel settings and errors in code-server", { skip, timeout: 600_000 }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let host: number | undefined;
  let port: number | undefined;
  const bin = tempDir("symposium-panel-bin-");
  const starts = path.join(bin, "starts.log");

  before(async () => {
    ({ workspace, server, browser, page } = await openDemoWindow({}));
    await command(page, "Symposium: Open Chat");
    const frame = await chatFrame(page, "body[data-state=ready]", 60_000);
    port = gatePort(frame);
    [host] = hostProcesses(workspace);
  });

  after(() => closeDemoWindow(browser, server, workspace));

  it("offers a restart when toadCommand, toadPort or acpAgentPath changes; Restart starts a new host", async () => {
    const fixedPort = await getPort({ host: "127.0.0.1" });
    // A conductor of the user's own: a wrapper that notes its start and runs this package's.
    const conductor = script(path.join(bin, "my-conductor"), `echo conductor >> '${starts}'\nexec '${process.execPath}' '${CONDUCTOR_CLI}' "$@"`);
    const changes: Array<[string, unknown]> = [
      ["symposium.toadCommand", "builtin"],
      ["symposium.acpAgentPath", conductor],
      ["symposium.toadPort", fixedPort], // last: the chat's new port tells its page from the old one
    ];
    for (const [key, value] of changes) {
      await editSettings(page, server, { [key]: value });
      await acceptRestartOffer(page, key);
      host = await newHost(workspace, host);
      const frame = await chatFrame(page, "body[data-state=ready]", 30_000, port);
      port = gatePort(frame);
      await command(page, "Notifications: Clear All Notifications");
    }
    assert.equal(port, fixedPort, "the last hosts serve the chat on symposium.toadPort");
    assert.match(fs.readFileSync(starts, "utf8"), /conductor/, "the chat runs symposium.acpAgentPath");
  });

  it("names symposium.acpAgentPath and what to do when it points at no program, in the panel and in the log", async () => {
    const missing = path.join(bin, "no-such-conductor");
    await editSettings(page, server, { "symposium.acpAgentPath": missing });
    await acceptRestartOffer(page, "symposium.acpAgentPath");
    const frame = await panelStatusFrame(page, /symposium\.acpAgentPath/);
    const message = await frame.locator("#message").innerText();
    assert.equal(
      message,
      `The conductor '${missing}' (setting symposium.acpAgentPath) was not found. Fix the path, or clear the setting to use the conductor this extension carries.`,
    );
    assert.ok(await frame.locator("#retry").isVisible(), "a Retry button");
    const colours = await statusColours(frame);
    assert.notEqual(colours.variable, "", "VS Code's theme colours reach the panel");
    assert.equal(colours.message, colours.error, "the error is shown in the theme's error colour");
    await eventually(() => extensionLog(server).includes(message), 5_000, "the same message in the Symposium log");
    assert.deepEqual(hostProcesses(workspace), [], "no host was started");
    host = undefined;
  });

  it("shows the last lines of a frontend that exits at once, and Retry in the panel tries again", async () => {
    const toad = script(path.join(bin, "toad"), `echo toad >> '${starts}'\necho "toad: Python 3.14 is required (found 3.11)"\nexit 1`);
    await editSettings(page, server, { "symposium.acpAgentPath": undefined, "symposium.toadCommand": toad });
    await acceptRestartOffer(page, "symposium.toadCommand");
    const frame = await panelStatusFrame(page, /keeps failing/, 45_000);
    assert.match(await frame.locator("#message").innerText(), /The chat frontend keeps failing: the frontend exited with (status|code) 1/);
    assert.match(await frame.locator("#detail").innerText(), /toad: Python 3\.14 is required \(found 3\.11\)/);
    const failedStarts = fs
      .readFileSync(starts, "utf8")
      .split("\n")
      .filter((line) => line === "toad").length;
    assert.ok(failedStarts >= 2, `restarted with backoff before giving up (${failedStarts} starts)`);
    await eventually(() => extensionLog(server).includes("toad: Python 3.14 is required"), 5_000, "the last lines in the Symposium log");
    // The user fixes Toad (here: a Toad that obeys Toad's contract) and presses Retry in the panel.
    script(toad, `echo toad >> '${starts}'\nexec '${process.execPath}' '${FAKE_TOAD}' "$@"`);
    await frame.locator("#retry").click();
    await chatFrame(page, "body[data-connected=yes]", 30_000);
    const allStarts = fs
      .readFileSync(starts, "utf8")
      .split("\n")
      .filter((line) => line === "toad").length;
    assert.ok(allStarts > failedStarts, "Retry started the frontend again");
  });
});
