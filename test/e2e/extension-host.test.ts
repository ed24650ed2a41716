// One suite, two hosts: the mocha suite that `npx vscode-test` runs under a
// desktop VS Code (.vscode-test.mjs) runs here inside code-server's extension
// host, beside the packaged Symposium. code-server's CLI refuses
// --extensionDevelopmentPath and --extensionTestsPath, and VS Code 1.139's web
// workbench no longer runs a suite named in its `payload` query parameter, so a
// runner extension (test/fixtures/extension-host-runner), installed like any
// other, loads the built suite on startup and writes its summary to a file.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import {
  copySampleWorkspace,
  e2eSkipReason,
  installExtensionFolder,
  launchBrowser,
  openWorkbench,
  skipUnlessCI,
  startCodeServer,
  type CodeServer,
} from "../harness/code-server.js";
import { OUT_DIR, REPO_DIR, eventually, tempDir } from "../support/processes.js";

const SUITE_ENTRY = path.join(OUT_DIR, "extension-host", "index.cjs");
const RUNNER_EXTENSION = path.join(REPO_DIR, "test", "fixtures", "extension-host-runner");
/** Where the suite writes its summary (test/extension-host/index.ts). */
const SUMMARY_FILE_ENV = "SYMPOSIUM_EXTENSION_HOST_SUMMARY";
const skip = e2eSkipReason() || skipUnlessCI(fs.existsSync(SUITE_ENTRY) ? false : "the extension-host suite is not built (npm run build)");

/** The runner extension: its manifest, and an entry that loads the built suite from this repository. */
function installRunner(root: string): void {
  const folder = path.join(root, "extension-host-runner");
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(RUNNER_EXTENSION, "package.json"), path.join(folder, "package.json"));
  fs.writeFileSync(path.join(folder, "extension.cjs"), `module.exports = require(${JSON.stringify(SUITE_ENTRY)});\n`);
  installExtensionFolder(root, folder);
}

/** The extension host's logs (the suite's failures and mocha's report go there), for a failure's message. */
function extensionHostLogs(server: CodeServer): string {
  const logs = path.join(server.userDataDir, "logs");
  if (!fs.existsSync(logs)) return "";
  return (fs.readdirSync(logs, { recursive: true }) as string[])
    .filter((file) => /exthost\.log$|Symposium\.log$/.test(file))
    .map((file) => `== ${file}\n${fs.readFileSync(path.join(logs, file), "utf8").slice(-4000)}`)
    .join("\n");
}

describe("extension-host suite inside code-server", { skip, timeout: 300_000 }, () => {
  const summaryFile = path.join(tempDir("symposium-extension-host-"), "summary.json");
  let server: CodeServer | undefined;
  let browser: Browser | undefined;

  before(async () => {
    const root = tempDir("symposium-e2e-");
    installRunner(root);
    process.env[SUMMARY_FILE_ENV] = summaryFile;
    server = await startCodeServer(copySampleWorkspace(path.join(root, "workspace")), { root });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("passes in code-server's extension host", async () => {
    // The workbench starts the extension host; the runner starts the suite once startup has finished.
    await openWorkbench(browser!, server!);
    await eventually(() => fs.existsSync(summaryFile), 120_000, "the suite's summary").catch((error: Error) => {
      throw new Error(`${error.message}\n${extensionHostLogs(server!)}\n${server!.log()}`);
    });
    const result = JSON.parse(fs.readFileSync(summaryFile, "utf8")) as { passed: number; failed: number };
    assert.deepEqual(result, { passed: 5, failed: 0 }, extensionHostLogs(server!));
  });
});
