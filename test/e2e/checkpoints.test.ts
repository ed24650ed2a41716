// Turn checkpoints in VS Code, in code-server + Chromium, driven like a user:
// the built-in chat runs an agent that writes the disk itself
// (test/fixtures/disk-agent.ts); `Symposium: Review Agent Changes` opens VS
// Code's multi-file diff of that turn (before ↔ now), where each change block
// is kept or reverted on its own (VS Code's Revert in the diff's gutter);
// `Symposium: Undo Agent Turn` asks, naming the files, and puts them back,
// leaving a file with unsaved edits alone; the chat's Undo turn and Rewind to
// here ask in VS Code's modal first; a file the agent changes on disk under
// unsaved edits gets a notification with Compare at once; an undo closes the
// turn's open review.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Frame, Locator, Page } from "playwright-core";
import { e2eSkipReason, openFile, visibleText, type CodeServer } from "../harness/code-server.js";
import { OUT_DIR, tempDir } from "../support/processes.js";
import { chatFrame, closeDemoWindow, command, extensionLog, openDemoWindow, symposiumActive, waitForText } from "./panel-helpers.js";

const skip = e2eSkipReason();
const DISK_AGENT = path.join(OUT_DIR, "test", "fixtures", "disk-agent.js");
const shots = process.env.SYMPOSIUM_SCREENSHOTS ?? tempDir("symposium-checkpoints-shots-");

/** The multi-file diff's entries: each file's name and its status badge ("A", "D", "R" or none), by name. */
async function reviewBadges(page: Page): Promise<Record<string, string>> {
  await page.locator(".part.editor .multiDiffEntry .header").first().waitFor({ timeout: 20_000 });
  const entries = await page.$$eval(".part.editor .multiDiffEntry .header .file-path", (paths) =>
    paths.map((each) => ({
      name: each.querySelector(".title.modified .label-name")?.textContent ?? each.querySelector(".title.modified")?.textContent ?? "",
      status: each.querySelector(".status")?.textContent ?? "",
      renamed: each.querySelector(".status")?.classList.contains("renamed") ?? false,
    })),
  );
  return Object.fromEntries(entries.map((entry) => [entry.name.trim(), entry.renamed ? "R" : entry.status.trim()]));
}

/** Forty numbered lines; `changed` lines rewritten as the agent does. */
function story(changed: number[] = []): string {
  return (
    Array.from({ length: 40 }, (_, index) => (changed.includes(index + 1) ? `line ${index + 1}, rewritten by the agent` : `line ${index + 1}`)).join("\n") +
    "\n"
  );
}

describe("agent turns reviewed and undone in VS Code", { skip, timeout: 600_000 }, () => {
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let frame: Frame;

  /** Sends the disk agent its steps and waits for its answer. */
  async function agentRuns(steps: unknown[]): Promise<void> {
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
    const before = (await frame.locator("#transcript").innerText()).match(/done \d+ steps/g)?.length ?? 0;
    await frame.locator("#input").fill(JSON.stringify(steps));
    await frame.locator("#input").press("Enter");
    await waitForText(
      async () => String((await frame.locator("#transcript").innerText()).match(/done \d+ steps/g)?.length ?? 0),
      new RegExp(`^${before + 1}$`),
      30_000,
    );
  }

  /** Picks the newest turn in the list titled `title` (the palette that ran the command is the same widget: wait for the list's title). */
  async function pickNewestTurn(title: string): Promise<void> {
    const quickPick = page.locator(".quick-input-widget", { hasText: title });
    await quickPick.waitFor({ state: "visible", timeout: 10_000 }).catch(async (error: Error) => {
      const toasts = await page
        .locator(".notifications-toasts")
        .innerText()
        .catch(() => "");
      throw new Error(`${error.message}; notifications: ${toasts}`);
    });
    await page.keyboard.press("Enter");
  }

  before(async () => {
    // A generous snapshot budget: code-server, Chromium and the agent share this machine's cores, and a turn
    // over the budget has no Review or Undo to click (the budget has its own tests: webchat-turn-changes).
    ({ workspace, server, browser, page } = await openDemoWindow({ SYMPOSIUM_CHECKPOINTS_BUDGET_MS: "20000" }, { "files.autoSave": "off" }));
    fs.writeFileSync(path.join(workspace, "notes.txt"), "first line\n");
    fs.writeFileSync(path.join(workspace, "plan.md"), "# plan\n");
    fs.writeFileSync(path.join(workspace, "story.txt"), story());
    fs.writeFileSync(
      path.join(path.dirname(workspace), "config.jsonc"),
      JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(DISK_AGENT)}`, proxies: [] }),
    );
    await symposiumActive(page); // on a loaded machine the extension can take minutes to come up
    await command(page, "Symposium: Open Chat");
    frame = await chatFrame(page, "#input:visible", 120_000);
  });

  after(() => closeDemoWindow(browser, server, workspace));

  it("Review Agent Changes opens the turn's files in VS Code's multi-file diff, before the turn ↔ now", async () => {
    await agentRuns([
      { op: "edit", path: "notes.txt", find: "first line", replace: "first line, edited by the agent" },
      { op: "write", path: "src/added.rs", content: "fn added() {}\n" },
      { op: "delete", path: "plan.md" },
    ]);
    await command(page, "Symposium: Review Agent Changes");
    await pickNewestTurn("Review which turn's changes?");
    await page.locator(".part.editor .tab", { hasText: "Agent changes:" }).first().waitFor({ timeout: 20_000 });
    await waitForText(() => visibleText(page, ".part.editor"), /edited by the agent/, 20_000);
    await page.screenshot({ path: path.join(shots, "review.png") });
    const headers = await page.locator(".part.editor").innerText();
    assert.match(headers, /notes\.txt/);
    assert.match(headers, /added\.rs/);
    assert.match(headers, /plan\.md/);
    // Each entry's badge, as VS Code labels it: a modified file has none (never "R", renamed, with its old name struck through).
    assert.deepEqual(await reviewBadges(page), { "added.rs": "A", "notes.txt": "", "plan.md": "D" });
    const text = await visibleText(page, ".part.editor");
    assert.match(text, /first line\n[\s\S]*first line, edited by the agent/, "before the turn beside now");
    assert.match(text, /# plan/, "a deleted file's before side");
    await command(page, "View: Close All Editors");
  });

  it("reverts one change block from the review's gutter (VS Code's Revert) and keeps the others", async () => {
    await agentRuns([{ op: "write", path: "story.txt", content: story([3, 36]) }]);
    await command(page, "Symposium: Review Agent Changes");
    await pickNewestTurn("Review which turn's changes?");
    const diff = page.locator(".part.editor .monaco-diff-editor").first();
    await diff.waitFor({ timeout: 20_000 });
    const first = diff.locator(".editor.modified .view-line", { hasText: "line 3, rewritten by the agent" });
    await first.waitFor({ timeout: 20_000 });
    await waitForText(() => visibleText(page, ".part.editor"), /line 36, rewritten by the agent/, 20_000);
    // The block's toolbar shows in the gutter beside the line the pointer is on; its Revert puts the block back.
    await first.hover();
    const revert = await gutterActionBeside(diff, first, "Revert");
    await revert.hover();
    await page.screenshot({ path: path.join(shots, "review-revert-block.png") });
    await revert.click();
    await waitForText(() => visibleText(page, ".part.editor .editor.modified"), /^(?![\s\S]*line 3, rewritten)[\s\S]*line 36, rewritten by the agent/, 10_000);
    // The revert is an edit of the file's editor, as VS Code's always is: saved like any other.
    await page.keyboard.press("Control+S");
    await waitForText(async () => fs.readFileSync(path.join(workspace, "story.txt"), "utf8"), /^line 1\nline 2\nline 3\n/, 10_000);
    assert.equal(fs.readFileSync(path.join(workspace, "story.txt"), "utf8"), story([36]), "the first block put back, the second kept");
    await command(page, "View: Close All Editors");
  });

  it("undoing a turn closes its open review, which would show the turn as standing", async () => {
    await agentRuns([{ op: "write", path: "reviewed/undone.txt", content: "written by the agent\n" }]);
    const leftOpen = page.locator(".monaco-dialog-box");
    if (await leftOpen.isVisible()) assert.fail(`a dialog left open before this test: ${await leftOpen.innerText()}`);
    await command(page, "Symposium: Review Agent Changes");
    await pickNewestTurn("Review which turn's changes?");
    const reviewTab = page.locator(".part.editor .tab", { hasText: "Agent changes:" });
    await reviewTab.first().waitFor({ timeout: 20_000 });
    await waitForText(() => visibleText(page, ".part.editor"), /written by the agent/, 20_000);
    await command(page, "Symposium: Undo Agent Turn");
    await pickNewestTurn("Undo which turn?");
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.getByRole("button", { name: "Undo Turn" }).click();
    await page
      .locator(".notifications-toasts .notification-toast", { hasText: /Undone: 1 file put back\. Closed the review of the undone turn/ })
      .waitFor({ timeout: 20_000 })
      .catch(async (error: Error) => {
        const toasts = await page.locator(".notifications-toasts").innerText();
        const reviewLog = extensionLog(server).match(/.*(review of turn|undid turn).*/g);
        throw new Error(`${error.message}; notifications: ${toasts}; log: ${JSON.stringify(reviewLog)}`);
      });
    await reviewTab.first().waitFor({ state: "detached", timeout: 10_000 });
    await page.screenshot({ path: path.join(shots, "review-closed-by-undo.png") });
    assert.equal(fs.existsSync(path.join(workspace, "reviewed/undone.txt")), false);
  });

  it("the chat's Undo turn and Rewind to here ask in VS Code's modal first; Cancel changes nothing", async () => {
    await agentRuns([{ op: "write", path: "rewind/a.txt", content: "a, first turn\n" }]);
    await agentRuns([
      { op: "write", path: "rewind/a.txt", content: "a, second turn\n" },
      { op: "write", path: "rewind/b.txt", content: "b, second turn\n" },
    ]);
    await agentRuns([{ op: "write", path: "rewind/c.txt", content: "c, third turn\n" }]);
    // Each note comes once its turn's record is finished, a moment after the answer (an earlier
    // test's may come later still): find a turn's note by the files it names, not by counting.
    const noteNaming = (files: string) => frame.locator(".turn-changes").filter({ has: frame.locator(`span[title="${files}"]`) });
    const [firstTurn, thirdTurn] = [noteNaming("rewind/a.txt"), noteNaming("rewind/c.txt")];
    for (const note of [thirdTurn, firstTurn]) {
      await note.waitFor({ timeout: 30_000 }).catch(async (error: Error) => {
        const notes = await frame.locator(".turn-changes").evaluateAll((all) => all.map((one) => `${one.textContent} [${one.querySelector("span")?.title}]`));
        throw new Error(`${error.message}; the turns' notes: ${JSON.stringify(notes)}`);
      });
    }
    const dialog = page.locator(".monaco-dialog-box");
    // Undo turn on the newest turn, then Cancel: nothing moves.
    await thirdTurn.locator(".turn-undo").click();
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /rewind\/c\.txt/);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden", timeout: 10_000 });
    assert.equal(fs.readFileSync(path.join(workspace, "rewind/c.txt"), "utf8"), "c, third turn\n");
    // Rewind to just after the first of the three: the two later turns undone, newest first.
    await firstTurn.locator(".turn-rewind").click();
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /Rewind the conversation to just after/);
    await page.screenshot({ path: path.join(shots, "rewind-confirm.png") });
    await dialog.getByRole("button", { name: "Rewind" }).click();
    await page.locator(".notifications-toasts .notification-toast", { hasText: /Rewound: 2 turns undone/ }).waitFor({ timeout: 20_000 });
    assert.equal(fs.readFileSync(path.join(workspace, "rewind/a.txt"), "utf8"), "a, first turn\n");
    assert.equal(fs.existsSync(path.join(workspace, "rewind/b.txt")), false);
    assert.equal(fs.existsSync(path.join(workspace, "rewind/c.txt")), false);
  });

  it("Undo Agent Turn names the files, puts them back, and leaves a file with unsaved edits alone", async () => {
    await agentRuns([
      { op: "write", path: "notes.txt", content: "second turn\n" },
      { op: "write", path: "plan.md", content: "# plan again\n" },
    ]);
    // The user starts typing in plan.md: its unsaved edits must survive the undo.
    await openFile(page, "plan.md");
    await page.locator(".part.editor .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("user typing");
    await command(page, "Symposium: Undo Agent Turn");
    await pickNewestTurn("Undo which turn?");
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    const asked = await dialog.innerText();
    assert.match(asked, /notes\.txt/);
    assert.match(asked, /plan\.md/);
    await page.screenshot({ path: path.join(shots, "undo-confirm.png") });
    await dialog.getByRole("button", { name: "Undo Turn" }).click();
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: /left as they are/ });
    await toast.waitFor({ timeout: 20_000 });
    assert.match(await toast.innerText(), /plan\.md \(unsaved changes in the editor\)/);
    assert.equal(fs.readFileSync(path.join(workspace, "notes.txt"), "utf8"), "first line, edited by the agent\n");
    assert.equal(fs.readFileSync(path.join(workspace, "plan.md"), "utf8"), "# plan again\n");
    assert.match(await visibleText(page, ".part.editor .monaco-editor"), /user typing/);
    assert.match(extensionLog(server), /undid turn .*restored notes\.txt/);
  });

  it("says at once when the agent changes a file on disk under unsaved edits, with Compare", async () => {
    await openFile(page, "notes.txt");
    await page.locator(".part.editor .monaco-editor .view-lines").first().click();
    await page.keyboard.type("unsaved words ");
    await agentRuns([{ op: "write", path: "notes.txt", content: "the agent's version\n" }]);
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "notes.txt changed on disk while it has unsaved changes" });
    await toast.waitFor({ timeout: 20_000 });
    await toast.getByRole("button", { name: "Compare" }).click();
    await page.locator(".part.editor .monaco-diff-editor").first().waitFor({ timeout: 10_000 });
    await waitForText(() => visibleText(page, ".part.editor"), /the agent's version[\s\S]*unsaved words|unsaved words[\s\S]*the agent's version/, 10_000);
    await page.screenshot({ path: path.join(shots, "compare.png") });
    console.log(`screenshots: ${shots}`);
    assert.match(await visibleText(page, ".part.editor"), /the agent's version/);
    assert.match(await visibleText(page, ".part.editor"), /unsaved words/);
  });
});

/** The action titled `title` in the diff's gutter toolbar of the change block that holds `line` (its item spans the block's lines). */
async function gutterActionBeside(diff: Locator, line: Locator, title: string): Promise<Locator> {
  const lineBox = await line.boundingBox();
  assert.ok(lineBox, "the changed line is on screen");
  // Each change block's gutter slot spans the block's lines; its toolbar (20px) sits at the slot's top,
  // so the slot, not the toolbar, is what lies beside the changed line.
  const items = diff.locator(".gutterItem");
  for (let index = 0; index < (await items.count()); index++) {
    const box = await items.nth(index).locator("..").boundingBox();
    if (box && box.y <= lineBox.y + lineBox.height / 2 && lineBox.y + lineBox.height / 2 <= box.y + box.height)
      return items.nth(index).getByRole("button", { name: new RegExp(`^${title}`) });
  }
  throw new Error(`no gutter toolbar beside the line at y=${lineBox.y}: ${await diff.locator(".gutter").innerHTML()}`);
}
