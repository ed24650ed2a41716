// What the extension remembers across window loads (extension/src/persistent-state.ts)
// outside VS Code, on in-memory stand-ins for its Memento and SecretStorage: the
// keys stay the ones earlier versions wrote (a renamed key would forget every
// user's running chat host on the next reload), malformed values are refused,
// and the panel page's messages are checked before the extension acts on them.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { PanelRecord, type HostRecord } from "../../../extension/src/panel-record.js";
import { claimStateFilePath } from "../../../extension/src/state-file-location.js";
import { parseFromPanel } from "../../../webview/src/panel-messages.js";
import { memoryState as fixture } from "../../support/persistent-state.js";
import { tempDir } from "../../support/processes.js";

const RECORD: HostRecord = { pid: 4242, port: 41234, launchId: "launch-1", conversation: "c1", stateFile: undefined, logFile: "/tmp/chat-host.log" };

describe("PersistentState", () => {
  it("keeps the panel host's record in workspaceState and its secret in SecretStorage, under the keys earlier versions used", async () => {
    const { workspace, secrets, state } = fixture();
    const record = new PanelRecord(state);
    await record.save(RECORD, "s3cret");
    assert.deepEqual(workspace.get("symposium.panelHost"), RECORD);
    assert.equal(secrets.values.get("symposium.panelHost.secret.launch-1"), "s3cret");
    assert.deepEqual(await record.load(), { record: RECORD, secret: "s3cret" });
    await record.clear();
    assert.deepEqual([workspace.keys(), [...secrets.values.keys()]], [[], []]);
  });

  it("refuses a malformed record, and a record whose secret is gone", async () => {
    const { workspace, secrets, state } = fixture();
    const record = new PanelRecord(state);
    await workspace.update("symposium.panelHost", { pid: "4242", port: 41234, launchId: "launch-1" });
    await secrets.store("symposium.panelHost.secret.launch-1", "s3cret");
    assert.equal(await record.load(), undefined, "a pid that is not a number");
    await workspace.update("symposium.panelHost", RECORD);
    await secrets.delete("symposium.panelHost.secret.launch-1");
    assert.equal(await record.load(), undefined, "no secret");
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
