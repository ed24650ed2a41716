// The first minute's ways in, in code-server + Chromium: the Symposium icon in the activity bar
// opens a view that says what Symposium is, with Open Chat (and Ctrl+Alt+Y) and Get Started; VS
// Code's Get Started walkthrough has the four steps (open the chat, choose an agent, ask about a
// selection, review or undo a turn), each ticked off by its command. Screenshots light and dark.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { e2eSkipReason, runCommand } from "../harness/code-server.js";
import { tempDir } from "../support/processes.js";
import { chatFrame, chooseColorTheme, demoWindowSuite, symposiumActive, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();
const shots = process.env.SYMPOSIUM_SCREENSHOTS ?? tempDir("symposium-walkthrough-shots-");
const STEPS = ["Open the chat", "Choose an agent", "Ask about a selection", "Review or undo a turn"];

describe("a first-run way in: the activity bar's Symposium view and the Get Started walkthrough", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) => symposiumActive(window.page));

  it("the activity bar's Symposium icon opens a view with Open Chat and Get Started", async () => {
    await demo.page.locator('.part.activitybar .action-item a[aria-label^="Symposium"]').click();
    const welcome = demo.page.locator(".part.sidebar .welcome-view-content");
    await waitForText(() => welcome.innerText().catch(() => ""), /Chat with a coding agent[\s\S]*Open Chat[\s\S]*Ctrl\+Alt\+Y[\s\S]*Get Started/, 30_000);
  });

  it("Get Started opens the walkthrough; its four steps are there, and opening the chat ticks off the first", async () => {
    await demo.page.locator(".part.sidebar .welcome-view-content a", { hasText: "Get Started" }).click();
    const walkthrough = demo.page.locator(".part.editor .gettingStartedContainer");
    await waitForText(() => walkthrough.innerText().catch(() => ""), new RegExp(`Get started with Symposium[\\s\\S]*${STEPS.join("[\\s\\S]*")}`), 30_000);
    await demo.page.screenshot({ path: path.join(shots, "get-started-light.png") });
    await walkthrough.locator("button.getting-started-step", { hasText: STEPS[0] }).click();
    await walkthrough.locator(".monaco-button, a", { hasText: "Open Chat" }).first().click();
    await chatFrame(demo.page, "#input:visible", 60_000);
    await walkthrough
      .locator('button.getting-started-step[aria-checked="true"]', { hasText: STEPS[0] })
      .waitFor({ timeout: 30_000 })
      .catch(async (error: Error) => {
        const classes = await walkthrough.locator("button.getting-started-step").evaluateAll((all: Element[]) => all.map((each) => each.className).join(" | "));
        throw new Error(`${error.message}; steps: ${classes}`);
      });
    assert.equal(await walkthrough.locator('button.getting-started-step[aria-checked="true"]').count(), 1, "only the step done is ticked off");
  });

  it("the walkthrough in the dark theme", async () => {
    await chooseColorTheme(demo.page, "Dark Modern");
    await demo.page.locator(".monaco-workbench.vs-dark").waitFor({ timeout: 15_000 });
    // The chat opened above: its panel closes, for the picture. No click first (command() clicks
    // the editor, here the walkthrough, whose steps take the click and the focus).
    await runCommand(demo.page, "View: Toggle Panel Visibility");
    await demo.page.locator(".part.editor .gettingStartedContainer").waitFor({ timeout: 10_000 });
    await demo.page.locator(".part.editor .gettingStartedContainer button.getting-started-step", { hasText: STEPS[2] }).click();
    await demo.page.locator(".part.editor .gettingStartedContainer button.getting-started-step.expanded", { hasText: STEPS[2] }).waitFor({ timeout: 10_000 });
    await demo.page.screenshot({ path: path.join(shots, "get-started-dark.png") });
    process.stderr.write(`screenshots: ${shots}\n`);
  });
});
