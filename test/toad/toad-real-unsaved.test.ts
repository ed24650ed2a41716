// The agent sees what the user sees, with the real Toad: the panel
// host runs Toad, Toad our conductor (its editor-context hook), the conductor
// test/fixtures/toad-unsaved-agent.ts. The window's state file lists an unsaved
// buffer of src/main.rs, written by the tracker's own writer and snapshot store;
// the user types into Toad's page in Chromium; the agent reads the file through
// Toad's chain and gets the buffer, not the disk, and its write is refused with
// a message it can read, the file on disk untouched.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { StateFileWriter } from "../../extension/src/tracker/state-file-writer.js";
import { UnsavedSnapshots } from "../../extension/src/tracker/unsaved-snapshots.js";
import { launchBrowser } from "../harness/code-server.js";
import { editorOn } from "../support/editor-facts.js";
import { OUT_DIR, eventually } from "../support/processes.js";
import type { FileRecord } from "../fixtures/toad-unsaved-agent.js";
import { realToadSkip, startToadHost, type ToadHost } from "../support/toad.js";
import { screenText, typeInto, waitForScreenText, watchTerminalOutput } from "../support/toad-page.js";

const skip = realToadSkip();
const UNSAVED_AGENT = path.join(OUT_DIR, "test", "fixtures", "toad-unsaved-agent.js");
const ON_DISK = "// DISK-TEXT-0C1D as last saved\nfn main() {}\n";
const IN_EDITOR = "// UNSAVED-BUFFER-7F3A typed, not saved\nfn main() { todo!() }\n";
/** The tracker rewrites (or touches) the state file this often; the reader drops it after 30 s. */
const REFRESH_MS = 5_000;

interface EditorWindow {
  /** The user saves the document: the disk gets the editor's text, the tracker lists nothing unsaved. */
  save(): void;
  close(): void;
}

/**
 * The VS Code window's side, as the tracker writes it (editor-state-tracker.ts):
 * the real StateFileWriter and UnsavedSnapshots, with `file` dirty in the editor.
 */
function editorWindow(stateFile: string, workspace: string, file: string): EditorWindow {
  const log = { info: () => {}, warn: (message: string) => assert.fail(message), error: (message: string) => assert.fail(message) };
  const snapshots = new UnsavedSnapshots(log);
  const uri = pathToFileURL(file).href;
  let dirty = true;
  const writer = new StateFileWriter({
    editorFacts: () => editorOn(IN_EDITOR, [], { uri, fsPath: file, label: path.basename(file), isDirty: dirty }),
    workspaceFolders: () => [workspace],
    unsavedDocuments: (target) => snapshots.sync(target, dirty ? [{ path: file, version: 4, length: IN_EDITOR.length, text: () => IN_EDITOR }] : []),
    log,
    written: () => snapshots.removeObsolete(stateFile),
  });
  writer.path = stateFile;
  writer.writeNow();
  const timer = setInterval(() => writer.refresh(), REFRESH_MS);
  return {
    save: () => {
      fs.writeFileSync(file, IN_EDITOR);
      dirty = false;
      writer.writeNow();
    },
    close: () => {
      clearInterval(timer);
      fs.rmSync(stateFile, { force: true });
      snapshots.removeAll(stateFile);
    },
  };
}

const snapshotFiles = (stateFile: string): string[] => fs.readdirSync(path.dirname(stateFile)).filter((name) => name.includes(".unsaved-"));

describe("the real Toad: the agent reads the editor's unsaved buffer and cannot overwrite it", { skip, timeout: 300_000 }, () => {
  let host: ToadHost;
  let browser: Browser;
  let page: Page;
  let window: EditorWindow | undefined;
  let file: string;

  /** Types "read src/main.rs" into Toad's page; the agent's record of that turn. */
  async function askToRead(): Promise<FileRecord> {
    const before = host.records().filter((entry) => entry.file).length;
    await typeInto(page, "read src/main.rs");
    await eventually(() => host.records().filter((entry) => entry.file).length > before, 30_000, "the agent to read and write the file").catch(
      async (error: Error) => {
        await page.screenshot({ path: "/tmp/toad-real-unsaved-failed.png" });
        throw new Error(`${error.message}\n${host.log().slice(-2_000)}`);
      },
    );
    return host.records().filter((entry) => entry.file)[before]!.file!;
  }

  /** Waits until Toad's page shows `text` (a screenshot when it does not). */
  async function pageShows(text: string): Promise<void> {
    await waitForScreenText(page, text).catch(async (error: Error) => {
      await page.screenshot({ path: "/tmp/toad-real-unsaved-failed.png" });
      throw error;
    });
  }

  before(async () => {
    host = await startToadHost("real", UNSAVED_AGENT);
    browser = await launchBrowser();
    file = path.join(host.workspace, "src", "main.rs");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, ON_DISK);
    window = editorWindow(host.stateFile, host.workspace, file);
    page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    await page.addInitScript(watchTerminalOutput);
    await page.goto(`${host.gate}/?token=${host.spec.secret}`);
    await page.waitForSelector("body.-first-byte", { timeout: 30_000 });
    await eventually(() => host.records().some((entry) => entry.start), 30_000, "Toad's app to start the conductor and the agent");
  });

  after(async () => {
    window?.close();
    await browser?.close();
    if (host?.child.exitCode === null) host.child.kill("SIGTERM");
    await host?.exited;
  });

  it("answers fs/read_text_file from the snapshot (Toad's page shows it), refuses fs/write_text_file, leaves the disk alone", async () => {
    assert.equal(snapshotFiles(host.stateFile).length, 1, "the tracker's writer wrote one snapshot");
    const record = await askToRead();
    await pageShows("first line read: // UNSAVED-BUFFER-7F3A typed, not saved | write refused");
    assert.doesNotMatch(await screenText(page), /DISK-TEXT-0C1D/, "the disk's text never reached the page");
    assert.equal(record.path, file);
    assert.equal(record.read, IN_EDITOR, "the editor's text, not the disk's");
    assert.equal(record.line2, "fn main() { todo!() }", "line and limit honoured");
    assert.deepEqual(record.write, {
      ok: false,
      code: -32603,
      message: "src/main.rs has unsaved changes in the editor; save or revert it first",
    });
    assert.equal(fs.readFileSync(file, "utf8"), ON_DISK, "the write never reached the disk");
  });

  it("once the user saved: the snapshot is gone, the agent reads the disk through Toad, and Toad writes its edit", async () => {
    window!.save();
    assert.deepEqual(snapshotFiles(host.stateFile), [], "saving removed the snapshot");
    const record = await askToRead();
    assert.equal(record.read, IN_EDITOR, "the saved text, read from disk by Toad");
    assert.deepEqual(record.write, { ok: true });
    assert.equal(fs.readFileSync(file, "utf8"), record.written, "Toad wrote the agent's edit");
    await pageShows("| write done");
  });
});
