// One suite, two hosts: the mocha suite that `npx vscode-test` runs under a
// desktop VS Code (.vscode-test.mjs) runs here inside code-server's extension
// host. code-server's CLI refuses --extensionDevelopmentPath and
// --extensionTestsPath, and VS Code's server ignores them, but the web
// workbench takes both from its `payload` query parameter, as
// vscode-remote:// URIs for the server's file system.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { e2eSkipReason, launchBrowser, logIn, skipUnlessCI, startCodeServer, type CodeServer } from "../harness/code-server.js";
import { OUT_DIR, REPO_DIR, tempDir } from "../support/processes.js";

const SUMMARY_PREFIX = "symposium-extension-host-tests:";
const suiteEntry = path.join(OUT_DIR, "extension-host", "index.cjs");
const skip = e2eSkipReason() || skipUnlessCI(fs.existsSync(suiteEntry) ? false : "the extension-host suite is not built (npm run build)");

describe("extension-host suite inside code-server", { skip }, () => {
  let server: CodeServer;
  let browser: Browser;

  before(async () => {
    const workspace = path.join(tempDir("symposium-ws-"), "workspace");
    fs.cpSync(path.join(REPO_DIR, "test", "fixtures", "workspace"), workspace, { recursive: true });
    server = await startCodeServer(workspace, { installVsix: false });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("passes in code-server's extension host", async () => {
    const page = await browser.newPage();
    const summary = new Promise<{ passed: number; failed: number }>((resolve) => {
      page.on("console", (message) => {
        const text = message.text();
        const at = text.indexOf(SUMMARY_PREFIX);
        if (at !== -1) resolve(JSON.parse(text.slice(at + SUMMARY_PREFIX.length)) as { passed: number; failed: number });
      });
    });
    const remote = `vscode-remote://${new URL(server.url).host}`;
    const payload = JSON.stringify([
      ["extensionDevelopmentPath", `${remote}${REPO_DIR}`],
      ["extensionTestsPath", `${remote}${suiteEntry}`],
    ]);
    await logIn(page, server, `folder=${encodeURIComponent(server.workspace)}&payload=${encodeURIComponent(payload)}`);
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no test summary; server log:\n${server.log()}`)), 60_000));
    const result = await Promise.race([summary, timeout]);
    assert.equal(result.failed, 0);
    assert.equal(result.passed, 4);
  });
});
