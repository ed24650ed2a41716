// "Symposium: Manage Extensions" in code-server + Chromium
// (extension/src/agents/extensions-command.ts): the config's extensions in a
// QuickPick, in order; by keyboard, one is moved up; by mouse, one is
// disabled and a built-in added; each change written into the config file by
// the conductor's own verbs (its comment kept), the pick's title saying it
// applies to the next conversation.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parse } from "jsonc-parser";
import type { Page } from "playwright-core";
import { e2eSkipReason } from "../harness/code-server.js";
import { CONDUCTOR_CLI } from "../support/processes.js";
import { command, demoWindowSuite, symposiumActive } from "./panel-helpers.js";

const skip = e2eSkipReason();
const TIMEOUT = { timeout: 60_000 };

/** The demo window's conductor config (panel-helpers.ts openDemoWindow: beside the workspace). */
const configOf = (workspace: string): string => path.join(path.dirname(workspace), "config.jsonc");

function writeConfig(workspace: string): void {
  const proxy = (name: string): string => `    { "name": "${name}", "enabled": true, "command": ${JSON.stringify(`${process.execPath} -e ""`)} },`;
  const agent = JSON.stringify(`${JSON.stringify(process.execPath)} ${JSON.stringify(CONDUCTOR_CLI)} demo-agent`);
  fs.writeFileSync(
    configOf(workspace),
    ["{", `  "agent": ${agent},`, "  // my extensions", '  "proxies": [', proxy("alpha"), proxy("beta"), "  ],", "}", ""].join("\n"),
  );
}

function proxiesIn(workspace: string): Array<{ name: string; enabled: boolean }> {
  return (parse(fs.readFileSync(configOf(workspace), "utf8")) as { proxies: Array<{ name: string; enabled: boolean }> }).proxies.map(({ name, enabled }) => ({
    name,
    enabled,
  }));
}

const rows = (page: Page): Promise<string[]> => page.locator(".quick-input-list .monaco-list-row .label-name").allTextContents();
const row = (page: Page, label: string) => page.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();

/** The pick of the list, once its title says `said` (or is the bare title). */
async function listShown(page: Page, said: RegExp): Promise<void> {
  await page.locator(".quick-input-widget .quick-input-title", { hasText: said }).waitFor(TIMEOUT);
  await row(page, "Add extension").waitFor(TIMEOUT);
}

describe("Symposium: Manage Extensions", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite({}, {}, (window) => writeConfig(window.workspace));

  it("lists the config's extensions in order; by keyboard, moves one up", async () => {
    await symposiumActive(demo.page);
    await command(demo.page, "Symposium: Manage Extensions");
    await listShown(demo.page, /^Symposium: Extensions$/);
    const names = await rows(demo.page);
    // Each row's label, then its detail (what starts it).
    assert.deepEqual(
      names.map((name) => name.trim()),
      ["alpha", `${process.execPath} -e ""`, "beta", `${process.execPath} -e ""`, "Add extension…"],
    );
    await demo.page.keyboard.type("beta");
    await demo.page.keyboard.press("Enter");
    await row(demo.page, "Move up").waitFor(TIMEOUT);
    await demo.page.keyboard.type("Move up");
    await demo.page.keyboard.press("Enter");
    await listShown(demo.page, /Moved beta up: it applies to the next conversation/);
    assert.deepEqual(proxiesIn(demo.workspace), [
      { name: "beta", enabled: true },
      { name: "alpha", enabled: true },
    ]);
    assert.match(fs.readFileSync(configOf(demo.workspace), "utf8"), /\/\/ my extensions/);
  });

  it("by mouse, disables one and adds a built-in", async () => {
    await row(demo.page, "alpha").click();
    await row(demo.page, "Disable").click();
    await listShown(demo.page, /Disabled alpha: it applies to the next conversation/);
    await row(demo.page, "Add extension").click();
    await row(demo.page, "ferris").click();
    await listShown(demo.page, /Added ferris last/);
    assert.deepEqual(proxiesIn(demo.workspace), [
      { name: "beta", enabled: true },
      { name: "alpha", enabled: false },
      { name: "ferris", enabled: true },
    ]);
    await demo.page.keyboard.press("Escape");
  });
});
