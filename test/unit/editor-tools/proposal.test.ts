// propose_edit's arguments and new text (editor-tools/src/proposal.ts): the
// checks both ends make, and the window's one pass over the text, bounded by
// edits × the text's length whatever the proposal carries (issue 44, item 3).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { LIMITS } from "../../../editor-tools/src/protocol.js";
import { ProposalError, checkProposal, checkScanBound, proposedText } from "../../../editor-tools/src/proposal.js";

describe("a proposal's text", () => {
  const current = "alpha\nbeta\ngamma beta\n";

  it("replaces each edit's oldText, found exactly once in the current text; newText replaces the whole", () => {
    assert.equal(
      proposedText(current, {
        path: "f",
        edits: [
          { oldText: "gamma beta", newText: "g" },
          { oldText: "alpha", newText: "ALPHA" },
        ],
      }),
      "ALPHA\nbeta\ng\n",
    );
    assert.equal(proposedText(current, { path: "f", newText: "" }), "");
  });

  it("refuses an oldText that is missing or not unique, and says which edit", () => {
    assert.throws(() => proposedText(current, { path: "f", edits: [{ oldText: "delta", newText: "x" }] }), /edit 1: oldText does not occur/);
    assert.throws(
      () =>
        proposedText(current, {
          path: "f",
          edits: [
            { oldText: "alpha", newText: "a" },
            { oldText: "beta", newText: "b" },
          ],
        }),
      /edit 2: oldText occurs more than once/,
    );
  });

  it("finds every oldText in the file as it is, never in another edit's result (no edit rebuilds the text)", () => {
    // Applied one after the other, the second edit would find the first one's "b" and give "c".
    assert.throws(
      () =>
        proposedText("a", {
          path: "f",
          edits: [
            { oldText: "a", newText: "b" },
            { oldText: "b", newText: "c" },
          ],
        }),
      /edit 2: oldText does not occur in the file/,
    );
    assert.throws(
      () =>
        proposedText("one two three", {
          path: "f",
          edits: [
            { oldText: "one two", newText: "1 2" },
            { oldText: "two three", newText: "2 3" },
          ],
        }),
      /edit 2: oldText overlaps another edit's oldText; merge the two edits into one/,
    );
  });

  it("1,000 edits on a 10 MB text are refused before any scan, saying how many edits that file takes", () => {
    const text = "a".repeat(10 * 1024 * 1024 - 1) + "X";
    const proposal = { path: "f", edits: Array.from({ length: 1000 }, () => ({ oldText: "X", newText: "X" })) };
    assert.doesNotThrow(() => checkProposal(proposal), "the MCP server lets 1,000 small edits through: only the window knows the file's size");
    assert.throws(
      () => proposedText(text, proposal),
      (error: unknown) =>
        error instanceof ProposalError &&
        error.message ===
          `1000 edits on a file of ${text.length} characters is more work than one proposal may ask (edits × characters at most ${LIMITS.maxEditScanChars}); ` +
            `send at most 3 edits per propose_edit, or the whole new content as newText`,
    );
    const start = "S" + text.slice(1);
    const edited = proposedText(start, {
      path: "f",
      edits: [
        { oldText: "X", newText: "Y" },
        { oldText: "Sa", newText: "sa" },
      ],
    });
    assert.equal(edited, "s" + text.slice(1, -1) + "Y", "within the bound, a 10 MB file takes its edits");
  });

  it("the bound is edits × the text's length, whatever the edits carry", () => {
    assert.doesNotThrow(() => checkScanBound(1000, LIMITS.maxEditScanChars / 1000));
    assert.throws(() => checkScanBound(1000, 1_000_000), /1000 edits on a file of 1000000 characters .* at most 33 edits per propose_edit/);
    assert.throws(() => checkScanBound(2, LIMITS.maxEditScanChars), /at most 1 edits per propose_edit/);
    assert.doesNotThrow(() => checkScanBound(1, LIMITS.maxEditScanChars));
    // A small file takes the schema's 1,000 edits in one proposal, each applied once.
    const lines = Array.from({ length: 1000 }, (_, index) => `line ${index};`);
    const edits = lines.map((line, index) => ({ oldText: line, newText: `LINE ${index};` }));
    assert.equal(proposedText(lines.join("\n"), { path: "f", edits }), lines.map((_, index) => `LINE ${index};`).join("\n"));
  });
});

describe("a proposal's arguments (checked by the MCP server and again by the window)", () => {
  it("newText or edits, a path, the size, the edits' count", () => {
    for (const bad of [
      { path: "f" },
      { path: "f", newText: "a", edits: [] },
      { path: "f", edits: [] },
      { path: "f", edits: [{ oldText: "", newText: "x" }] },
      { newText: "a" },
      null,
      "text",
    ]) {
      assert.throws(() => checkProposal(bad), ProposalError, JSON.stringify(bad));
    }
    assert.throws(() => checkProposal({ path: "f", newText: "é".repeat(LIMITS.maxProposalBytes / 2 + 1) }), /4194306 bytes, over the 4194304-byte limit/);
    assert.deepEqual(checkProposal({ path: "f", newText: "ok" }), { path: "f", newText: "ok" });
    const tooMany = { path: "f", edits: Array.from({ length: LIMITS.maxEdits + 1 }, (_, index) => ({ oldText: `x${index}`, newText: "y" })) };
    assert.throws(() => checkProposal(tooMany), /The proposal has 1001 edits, over the limit of 1000; propose fewer, larger edits, or newText/);
  });
});
