// Runs inside VS Code's extension host (mocha): under desktop VS Code with
// `npx vscode-test` (.vscode-test.mjs), and under code-server's extension host
// through test/extension-host/index.ts.

import * as assert from "node:assert";
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { SymposiumApi } from "../../extension/src/extension.js";

const EXTENSION_ID = "symposium-dev.symposium-vscode";
/** Ids from before the rename to "Chat", kept for users' keybindings (commands.ts). */
const LEGACY_ALIASES = ["symposium.restartToad", "symposium.stopToad"];

function extension(): vscode.Extension<SymposiumApi> {
  const found = vscode.extensions.getExtension<SymposiumApi>(EXTENSION_ID);
  assert.ok(found, `${EXTENSION_ID} is installed`);
  return found;
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

suite("Symposium extension (extension host)", () => {
  test("activates", async () => {
    await extension().activate();
    assert.strictEqual(extension().isActive, true);
  });

  test("registers every command it contributes, and the old ids as aliases", async () => {
    const contributed = (extension().packageJSON as { contributes: { commands: Array<{ command: string }> } }).contributes.commands.map((each) => each.command);
    assert.ok(contributed.includes("symposium.toggleEditorContext"), `the status bar's command is contributed: ${contributed.join(", ")}`);
    const registered = await vscode.commands.getCommands(true);
    for (const command of [...contributed, ...LEGACY_ALIASES]) assert.ok(registered.includes(command), `${command} is registered`);
  });

  test("declares its settings with their defaults", () => {
    const config = vscode.workspace.getConfiguration("symposium");
    assert.strictEqual(config.get("toadCommand"), "toad");
    assert.strictEqual(config.get("toadPort"), 0);
    assert.strictEqual(config.get("acpAgentPath"), "");
    assert.strictEqual(config.get("editorContext.enabled"), true);
  });

  test("opens its panel view: Open Chat shows the chat view, and the view starts the chat", async function () {
    this.timeout(45_000);
    const api = extension().exports;
    await vscode.commands.executeCommand("workbench.action.closePanel");
    assert.ok(await eventually(() => !api.chatView.visible, 5_000), "the chat view is hidden before the command");
    await vscode.commands.executeCommand("symposium.openChat");
    assert.ok(await eventually(() => api.chatView.visible, 10_000), "Open Chat made the chat view visible");
    // Opening the view starts the chat (the built-in one here: no Toad on PATH); the view then shows it.
    await eventually(() => api.chatView.status.kind !== "starting", 30_000);
    assert.deepStrictEqual(api.chatView.status, { kind: "ready" });
  });

  test("a save or a revert is in the editor state file when it returns, not after the typing debounce", async function () {
    this.timeout(30_000);
    const api = extension().exports;
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, "the suite runs in a workspace");
    const uri = vscode.Uri.joinPath(folder.uri, `save-at-once-${Date.now()}.txt`);
    await vscode.workspace.fs.writeFile(uri, Buffer.from("first\n"));
    try {
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      const unsaved = (): boolean | undefined => {
        const file = api.editorStateFile;
        if (file === undefined || !fs.existsSync(file)) return undefined;
        const state = JSON.parse(fs.readFileSync(file, "utf8")) as { unsavedDocuments?: Array<{ path: string }> };
        return (state.unsavedDocuments ?? []).some((entry) => entry.path === uri.fsPath);
      };
      const typeUnsaved = async (text: string): Promise<void> => {
        const edit = new vscode.WorkspaceEdit();
        edit.insert(uri, new vscode.Position(0, 0), text);
        assert.ok(await vscode.workspace.applyEdit(edit));
        assert.ok(await eventually(() => unsaved() === true, 10_000), "the state file lists the document as unsaved");
      };
      await typeUnsaved("typed ");
      assert.ok(await document.save());
      assert.strictEqual(unsaved(), false, "listed as saved as soon as the save returned");
      await typeUnsaved("again ");
      await vscode.commands.executeCommand("workbench.action.files.revert");
      assert.strictEqual(document.isDirty, false);
      assert.strictEqual(unsaved(), false, "listed as saved as soon as the revert returned");
    } finally {
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
      await vscode.workspace.fs.delete(uri);
    }
  });
});
