// The chat's Extensions section, in Chromium against the real chat server
// running our conductor: the config's extensions in order; enable by mouse,
// move by keyboard (Alt+↑ on a row, Enter on a button) and by dragging,
// delete, add a built-in; each change written by the conductor's own
// `extensions` verbs into the config file, its comments kept, and the section
// says it applies to the next conversation. A custom spec that is no program
// is refused with the conductor's reason, the file untouched.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parse } from "jsonc-parser";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { CONDUCTOR_CLI, OUT_DIR, scratchDirs } from "../../support/processes.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 30_000 };
const REPORTING_AGENT = path.join(OUT_DIR, "test", "fixtures", "reporting-agent.js");
/** `SYMPOSIUM_SCREENSHOTS=DIR` keeps pictures of the section, light and dark, to look at. */
const SCREENSHOTS = process.env.SYMPOSIUM_SCREENSHOTS;
const scratch = scratchDirs();

/** A home whose config runs the reporting agent, with three extensions (off, so this conversation runs without them) and comments. */
function home(): { config: string; env: NodeJS.ProcessEnv } {
  const dir = scratch("chat-extensions-home-");
  const config = path.join(dir, "config.jsonc");
  const proxy = (name: string): string => `    { "name": "${name}", "enabled": false, "command": ${JSON.stringify(quote([process.execPath, "-e", ""]))} },`;
  fs.writeFileSync(
    config,
    [
      "// my Symposium config",
      "{",
      `  "agent": ${JSON.stringify(quote([process.execPath, REPORTING_AGENT]))},`,
      "  // my extensions, in order",
      '  "proxies": [',
      proxy("alpha"),
      proxy("beta"),
      `${proxy("gamma")} // the last one`,
      "  ],",
      "}",
      "",
    ].join("\n"),
  );
  return {
    config,
    env: { HOME: dir, USERPROFILE: dir, SYMPOSIUM_CONFIG: config, SYMPOSIUM_REGISTRY_URL: "", SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "" },
  };
}

function proxiesIn(config: string): Array<{ name: string; enabled: boolean }> {
  return (parse(fs.readFileSync(config, "utf8")) as { proxies: Array<{ name: string; enabled: boolean }> }).proxies.map(({ name, enabled }) => ({
    name,
    enabled,
  }));
}

const rowNames = (page: Page): Promise<string[]> => page.locator("#extensions-list .extension .extension-name").allTextContents();

/** Waits for the section's list to read `names`, after a change said `message`. */
async function listed(page: Page, names: string[], message: RegExp): Promise<void> {
  await page.locator("#extensions-message", { hasText: message }).waitFor(TIMEOUT);
  await page.waitForFunction(
    (expected) => JSON.stringify([...document.querySelectorAll("#extensions-list .extension-name")].map((each) => each.textContent)) === expected,
    JSON.stringify(names),
    TIMEOUT,
  );
}

describe("webchat: the Extensions section beside the agent picker", { skip }, () => {
  const suite = chatSuite();

  it("lists, enables, moves by keyboard and by drag, deletes and adds, written into the config with its comments", async () => {
    const { config, env } = home();
    const server = await suite.serve({ agent: [process.execPath, CONDUCTOR_CLI, "run", "--config", config], env });
    const page = await openChatPage(suite.browser, server, {}, 20_000);
    await page.setViewportSize({ width: 900, height: 560 });
    const button = page.locator("#extensions-button");
    await button.waitFor({ state: "visible", ...TIMEOUT });
    await button.click();
    await page.locator("#extensions-list .extension").first().waitFor(TIMEOUT);
    assert.deepEqual(await rowNames(page), ["alpha", "beta", "gamma"]);
    assert.equal(await button.getAttribute("aria-expanded"), "true");

    await page.getByRole("checkbox", { name: "Enable alpha" }).click();
    await listed(page, ["alpha", "beta", "gamma"], /Enabled alpha: it applies to the next conversation/);
    assert.deepEqual(proxiesIn(config)[0], { name: "alpha", enabled: true });

    await page.locator('#extensions-list .extension[data-name="gamma"]').focus();
    await page.keyboard.press("Alt+ArrowUp");
    await listed(page, ["alpha", "gamma", "beta"], /Moved gamma up/);
    await page.getByRole("button", { name: "Move alpha down" }).focus();
    await page.keyboard.press("Enter");
    await listed(page, ["gamma", "alpha", "beta"], /Moved alpha down/);

    await page.locator('#extensions-list .extension[data-name="beta"]').dragTo(page.locator('#extensions-list .extension[data-name="gamma"]'));
    await listed(page, ["beta", "gamma", "alpha"], /Moved beta to position 1/);

    await page.getByRole("button", { name: "Delete gamma" }).click();
    await listed(page, ["beta", "alpha"], /Removed gamma/);

    await page.locator("#extension-kind").selectOption("sparkle");
    await page.locator("#extension-add").click();
    await listed(page, ["beta", "alpha", "sparkle"], /Added sparkle last/);

    assert.deepEqual(proxiesIn(config), [
      { name: "beta", enabled: false },
      { name: "alpha", enabled: true },
      { name: "sparkle", enabled: true },
    ]);
    const text = fs.readFileSync(config, "utf8");
    assert.match(text, /^\/\/ my Symposium config/);
    assert.match(text, /\/\/ my extensions, in order/);
    await screenshots(page);

    const before = fs.readFileSync(config, "utf8");
    await page.locator("#extension-kind").selectOption("custom");
    await page.locator("#extension-spec").fill(path.join(path.dirname(config), "no-such-program"));
    await page.keyboard.press("Enter");
    await page.locator("#extensions-message.error").waitFor(TIMEOUT);
    assert.match((await page.locator("#extensions-message").textContent()) ?? "", /no-such-program/);
    assert.equal(fs.readFileSync(config, "utf8"), before, "nothing written");
    assert.deepEqual(await rowNames(page), ["beta", "alpha", "sparkle"]);

    await page.locator("#extensions").press("Escape");
    assert.equal(await page.locator("#extensions").isHidden(), true);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "extensions-button");
    await page.close();
  });
});

async function screenshots(page: Page): Promise<void> {
  if (!SCREENSHOTS) return;
  for (const theme of ["light", "dark"]) {
    await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
    await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
    await page.screenshot({ path: path.join(SCREENSHOTS, `webchat-extensions-${theme}.png`), clip: { x: 0, y: 0, width: 900, height: 300 } });
  }
}
