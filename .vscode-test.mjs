// @vscode/test-cli: `npx vscode-test` runs the extension-host suite under a
// desktop VS Code that it downloads (a developer's machine; not these CI
// machines, which cannot download VS Code). Build first: `npm run build`.
import { defineConfig } from "@vscode/test-cli";

export default defineConfig({
  files: "out/extension-host/*.test.cjs",
  workspaceFolder: "test/fixtures/workspace",
  mocha: { ui: "tdd", timeout: 20000 },
});
