// The bridge's checks, without VS Code: what the panel's page may pass on from
// the chat page (parseFromPanel), which paths count as the workspace's, and the
// mention "Add Selection to Chat" inserts.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  CHAT_MESSAGE,
  CHORD_COMMANDS,
  chordCommand,
  MAX_BRIDGE_TEXT,
  MAX_REPLY_QUOTE,
  parseFromPanel,
  parseToChat,
  parseToPanel,
} from "../../../webview/src/panel-messages.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";
import { selectionMention } from "../../../extension/src/panel/selection-mention.js";
import { mentionText, parseMentions } from "../../../webchat/page/mention-syntax.js";
import { tempDir } from "../../support/processes.js";

const request = (body: unknown) => parseFromPanel({ type: "request", request: body });

describe("bridge requests from the chat page", () => {
  it("takes the known requests, rebuilt from their known fields only", () => {
    assert.deepEqual(request({ kind: "chord", chord: "ctrl+shift+p", command: "workbench.action.terminal.sendSequence" }), {
      type: "request",
      request: { kind: "chord", chord: "ctrl+shift+p" },
    });
    assert.deepEqual(request({ kind: "openDiff", path: "/w/a.rs", oldText: "a", newText: "b", extra: 1 }), {
      type: "request",
      request: { kind: "openDiff", path: "/w/a.rs", oldText: "a", newText: "b" },
    });
    assert.deepEqual(request({ kind: "openFile", path: "src/main.rs", line: 3 }), {
      type: "request",
      request: { kind: "openFile", path: "src/main.rs", line: 3 },
    });
    assert.deepEqual(request({ kind: "openFile", path: "src/main.rs" }), { type: "request", request: { kind: "openFile", path: "src/main.rs" } });
    assert.deepEqual(request({ kind: "agent", name: "demo-agent", state: "Ready" }), {
      type: "request",
      request: { kind: "agent", name: "demo-agent", state: "Ready" },
    });
    // An elicitation's address: http and https only.
    assert.deepEqual(request({ kind: "openUrl", url: "https://example.com/sign-in?x=1" }), {
      type: "request",
      request: { kind: "openUrl", url: "https://example.com/sign-in?x=1" },
    });
    const turn = "20261127T112233444Z-0a1b2c";
    assert.deepEqual(request({ kind: "undoTurn", project: "/w", turn, files: ["../x"] }), {
      type: "request",
      request: { kind: "undoTurn", project: "/w", turn },
    });
    assert.deepEqual(request({ kind: "reviewTurn", project: "/w", turn }), { type: "request", request: { kind: "reviewTurn", project: "/w", turn } });
    assert.deepEqual(request({ kind: "rewindTurn", project: "/w", turn }), { type: "request", request: { kind: "rewindTurn", project: "/w", turn } });
  });

  it("drops hostile requests: a command by name, a chord outside the table, prototype keys, bad paths, lines and sizes", () => {
    const hostile: unknown[] = [
      { kind: "command", command: "workbench.action.terminal.sendSequence", args: { text: "rm -rf ~\n" } },
      { kind: "chord", chord: "workbench.action.terminal.sendSequence" },
      { kind: "chord", chord: "ctrl+w" },
      { kind: "chord", chord: "__proto__" },
      { kind: "chord", chord: "constructor" },
      { kind: "chord", chord: "toString" },
      { kind: "chord", chord: ["ctrl+p"] },
      { kind: "openFile", path: "" },
      { kind: "openFile", path: "a\0b" },
      { kind: "openFile", path: "x".repeat(5000) },
      { kind: "openFile", path: "a.rs", line: 0 },
      { kind: "openFile", path: "a.rs", line: 1.5 },
      { kind: "openFile", path: "a.rs", line: "3" },
      { kind: "openFile", path: { toString: () => "a.rs" } },
      { kind: "openDiff", path: "a.rs", oldText: "a" },
      { kind: "openDiff", path: "a.rs", oldText: "a", newText: "b".repeat(MAX_BRIDGE_TEXT + 1) },
      { kind: "agent", name: "x".repeat(500), state: "Ready" },
      { kind: "agent", name: "evil\u001b[31m", state: "Ready" },
      { kind: "openUrl", url: "javascript:alert(1)" },
      { kind: "openUrl", url: "file:///etc/passwd" },
      { kind: "openUrl", url: "command:workbench.action.terminal.new" },
      { kind: "openUrl", url: "vscode://settings" },
      { kind: "openUrl", url: "not a url" },
      { kind: "openUrl", url: `https://example.com/${"x".repeat(9000)}` },
      { kind: "undoTurn", project: "/w", turn: "../../turns/x" },
      { kind: "undoTurn", project: "/w", turn: "20261127T112233444Z-0a1b2c/../x" },
      { kind: "reviewTurn", project: "", turn: "20261127T112233444Z-0a1b2c" },
      { kind: "reviewTurn", turn: "20261127T112233444Z-0a1b2c" },
      [],
      null,
      "chord",
    ];
    for (const body of hostile) assert.equal(request(body), null, JSON.stringify(body)?.slice(0, 80));
    assert.equal(parseFromPanel({ type: "runCommand", command: "workbench.action.terminal.new" }), null);
    assert.equal(parseFromPanel(null), null);
  });

  it("maps every chord to a command from its table, and nothing else to any", () => {
    assert.equal(chordCommand("ctrl+shift+p"), "workbench.action.showCommands");
    assert.equal(chordCommand("cmd+p"), "workbench.action.quickOpen");
    assert.equal(chordCommand("ctrl+`"), "workbench.action.terminal.toggleTerminal");
    assert.equal(chordCommand("hasOwnProperty"), undefined);
    assert.ok(Object.isFrozen(CHORD_COMMANDS));
  });

  it("passes the chat only the chords of the table, and hands it the mention's fields, checked", () => {
    assert.deepEqual(parseToChat({ type: CHAT_MESSAGE.chords, chords: ["ctrl+shift+p", "ctrl+w", "__proto__", 3] }), {
      type: CHAT_MESSAGE.chords,
      chords: ["ctrl+shift+p"],
    });
    assert.deepEqual(parseToChat({ type: CHAT_MESSAGE.mention, path: "docs/my notes.md", startLine: 2, endLine: 3, text: "@x" }), {
      type: CHAT_MESSAGE.mention,
      path: "docs/my notes.md",
      startLine: 2,
      endLine: 3,
    });
    for (const hostile of [
      { path: "a.md", startLine: 3, endLine: 2 },
      { path: "a.md", startLine: 0, endLine: 2 },
      { path: "a\nb.md", startLine: 1, endLine: 1 },
      { path: "", startLine: 1, endLine: 1 },
      { path: "a.md", startLine: "1", endLine: 1 },
      { text: "@docs/my notes.md:2-3" },
    ])
      assert.equal(parseToChat({ type: CHAT_MESSAGE.mention, ...hostile }), null, JSON.stringify(hostile));
    assert.equal(parseToPanel({ type: "mention", text: "@docs/my notes.md:2-3" }), null, "a mention is fields, never text");
  });

  it("carries a walkthrough comment's text with the mention of a reply, bounded", () => {
    const reply = { path: "src/a.ts", startLine: 2, endLine: 4, inReplyTo: "I was unsure here." };
    assert.deepEqual(parseToPanel({ type: "mention", ...reply }), { type: "mention", ...reply });
    assert.deepEqual(parseToChat({ type: CHAT_MESSAGE.mention, ...reply }), { type: CHAT_MESSAGE.mention, ...reply });
    for (const inReplyTo of [3, null, "x".repeat(MAX_REPLY_QUOTE + 1)])
      assert.equal(parseToChat({ type: CHAT_MESSAGE.mention, ...reply, inReplyTo }), null, String(inReplyTo).slice(0, 20));
  });
});

describe("workspace paths the chat may open", () => {
  const root = tempDir("symposium-bridge-");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(workspace, "src", "main.rs"), "fn main() {}\n");
  fs.writeFileSync(path.join(root, "secret.txt"), "secret\n");
  const real = fs.realpathSync(workspace);

  it("opens files inside the workspace, absolute or relative", () => {
    assert.equal(insideFolders(path.join(workspace, "src", "main.rs"), [workspace]), path.join(real, "src", "main.rs"));
    assert.equal(insideFolders("src/main.rs", [workspace]), path.join(real, "src", "main.rs"));
  });

  it("refuses paths outside it: .., absolute elsewhere, the folder itself, a symlink pointing out, no folder", () => {
    assert.equal(insideFolders("../secret.txt", [workspace]), undefined);
    assert.equal(insideFolders(path.join(root, "secret.txt"), [workspace]), undefined);
    assert.equal(insideFolders("/etc/passwd", [workspace]), undefined);
    assert.equal(insideFolders(workspace, [workspace]), undefined);
    if (process.platform !== "win32") {
      fs.symlinkSync(path.join(root, "secret.txt"), path.join(workspace, "link.txt"));
      assert.equal(insideFolders("link.txt", [workspace]), undefined);
    }
    assert.equal(insideFolders("src/main.rs", []), undefined);
  });
});

describe("the selection's mention", () => {
  it("names the file and the lines, 1-based", () => {
    assert.deepEqual(selectionMention("src/main.rs", { startLine: 1, endLine: 2, endCharacter: 4 }), { path: "src/main.rs", startLine: 2, endLine: 3 });
    assert.deepEqual(selectionMention("src/main.rs", { startLine: 1, endLine: 1, endCharacter: 0 }), { path: "src/main.rs", startLine: 2, endLine: 2 });
    assert.deepEqual(
      selectionMention("src/main.rs", { startLine: 1, endLine: 3, endCharacter: 0 }),
      { path: "src/main.rs", startLine: 2, endLine: 3 },
      "a selection ending at a line's start leaves that line out",
    );
    assert.deepEqual(selectionMention("src\\lib.rs", { startLine: 0, endLine: 0, endCharacter: 3 }), { path: "src/lib.rs", startLine: 1, endLine: 1 });
  });

  it("is read by the chat as the file and lines it names, whatever the file's name (a space, a colon, quotes)", () => {
    for (const file of ["docs/my notes.md", "a:1.txt", '"quoted"', 'say "hi":2', "src\\my dir\\x.rs", "ends."]) {
      const mention = selectionMention(file, { startLine: 1, endLine: 2, endCharacter: 4 });
      // The chat page writes it as every mention is written (webchat/page/bridge.ts: selectionText).
      const text = mentionText(mention.path, mention.startLine, mention.endLine);
      const [read, ...rest] = parseMentions(`see ${text} please`);
      assert.deepEqual(rest, [], text);
      assert.deepEqual([read?.path, read?.start, read?.end], [file.replace(/\\/g, "/"), 2, 3], text);
    }
  });
});
