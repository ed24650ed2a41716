// The real Claude Code, end to end, once, in code-server + Chromium as a user
// drives it: chosen in the built-in chat's agent picker (symposium.agents
// names the pinned adapter scripts/install-agent-adapters.sh installs, pointed
// at the scripted model, test/fixtures/scripted-model/, Anthropic's wire), a
// line selected in main.rs, Ctrl+Alt+Y, a question. The model calls the
// editor's `editor_state` (its answer: the selection, from the live window),
// then Claude's own Read and Edit (each permission asked in the chat and
// allowed there); the answer shows; Review Agent Changes shows the turn's edit
// in VS Code's multi-file diff; the chat's Undo turn puts the file back.
// docs/agent-compatibility.md says what this shows.
//
// Claude Code runs as the user VS Code runs as, as users run it: the editor's
// tools reach the window through its private state file and socket (0700,
// docs/state-file.md), which another user cannot open. As root (CI's
// containers) it runs with IS_SANDBOX=1, Claude Code's own switch for a
// sandbox that runs as root on purpose (without it the adapter refuses:
// conductor-hooks/src/agent-failure.ts).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { e2eSkipReason, openFile, visibleText, type CodeServer } from "../harness/code-server.js";
import { editorTool, ownTool, startScriptedModel, type ModelStep, type ScriptedModel, type ScriptedRequest } from "../fixtures/scripted-model/index.js";
import { askInChat, chatTranscript } from "../support/chat-frame.js";
import { REPO_DIR, tempDir } from "../support/processes.js";
import { ADAPTERS, adapterSetup, isRoot } from "../interop/adapters.js";
import { failIfMissing, skipOutsideCi } from "../interop/rust-peers.js";
import { chatFrame, closeDemoWindow, command, openDemoWindow, symposiumActive, waitForText } from "./panel-helpers.js";

const setup = adapterSetup();
const missing = "missing" in setup ? setup.missing : false;
const POSIX_ONLY = process.platform === "win32" ? "the adapters are installed for POSIX shells (scripts/install-agent-adapters.sh)" : false;
const skip = e2eSkipReason() || POSIX_ONLY || skipOutsideCi(missing);
const CLAUDE = ADAPTERS.find((adapter) => adapter.shortName === "claude")!;
const TURN_MS = 300_000;

const ORIGINAL = fs.readFileSync(path.join(REPO_DIR, "test", "fixtures", "workspace", "src", "main.rs"), "utf8");
const SELECTED = 'let greeting = "hello from the sample workspace";';
const LOUDER = 'let greeting = "HELLO FROM THE SAMPLE WORKSPACE";';
const ANSWER = "Made the greeting louder.";

/** editor_state, then Claude's Read of the file the editor names (its Edit refuses a file it has not read), then its Edit, then the answer. */
function script(workspace: () => string) {
  return (request: ScriptedRequest): ModelStep => {
    const file = path.join(workspace(), "src", "main.rs");
    switch (request.results.length) {
      case 0:
        return { calls: [{ tool: editorTool(request, "editor_state"), input: {} }] };
      case 1:
        return { calls: [{ tool: ownTool(request, ["Read"]), input: { file_path: file } }] };
      case 2:
        return { calls: [{ tool: ownTool(request, ["Edit"]), input: { file_path: file, old_string: SELECTED, new_string: LOUDER } }] };
      default:
        return { text: ANSWER };
    }
  };
}

/** The symposium.agents entry that stands for the built-in Claude Code (same id, same name): the pinned adapter against `model`. */
function claudeAgainst(model: ScriptedModel, adapterDir: string): Record<string, unknown> {
  const home = tempDir("symposium-claude-home-");
  fs.mkdirSync(path.join(home, ".claude"));
  // "default": Claude Code asks the client before it edits (session/request_permission), as the chat shows it.
  fs.writeFileSync(path.join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "default" } }));
  const program = fs.realpathSync(path.join(adapterDir, "node_modules", ".bin", CLAUDE.bin));
  const env = {
    HOME: home,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "scripted-model-key",
    CLAUDE_CODE_OAUTH_TOKEN: "",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    ...(isRoot() ? { IS_SANDBOX: "1" } : {}),
  };
  return {
    id: "claude",
    name: "Claude Code",
    description: `${CLAUDE.pkg} ${CLAUDE.version} against the scripted model`,
    distribution: { local: { command: process.execPath, args: [program, ...CLAUDE.args], env } },
  };
}

function conversationOf(frame: Frame): string | null {
  return new URL(frame.url()).searchParams.get("conversation");
}

/** Until the transcript shows `pattern`: each permission the agent asks for is allowed once, its title kept. */
async function allowingEachPermission(frame: Frame, pattern: RegExp, asked: string[]): Promise<void> {
  const deadline = Date.now() + TURN_MS;
  while (!pattern.test(await chatTranscript(frame))) {
    if (Date.now() > deadline) throw new Error(`the chat never showed ${pattern}; it shows:\n${await chatTranscript(frame)}`);
    const card = frame.locator(".permission:not(.answered)").first();
    if (await card.isVisible().catch(() => false)) {
      const id = await card.getAttribute("data-permission-id");
      asked.push(await card.locator(".permission-title").innerText());
      await card.locator(".permission-option.allow_once").click();
      await frame.locator(`.permission.answered[data-permission-id="${id}"]`).waitFor({ timeout: 30_000 });
    } else {
      await frame.page().waitForTimeout(250);
    }
  }
}

describe("the real Claude Code in code-server, against the scripted model", { skip, timeout: 900_000 }, () => {
  let model: ScriptedModel;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace = "";
  let frame: Frame;

  before(async () => {
    failIfMissing(missing);
    if ("missing" in setup) return;
    model = await startScriptedModel(script(() => workspace));
    // "": the shipped registry snapshot, no network. A generous snapshot budget: code-server, Chromium and
    // Claude Code share this machine's cores, and a turn over the budget has no Review or Undo to click.
    ({ workspace, server, browser, page } = await openDemoWindow(
      { SYMPOSIUM_REGISTRY_URL: "", SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "120000" },
      { "symposium.agents": [claudeAgainst(model, setup.dir)], "files.autoSave": "off" },
    ));
    await symposiumActive(page);
    await command(page, "Symposium: Open Chat");
    frame = await chatFrame(page, "#input:visible", 120_000);
  });

  after(async () => {
    await closeDemoWindow(browser, server, workspace);
    await model?.close();
  });

  it("Claude Code, chosen in the chat's picker, answers a question about the selection with the editor's tools and its own Edit", async () => {
    const picker = frame.locator("#agent-picker");
    await picker.locator('option[value="claude"]').waitFor({ state: "attached", timeout: 60_000 });
    assert.equal(await picker.locator('option[value="claude"]').innerText(), "Claude Code", "one Claude Code: the entry stands for the built-in");
    const demo = conversationOf(frame);
    await picker.selectOption("claude");
    await waitForText(async () => String(conversationOf(frame)), new RegExp(`^(?!${demo}$)[A-Za-z0-9_-]+$`), 60_000);
    frame = await chatFrame(page, "#input:visible", 60_000);

    await openFile(page, "main.rs");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+End");
    await page.keyboard.press("Control+Alt+Y");
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 180_000 });
    await askInChat(frame, "Make this louder, please.");
    const asked: string[] = [];
    await allowingEachPermission(frame, new RegExp(ANSWER.replace(".", "\\.")), asked);

    assert.equal(fs.readFileSync(path.join(workspace, "src", "main.rs"), "utf8"), ORIGINAL.replace(SELECTED, LOUDER), "Claude's own Edit wrote the file");
    assert.ok(
      asked.some((title) => title.includes("main.rs")),
      `the edit was asked for in the chat: ${JSON.stringify(asked)}`,
    );
    const [first, second] = model.scripted().map((request) => request.read!);
    assert.ok(first && second, "the model was asked at least twice");
    assert.equal(first.prompt.split("<editor-context>").length - 1, 1, `one editor-context block: ${first.prompt}`);
    assert.match(first.prompt, /main\.rs/);
    assert.ok(first.prompt.includes(SELECTED.trim()), "the block carries the selection");
    const offered = editorTool(first, "editor_state");
    assert.ok(offered.description.length > 60, `editor_state is offered with its description: ${JSON.stringify(offered.description)}`);
    // The live window's answer (JSON): the line selected in the editor.
    const state = JSON.parse(second.results[0]!.text) as { activeFile?: string; selections?: Array<{ text?: string }> };
    assert.equal(state.activeFile, path.join(workspace, "src", "main.rs"));
    assert.equal(state.selections?.[0]?.text, SELECTED, "editor_state's answer holds the selection");
  });

  it("Review Agent Changes shows the turn; the chat's Undo turn puts the file back", async () => {
    await command(page, "Symposium: Review Agent Changes");
    await page.locator(".quick-input-widget", { hasText: "Review which turn's changes?" }).waitFor({ state: "visible", timeout: 20_000 });
    await page.keyboard.press("Enter");
    await page.locator(".part.editor .tab", { hasText: "Agent changes:" }).first().waitFor({ timeout: 30_000 });
    await waitForText(() => visibleText(page, ".part.editor"), /HELLO FROM THE SAMPLE WORKSPACE/, 30_000);
    assert.match(await page.locator(".part.editor").innerText(), /main\.rs/);
    const review = await visibleText(page, ".part.editor");
    assert.match(review, /hello from the sample workspace[\s\S]*HELLO FROM THE SAMPLE WORKSPACE/, "before the turn beside now");
    await command(page, "View: Close All Editors");

    const note = frame.locator(".turn-changes").filter({ has: frame.locator('span[title="src/main.rs"]') });
    await note.waitFor({ timeout: 60_000 });
    await note.locator(".turn-undo").click();
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 20_000 });
    assert.match(await dialog.innerText(), /main\.rs/);
    await dialog.getByRole("button", { name: "Undo Turn" }).click();
    await waitForText(async () => fs.readFileSync(path.join(workspace, "src", "main.rs"), "utf8"), /hello from the sample workspace/, 30_000);
    assert.equal(fs.readFileSync(path.join(workspace, "src", "main.rs"), "utf8"), ORIGINAL);
  });
});
