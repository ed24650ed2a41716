// Toad takes its agent command only as one string, which it rebuilds with
// shlex.join for each page and runs through the shell: the extension quotes
// `"<conductor> run"` once for that (extension/src/panel/frontend-command-line.ts).
// Here the conductor lives in a folder whose name has spaces, quotes and `$`,
// and the real Toad, behind the panel host, still starts it: the conductor's
// agent starts when Toad's page opens in Chromium.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../harness/code-server.js";
import { CONDUCTOR_CLI, eventually, tempDir } from "../support/processes.js";
import { RECORDING_AGENT, realToadSkip, startToadHost, treeCommands, type ToadHost } from "../support/toad.js";

/** A copy of the bundled conductor (with its chunks) in a folder named to trip any quoting done twice or not at all. */
function conductorInAwkwardFolder(): string {
  const dist = path.join(tempDir("toad-conductor-path-"), `my "odd" folder's $HOME`, "dist");
  fs.mkdirSync(dist, { recursive: true });
  const script = path.join(dist, "symposium-conductor.mjs");
  fs.copyFileSync(CONDUCTOR_CLI, script);
  fs.cpSync(path.join(path.dirname(CONDUCTOR_CLI), "chunks"), path.join(dist, "chunks"), { recursive: true });
  return script;
}

describe("the real Toad starts a conductor whose path has spaces, quotes and $", { skip: realToadSkip(), timeout: 300_000 }, () => {
  let host: ToadHost;
  let browser: Browser;
  const conductor = conductorInAwkwardFolder();

  before(async () => {
    host = await startToadHost("real", RECORDING_AGENT, conductor);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (host?.child.exitCode === null) host.child.kill("SIGTERM");
    await host?.exited;
  });

  it("runs it, by its exact path, when a page opens", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    try {
      await page.goto(`${host.gate}/?token=${host.spec.secret}`);
      await eventually(() => host.records().some((entry) => entry.start), 60_000, "Toad's app to start the conductor and its agent").catch((error: Error) => {
        throw new Error(`${error.message}\n${host.log()}`);
      });
      assert.ok(
        treeCommands(host).some(({ command }) => command.includes(conductor)),
        `a conductor running from ${conductor}: ${treeCommands(host)
          .map(({ command }) => command)
          .join(" | ")}`,
      );
    } finally {
      await page.close();
    }
  });
});
