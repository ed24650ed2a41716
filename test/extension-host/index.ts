// The extension-tests entry point VS Code loads (--extensionTestsPath under
// desktop VS Code), or the entry of the runner extension the harness installs
// into code-server (activate): runs the mocha suite in this extension host and
// prints one summary line, also written to the file SYMPOSIUM_EXTENSION_HOST_SUMMARY names.

import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";

export const SUMMARY_PREFIX = "symposium-extension-host-tests:";
/** Where the summary also goes, when set: the harness reads it from there. */
export const SUMMARY_FILE_ENV = "SYMPOSIUM_EXTENSION_HOST_SUMMARY";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 20_000 });
  mocha.addFile(path.join(__dirname, "extension.test.cjs"));
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const summary = JSON.stringify({ passed: runner.stats?.passes ?? 0, failed: failures });
      console.log(`${SUMMARY_PREFIX} ${summary}`);
      const file = process.env[SUMMARY_FILE_ENV];
      // Whole or not at all: the test waits for the file to exist, then reads it.
      if (file) {
        fs.writeFileSync(`${file}.partial`, summary);
        fs.renameSync(`${file}.partial`, file);
      }
      if (failures > 0) reject(new Error(`${failures} extension-host tests failed`));
      else resolve();
    });
  });
}

/** As the runner extension's entry (test/fixtures/extension-host-runner): runs the suite once the window has started. */
export function activate(): void {
  run().catch((error: Error) => console.error(error.message));
}
