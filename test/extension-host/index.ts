// The extension-tests entry point VS Code loads (--extensionTestsPath, or the
// web workbench's `payload` under code-server): runs the mocha suite in this
// extension host and prints one summary line the harness looks for.

import * as path from "node:path";
import Mocha from "mocha";

export const SUMMARY_PREFIX = "symposium-extension-host-tests:";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 20_000 });
  mocha.addFile(path.join(__dirname, "extension.test.cjs"));
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      console.log(`${SUMMARY_PREFIX} ${JSON.stringify({ passed: runner.stats?.passes ?? 0, failed: failures })}`);
      if (failures > 0) reject(new Error(`${failures} extension-host tests failed`));
      else resolve();
    });
  });
}
