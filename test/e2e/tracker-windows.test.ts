// The tracker across windows, in a real VS Code (code-server) in a real
// browser: two windows on one folder (two browser tabs) write two files, and
// a reload keeps the path Toad was given.

import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { e2eSkipReason, openWorkbench, runCommand, type CodeServer } from "../harness/code-server.js";
import { closeTrackedWindow, newWindowStatePath, openFile, openTrackedWindow, readState, waitForState, type TrackedWindow } from "./tracker-helpers.js";

const skip = e2eSkipReason();

describe("editor state tracker with several windows in code-server", { skip, timeout: 600_000 }, () => {
  let window: TrackedWindow;
  let server: CodeServer;
  let page: Page;
  let stateFile: string;
  let second: { page: Page; stateFile: string } | undefined;

  before(async () => {
    window = await openTrackedWindow({ "notes.txt": "alpha\nbeta\nalpha\n" });
    ({ server, page, stateFile } = window);
  });

  after(() => closeTrackedWindow(window));

  it("opens a second window on the same folder, which writes its own file", async () => {
    await waitForState(stateFile, (state) => state !== null);
    const secondPage = await openWorkbench(window.browser, server);
    const secondFile = await newWindowStatePath(server.userDataDir, window.knownLogs);
    second = { page: secondPage, stateFile: secondFile };
    assert.notEqual(secondFile, stateFile, "two windows, two files");
    await openFile(secondPage, "notes.txt");
    await secondPage.keyboard.press("Control+Home");
    await secondPage.keyboard.press("Shift+End");
    await waitForState(secondFile, (state) => state?.selection?.text === "alpha");
    assert.equal(readState(stateFile)?.activeFile, null, "the first window's file is its own");
    assert.notEqual(readState(stateFile)?.writerPid, readState(secondFile)?.writerPid, "written by two extension hosts");
  });

  it("writes at the same path after a reload, while the second window keeps its own", async () => {
    const before = readState(stateFile)!.writerPid;
    await runCommand(page, "Developer: Reload Window");
    const afterReload = await newWindowStatePath(server.userDataDir, window.knownLogs);
    assert.equal(afterReload, stateFile, "Toad keeps the path it was started with");
    const { state } = await waitForState(stateFile, (s) => s !== null && s.writerPid !== before, 30_000);
    assert.ok(state);
    assert.ok(readState(second!.stateFile)?.selection?.text === "alpha", "the second window's file is untouched");
  });
});
