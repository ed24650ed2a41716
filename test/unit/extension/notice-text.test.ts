// What an agent's or a project's text becomes in a VS Code message (extension/src/notice-text.ts): never a link
// VS Code's notification parser finds, nor an autolink or a codicon, never a second line or reversed text, never
// longer than asked; a file's real name still reads as itself.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { NOTICE_TEXT_MAX, noticeList, noticeText } from "../../../extension/src/notice-text.js";

/** VS Code's own parser of links in a notification's message (vs/base/common/linkedText.ts, 1.99 and 1.139). */
const VSCODE_NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

const HOSTILE = [
  "[Accept](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D)",
  '[x](https://evil.example/ "Accept")',
  "[x](file:///etc/passwd)",
  "a.txt [Accept](command:x) [Reject](command:y)",
  "`[Accept](command:x)`",
  "[nested [Accept](command:x)](command:y)",
  "[Accept]\n(command:x)",
  "[Accept](command:x\u200b)",
];

describe("noticeText: an agent's or a project's text fit for a VS Code message", () => {
  it("never leaves a link VS Code's notification parser finds: markdown links, command: and file: targets", () => {
    for (const text of HOSTILE) {
      const shown = noticeText(text);
      assert.equal(shown.match(VSCODE_NOTIFICATION_LINK), null, `${JSON.stringify(text)} → ${shown}`);
      assert.doesNotMatch(shown, /\][([]/, "no label touching a target");
      // Also inside a sentence of ours.
      assert.equal(`The agent wants to change ${shown}: ${noticeText("](command:x)")}`.match(VSCODE_NOTIFICATION_LINK), null);
    }
  });

  it("keeps what the text says: a file's brackets, backticks and parentheses as they are", () => {
    assert.equal(noticeText("pages/[id].tsx"), "pages/[id].tsx");
    assert.equal(noticeText("[Accept](command:x)"), "[Accept] (command:x)");
    assert.equal(noticeText("`npm test` failed"), "`npm test` failed");
    assert.equal(noticeText("a_b*c (1).txt"), "a_b*c (1).txt");
  });

  it("leaves no autolink and no codicon", () => {
    assert.equal(noticeText("<command:workbench.action.terminal.new>"), "‹command:workbench.action.terminal.new›");
    assert.equal(noticeText("$(check) Accepted $(sync~spin)"), "$ (check) Accepted $ (sync~spin)");
  });

  it("puts everything on one line: line breaks, control, format and bidirectional characters as one space", () => {
    assert.equal(noticeText("a.txt\n\nAccept the change?\r\n"), "a.txt Accept the change?");
    assert.equal(noticeText("x\u0000y\u0007z\u001b[2J\u007f\u0085w"), "x y z [2J w");
    assert.equal(noticeText("invoice\u202etxt.exe"), "invoice txt.exe", "no right-to-left override");
    assert.equal(noticeText("a\u200bb\u2028c\u2029d\ufeffe"), "a b c d e");
    assert.equal(noticeText("  \t\n "), "");
  });

  it("is at most as long as asked, cut with an ellipsis between whole characters", () => {
    assert.equal(noticeText("x".repeat(10_000_000)).length, NOTICE_TEXT_MAX);
    assert.ok(noticeText("x".repeat(10_000_000)).endsWith("…"));
    assert.equal(noticeText("abcdef", 4), "abc…");
    assert.equal(noticeText("abcd", 4), "abcd");
    const emoji = noticeText("😀".repeat(10), 4);
    assert.equal(emoji, "😀😀😀…", "a surrogate pair is never split");
  });
});

describe("noticeList: many names in one message", () => {
  it("names at most the first few, each through noticeText, and counts the rest", () => {
    const files = Array.from({ length: 1000 }, (_, index) => `[f${index}](command:x)`);
    const shown = noticeList(files);
    assert.match(shown, /^\[f0\] \(command:x\), \[f1\] /);
    assert.match(shown, /, and 990 more$/);
    assert.equal(shown.match(VSCODE_NOTIFICATION_LINK), null);
    assert.equal(noticeList(["a\nb", "c"], { separator: "\n" }), "a b\nc");
    assert.equal(noticeList(["a", "b", "c"], { shown: 2 }), "a, b, and 1 more");
    assert.equal(noticeList([]), "");
  });
});
