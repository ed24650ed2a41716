// The agent sees what the user sees (docs/proxy.md "Unsaved
// changes"): a real agent (the ACP SDK's, test/fixtures/fs-agent.ts) reads and
// writes files through the editor-context proxy, under our conductor and in
// wrap mode, while a state file lists unsaved documents with their snapshots.
// The client is the SDK's client app; what reaches it is recorded.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { MAX_SNAPSHOT_BYTES } from "../../../editor-state/src/index.js";
import { CLIENT_ANSWERS, openSession, testClient, type TestClient } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, OUT_DIR, PROXY_CLI, startNode, streamTo, tempDir, type RunningProcess } from "../../support/processes.js";
import { SEED_STATE, ageFile } from "../../support/state-files.js";

const node = process.execPath;
const FS_AGENT = path.join(OUT_DIR, "test", "fixtures", "fs-agent.js");
const POSIX = process.platform !== "win32";
const PROJECT = path.resolve("/project");
const UNSAVED = path.join(PROJECT, "src", "x.rs");
const SAVED = path.join(PROJECT, "src", "main.rs");
const EDITOR_TEXT = "fn x() {\n    // typed, not saved\n}\nlast line";

type Outcome = { ok: true; content?: string } | { ok: false; code?: number; message: string };

/** A window's private state directory with a state file listing `documents` and their snapshots. */
function windowState(documents: Array<{ path: string; text?: string; snapshot?: string | null }>): string {
  const dir = tempDir("symposium-unsaved-");
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, "editor-state-0123456789abcdef0123456789abcdef.json");
  const unsavedDocuments = documents.map((document, index) => {
    const snapshot = document.snapshot !== undefined ? document.snapshot : `editor-state-0123.unsaved-${index}.txt`;
    if (document.text !== undefined && snapshot !== null) fs.writeFileSync(path.join(dir, snapshot), document.text, { mode: 0o600 });
    return { path: document.path, version: 7, snapshot };
  });
  fs.writeFileSync(file, JSON.stringify({ ...SEED_STATE, activeFile: SAVED, workspaceFolders: [PROJECT], unsavedDocuments }), { mode: 0o600 });
  return file;
}

const MODES = {
  // What the panel runs for Toad and the built-in chat: the conductor's in-process hook.
  "under our conductor, its in-process hook": (stateFile: string) =>
    startNode(CONDUCTOR_CLI, ["agent", `${node} ${FS_AGENT}`], { SYMPOSIUM_EDITOR_STATE_FILE: stateFile }),
  "under our conductor, the proxy process": (stateFile: string) =>
    startNode(CONDUCTOR_CLI, ["agent", `${node} ${PROXY_CLI}`, `${node} ${FS_AGENT}`], { SYMPOSIUM_EDITOR_STATE_FILE: stateFile }),
  "in wrap mode": (stateFile: string) => startNode(PROXY_CLI, ["--", node, FS_AGENT], { SYMPOSIUM_EDITOR_STATE_FILE: stateFile }),
} as const;

/** Runs the agent behind `start`; `ask` sends it fs requests, one prompt each; returns the client's record too. */
async function withAgent<T>(proc: RunningProcess, ask: (op: (request: object) => Promise<Outcome>) => Promise<T>): Promise<{ result: T; client: TestClient }> {
  const client = testClient(streamTo(proc.child));
  const result = await client.run(async (agent) => {
    const sessionId = await openSession(agent);
    return ask(async (request) => {
      const before = client.updates.length;
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify(request) }] });
      const update = client.updates.slice(before).find(({ update }) => update.sessionUpdate === "agent_message_chunk");
      assert.ok(update?.update.sessionUpdate === "agent_message_chunk" && update.update.content.type === "text");
      return JSON.parse(update.update.content.text) as Outcome;
    });
  });
  proc.child.stdin!.end();
  assert.equal(await proc.exited, 0, proc.stderr());
  return { result, client };
}

const clientCalls = (client: TestClient, method: string): unknown[] => client.agentRequests.filter(([name]) => name === method).map(([, params]) => params);

for (const [mode, start] of Object.entries(MODES)) {
  describe(`unsaved changes, ${mode}`, () => {
    it("reads an unsaved buffer from its snapshot (line and limit honoured); other files from the client", async () => {
      const stateFile = windowState([{ path: UNSAVED, text: EDITOR_TEXT }]);
      const { result, client } = await withAgent(start(stateFile), async (op) => ({
        whole: await op({ op: "read", path: UNSAVED }),
        middle: await op({ op: "read", path: UNSAVED, line: 2, limit: 2 }),
        tail: await op({ op: "read", path: UNSAVED, line: 4 }),
        past: await op({ op: "read", path: UNSAVED, line: 40, limit: 1 }),
        badRange: await op({ op: "read", path: UNSAVED, line: -1 }),
        other: await op({ op: "read", path: SAVED }),
      }));
      assert.deepEqual(result.whole, { ok: true, content: EDITOR_TEXT });
      assert.deepEqual(result.middle, { ok: true, content: "    // typed, not saved\n}" });
      assert.deepEqual(result.tail, { ok: true, content: "last line" });
      assert.deepEqual(result.past, { ok: true, content: "" });
      assert.equal(result.badRange.ok, false);
      assert.equal((result.badRange as { code: number }).code, -32602);
      assert.deepEqual(result.other, { ok: true, content: CLIENT_ANSWERS.read.content }, "a saved file is the client's to read");
      assert.deepEqual(
        clientCalls(client, "fs/read_text_file").map((params) => (params as { path: string }).path),
        [SAVED],
        "the client was asked only about the saved file",
      );
    });

    it("refuses a write over unsaved changes with a readable error, and forwards a write to a saved file", async () => {
      const stateFile = windowState([{ path: UNSAVED, text: EDITOR_TEXT }]);
      const { result, client } = await withAgent(start(stateFile), async (op) => ({
        refused: await op({ op: "write", path: UNSAVED, content: "agent's version" }),
        allowed: await op({ op: "write", path: SAVED, content: "agent's version" }),
      }));
      assert.equal(result.refused.ok, false);
      assert.match((result.refused as { message: string }).message, /^src[/\\]x\.rs has unsaved changes in the editor; save or revert it first$/);
      assert.deepEqual(result.allowed, { ok: true });
      assert.deepEqual(
        clientCalls(client, "fs/write_text_file").map((params) => (params as { path: string }).path),
        [SAVED],
        "the refused write never reached the client",
      );
    });

    it("forwards everything to the client when the state file is stale (over 30 s)", async () => {
      const stateFile = windowState([{ path: UNSAVED, text: EDITOR_TEXT }]);
      ageFile(stateFile, 40);
      const { result, client } = await withAgent(start(stateFile), async (op) => ({
        read: await op({ op: "read", path: UNSAVED }),
        write: await op({ op: "write", path: UNSAVED, content: "c" }),
      }));
      assert.deepEqual(result.read, { ok: true, content: CLIENT_ANSWERS.read.content });
      assert.deepEqual(result.write, { ok: true });
      assert.equal(clientCalls(client, "fs/read_text_file").length, 1);
      assert.equal(clientCalls(client, "fs/write_text_file").length, 1);
    });
  });
}

describe("unsaved changes: whose, and which snapshot files", () => {
  const wrap = MODES["in wrap mode"];

  it("never gives one window's agent another window's unsaved buffers (each window has its own state file)", async () => {
    const OTHER = path.join(PROJECT, "src", "y.rs");
    const first = windowState([{ path: UNSAVED, text: "first window's buffer" }]);
    windowState([{ path: OTHER, text: "second window's buffer" }]);
    const { result } = await withAgent(wrap(first), async (op) => ({
      mine: await op({ op: "read", path: UNSAVED }),
      theirs: await op({ op: "read", path: OTHER }),
      theirsWrite: await op({ op: "write", path: OTHER, content: "c" }),
    }));
    assert.deepEqual(result.mine, { ok: true, content: "first window's buffer" });
    assert.deepEqual(result.theirs, { ok: true, content: CLIENT_ANSWERS.read.content });
    assert.deepEqual(result.theirsWrite, { ok: true });
  });

  it("opens only bare snapshot names in the state directory, no links, within the size cap; writes stay refused", async () => {
    const outside = path.join(tempDir("symposium-secret-"), "secret.txt");
    fs.writeFileSync(outside, "secret");
    const stateFile = windowState([
      { path: path.join(PROJECT, "a.rs"), snapshot: `../${path.basename(path.dirname(outside))}/secret.txt` },
      { path: path.join(PROJECT, "b.rs"), snapshot: outside },
      { path: path.join(PROJECT, "c.rs"), snapshot: null },
      { path: path.join(PROJECT, "d.rs"), snapshot: "missing.txt" },
      { path: path.join(PROJECT, "e.rs"), text: "x".repeat(MAX_SNAPSHOT_BYTES + 1) },
      ...(POSIX ? [{ path: path.join(PROJECT, "f.rs"), snapshot: "link.txt" }] : []),
    ]);
    if (POSIX) fs.symlinkSync(outside, path.join(path.dirname(stateFile), "link.txt"));
    const names = ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", ...(POSIX ? ["f.rs"] : [])];
    const { result, client } = await withAgent(wrap(stateFile), async (op) => {
      const reads: Outcome[] = [];
      const writes: Outcome[] = [];
      for (const name of names) {
        reads.push(await op({ op: "read", path: path.join(PROJECT, name) }));
        writes.push(await op({ op: "write", path: path.join(PROJECT, name), content: "c" }));
      }
      return { reads, writes };
    });
    for (const read of result.reads)
      assert.deepEqual(read, { ok: true, content: CLIENT_ANSWERS.read.content }, "no snapshot to read: the client reads the file");
    for (const write of result.writes) assert.match((write as { message: string }).message, /has unsaved changes in the editor; save or revert it first$/);
    assert.equal(clientCalls(client, "fs/read_text_file").length, names.length);
    assert.equal(clientCalls(client, "fs/write_text_file").length, 0);
  });

  it(
    "knows an unsaved file by what it is, not how it is named: through a link inside the project, or the project through a linked folder",
    { skip: POSIX ? false : "symlinks need Developer Mode on Windows" },
    async () => {
      const real = fs.realpathSync(tempDir("symposium-unsaved-real-"));
      fs.writeFileSync(path.join(real, "dirty.txt"), "on disk\n");
      fs.writeFileSync(path.join(real, "clean.txt"), "on disk\n");
      fs.symlinkSync("dirty.txt", path.join(real, "alias.txt"));
      const linked = path.join(tempDir("symposium-unsaved-link-"), "project");
      fs.symlinkSync(real, linked);
      const check = async (listed: string, writes: string[]) => {
        const stateFile = windowState([{ path: listed, text: "typed, not saved" }]);
        const { result, client } = await withAgent(wrap(stateFile), async (op) => {
          const outcomes: Outcome[] = [];
          for (const target of writes) outcomes.push(await op({ op: "write", path: target, content: "agent's version" }));
          outcomes.push(await op({ op: "read", path: writes[0]! }));
          outcomes.push(await op({ op: "write", path: path.join(real, "clean.txt"), content: "agent's version" }));
          return outcomes;
        });
        const read = result.splice(writes.length, 1)[0];
        for (const [index, outcome] of result.slice(0, writes.length).entries())
          assert.match(
            (outcome as { message?: string }).message ?? "",
            /has unsaved changes in the editor/,
            `the write to ${writes[index]} (the editor holds ${listed})`,
          );
        assert.deepEqual(read, { ok: true, content: "typed, not saved" }, `a read of ${writes[0]} gets the editor's text`);
        assert.deepEqual(result.at(-1), { ok: true }, "a write to another file goes through");
        assert.deepEqual(
          clientCalls(client, "fs/write_text_file").map((params) => (params as { path: string }).path),
          [path.join(real, "clean.txt")],
        );
      };
      // The editor holds dirty.txt; the agent writes through the link inside the project, or the project's other name.
      await check(path.join(real, "dirty.txt"), [path.join(real, "alias.txt"), path.join(linked, "dirty.txt"), path.join(linked, "alias.txt")]);
      // VS Code opened the project through the linked folder; the agent names the real one.
      await check(path.join(linked, "dirty.txt"), [path.join(real, "dirty.txt"), path.join(real, "alias.txt")]);
    },
  );

  it("reads files written by older trackers (no unsavedDocuments): everything goes to the client", async () => {
    const dir = tempDir("symposium-unsaved-");
    const stateFile = path.join(dir, "editor-state.json");
    fs.writeFileSync(stateFile, JSON.stringify(SEED_STATE));
    const { result, client } = await withAgent(wrap(stateFile), async (op) => ({
      read: await op({ op: "read", path: UNSAVED }),
      write: await op({ op: "write", path: UNSAVED, content: "c" }),
    }));
    assert.deepEqual(result.read, { ok: true, content: CLIENT_ANSWERS.read.content });
    assert.deepEqual(result.write, { ok: true });
    assert.equal(client.agentRequests.length, 2);
  });
});
