// What the extension remembers across window loads (extension/src/persistent-state.ts)
// outside VS Code, on in-memory stand-ins for its Memento and SecretStorage (the panel host's
// secret in a private file, panel-record.ts): the
// keys stay the ones earlier versions wrote (a renamed key would forget every
// user's running chat host on the next reload), malformed values are refused,
// and the panel page's messages are checked before the extension acts on them.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { PanelRecord, type HostRecord } from "../../../extension/src/panel/panel-record.js";
import { claimStateFilePath } from "../../../extension/src/tracker/state-file-location.js";
import { parseFromPanel } from "../../../webview/src/panel-messages.js";
import { memoryState as fixture } from "../../support/persistent-state.js";
import { tempDir } from "../../support/processes.js";

const RECORD: HostRecord = { pid: 4242, port: 41234, launchId: "launch-1", conversation: "c1", stateFile: undefined, logFile: "/tmp/chat-host.log" };

describe("PersistentState", () => {
  it("keeps the panel host's record in workspaceState under the key earlier versions used, its secret in a private file; clearing removes an older version's SecretStorage copy too", async () => {
    const { workspace, secrets, state } = fixture();
    const dir = path.join(tempDir(), "chat-hosts");
    const record = new PanelRecord(state, dir);
    await secrets.store("symposium.panelHost.secret.launch-1", "older version's copy");
    await record.save(RECORD, "s3cret");
    assert.deepEqual(workspace.get("symposium.panelHost"), RECORD);
    assert.equal(fs.readFileSync(path.join(dir, "launch-1.secret"), "utf8"), "s3cret");
    assert.deepEqual(await record.load(), { record: RECORD, secret: "s3cret" });
    await record.clear();
    assert.deepEqual([workspace.keys(), [...secrets.values.keys()], fs.readdirSync(dir)], [[], [], []]);
  });

  it("refuses a malformed record, a record whose secret is gone, and a launch id that is no file name", async () => {
    const { workspace, state } = fixture();
    const dir = tempDir();
    const record = new PanelRecord(state, dir);
    fs.writeFileSync(path.join(dir, "launch-1.secret"), "s3cret");
    await workspace.update("symposium.panelHost", { pid: "4242", port: 41234, launchId: "launch-1" });
    assert.equal(await record.load(), undefined, "a pid that is not a number");
    await workspace.update("symposium.panelHost", RECORD);
    assert.deepEqual(await record.load(), { record: RECORD, secret: "s3cret" });
    fs.rmSync(path.join(dir, "launch-1.secret"));
    assert.equal(await record.load(), undefined, "no secret");
    await workspace.update("symposium.panelHost", { ...RECORD, launchId: "../launch-1" });
    assert.equal(await record.load(), undefined, "a launch id naming another folder");
    await assert.rejects(record.save({ ...RECORD, launchId: "../x" }, "s3cret"), /not a launch id/);
  });

  it("remembers this workspace's state files under symposium.editorStateFiles and reuses one no live window writes", () => {
    const { workspace, state } = fixture();
    const dir = tempDir();
    const first = claimStateFilePath(dir, state, () => {});
    assert.equal(path.dirname(first), dir);
    assert.deepEqual(workspace.get("symposium.editorStateFiles"), [first]);
    assert.equal(
      claimStateFilePath(dir, state, () => {}),
      first,
      "nobody writes it: the next window load takes it again",
    );
  });

  it("shows the Toad-missing notice once per user (globalState)", async () => {
    const { global, state } = fixture();
    assert.equal(state.toadMissingNoticeShown, false);
    await state.setToadMissingNoticeShown();
    assert.equal(global.get("symposium.toadMissingNoticeShown"), true);
    assert.equal(state.toadMissingNoticeShown, true);
  });
});

describe("messages from the panel's page", () => {
  it("are taken only in the shapes the extension knows", () => {
    assert.deepEqual(parseFromPanel({ type: "retry" }), { type: "retry" });
    assert.deepEqual(parseFromPanel({ type: "conversation", conversation: "abc", extra: 1 }), { type: "conversation", conversation: "abc" });
    assert.deepEqual(parseFromPanel({ type: "rendered", seq: 3 }), { type: "rendered", seq: 3 });
    for (const bad of [
      null,
      "retry",
      7,
      {},
      { type: "conversation" },
      { type: "conversation", conversation: 5 },
      { type: "stop" },
      { type: "rendered" },
      { type: "rendered", seq: -1 },
      { type: "rendered", seq: 1.5 },
      { type: "rendered", seq: "3" },
    ]) {
      assert.equal(parseFromPanel(bad), null, JSON.stringify(bad));
    }
  });
});
