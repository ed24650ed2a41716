// Runs inside VS Code's extension host (mocha): under desktop VS Code with
// `npx vscode-test` (.vscode-test.mjs), and under code-server's extension host
// through test/extension-host/index.ts.

import * as assert from "node:assert";
import * as vscode from "vscode";

const EXTENSION_ID = "symposium-dev.symposium-vscode";

suite("Symposium extension (extension host)", () => {
  test("activates", async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    await extension.activate();
    assert.strictEqual(extension.isActive, true);
  });

  test("registers its commands", async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const command of ["symposium.openChat", "symposium.restartToad", "symposium.stopToad", "symposium.showEditorContext", "symposium.showLog"]) {
      assert.ok(commands.includes(command), `${command} is registered`);
    }
  });

  test("declares its settings with their defaults", () => {
    const config = vscode.workspace.getConfiguration("symposium");
    assert.strictEqual(config.get("toadCommand"), "toad");
    assert.strictEqual(config.get("toadPort"), 0);
    assert.strictEqual(config.get("acpAgentPath"), "");
    assert.strictEqual(config.get("editorContext.enabled"), true);
  });

  test("opens its panel view", async () => {
    await vscode.commands.executeCommand("symposium.openChat");
  });
});
