// The walkthrough format's parser (editor-tools/src/walkthrough-format.ts):
// the four blocks, the four kinds of location, the gitdiff specs, and the
// bounds and mistakes it refuses with a message that says what to write.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { WALKTHROUGH_LIMITS, WalkthroughFormatError, parseGitdiff, parseLocation, parseWalkthrough } from "../../../editor-tools/src/walkthrough-format.js";

const FENCE = "```";

function walkthrough(...parts: string[]): string {
  return parts.join("\n");
}

describe("the walkthrough format", () => {
  it("splits Markdown, a diagram, a comment, an action and a gitdiff into blocks, in order", () => {
    const parsed = parseWalkthrough(
      walkthrough(
        "# How the parser works",
        "",
        "Some *prose* with code:",
        `${FENCE}ts`,
        "const a = 1;",
        FENCE,
        `${FENCE}mermaid`,
        "flowchart LR",
        "  a --> b",
        FENCE,
        `${FENCE}comment`,
        "location: src/parser.ts:40-52",
        "I was unsure about this bound.",
        "",
        "Second paragraph.",
        FENCE,
        `${FENCE}action`,
        "button: Run the tests",
        "Please run the unit tests.",
        FENCE,
        `${FENCE}gitdiff`,
        "HEAD~2..HEAD",
        FENCE,
        "The end.",
      ),
    );
    assert.equal(parsed.title, "How the parser works");
    assert.deepEqual(
      parsed.blocks.map((block) => block.kind),
      ["markdown", "mermaid", "comment", "action", "gitdiff", "markdown"],
    );
    assert.match((parsed.blocks[0] as { text: string }).text, /```ts\nconst a = 1;\n```/, "a code fence stays in the Markdown");
    assert.deepEqual(parsed.blocks[1], { kind: "mermaid", text: "flowchart LR\n  a --> b" });
    assert.deepEqual(parsed.blocks[2], {
      kind: "comment",
      location: { kind: "lines", path: "src/parser.ts", startLine: 40, endLine: 52 },
      written: "src/parser.ts:40-52",
      text: "I was unsure about this bound.\n\nSecond paragraph.",
    });
    assert.deepEqual(parsed.blocks[3], { kind: "action", button: "Run the tests", message: "Please run the unit tests." });
    assert.deepEqual(parsed.blocks[4], { kind: "gitdiff", spec: { kind: "range", from: "HEAD~2", to: "HEAD" }, written: "HEAD~2..HEAD" });
  });

  it("reads each kind of location", () => {
    assert.deepEqual(parseLocation("src/a.ts:7"), { kind: "lines", path: "src/a.ts", startLine: 7, endLine: 7 });
    assert.deepEqual(parseLocation("C:\\repo\\a.ts:3-4"), { kind: "lines", path: "C:\\repo\\a.ts", startLine: 3, endLine: 4 });
    assert.deepEqual(parseLocation("symbol:parseConfig"), { kind: "symbol", name: "parseConfig" });
    assert.deepEqual(parseLocation("symbol:`Walker`"), { kind: "symbol", name: "Walker" });
    assert.deepEqual(parseLocation("search:src/a.ts:export function load"), { kind: "search", path: "src/a.ts", text: "export function load" });
    assert.deepEqual(parseLocation("search:C:\\repo\\a.ts:x: y"), { kind: "search", path: "C:\\repo\\a.ts", text: "x: y" });
  });

  it("refuses a location it cannot read, saying what to write", () => {
    assert.throws(() => parseLocation("src/a.ts"), /none of path:line, path:start-end, symbol:name, search:path:text/);
    assert.throws(() => parseLocation("src/a.ts:9-3"), /not a range/);
    assert.throws(() => parseLocation("src/a.ts:0"), /not a range/);
    assert.throws(() => parseLocation("symbol:"), /needs a name/);
    assert.throws(() => parseLocation("search:src/a.ts"), /search:<path>:<text>/);
    assert.throws(() => parseLocation(`src/${"a".repeat(WALKTHROUGH_LIMITS.maxLocationChars)}.ts:1`), /over the 1024 limit/);
  });

  it("reads a range, a commit and a turn, and refuses what could pass for an option or a shell word", () => {
    assert.deepEqual(parseGitdiff("abc123"), { kind: "commit", commit: "abc123" });
    assert.deepEqual(parseGitdiff("main...feature/x"), { kind: "range", from: "main", to: "feature/x" });
    assert.deepEqual(parseGitdiff("turn:20260101-abc"), { kind: "turn", turn: "20260101-abc" });
    assert.throws(() => parseGitdiff("--output=/tmp/x"), WalkthroughFormatError);
    assert.throws(() => parseGitdiff("HEAD; rm -rf /"), WalkthroughFormatError);
    assert.throws(() => parseGitdiff("HEAD..--exec=x"), WalkthroughFormatError);
    assert.throws(() => parseGitdiff("turn:../x"), /turn id/);
  });

  it("refuses a block without its header line, an empty one, and one never closed, naming the line", () => {
    assert.throws(() => parseWalkthrough(`intro\n${FENCE}comment\njust text\n${FENCE}`), /line 2: the ```comment block must start with a `location: …` line/);
    assert.throws(() => parseWalkthrough(`${FENCE}comment\nlocation: a.ts:1\n${FENCE}`), /has no text/);
    assert.throws(() => parseWalkthrough(`${FENCE}action\nno button\n${FENCE}`), /`button: …`/);
    assert.throws(() => parseWalkthrough(`${FENCE}mermaid\n\n${FENCE}`), /empty/);
    assert.throws(() => parseWalkthrough(`x\n\n${FENCE}mermaid\nflowchart LR`), /line 3: the ```mermaid block is never closed/);
  });

  it("an action without a message sends its label", () => {
    assert.deepEqual(parseWalkthrough(`${FENCE}action\nbutton: Continue\n${FENCE}`).blocks, [{ kind: "action", button: "Continue", message: "Continue" }]);
  });

  it("keeps its bounds: size, counts and lengths", () => {
    assert.throws(() => parseWalkthrough("x".repeat(WALKTHROUGH_LIMITS.maxMarkdownBytes + 1)), /over the 256 KiB limit/);
    const comments = Array.from({ length: WALKTHROUGH_LIMITS.maxComments + 1 }, (_, i) => `${FENCE}comment\nlocation: a.ts:${i + 1}\nc\n${FENCE}`);
    assert.throws(() => parseWalkthrough(comments.join("\n")), /101 comments, over the limit of 100/);
    assert.equal(parseWalkthrough(comments.slice(1).join("\n")).blocks.length, 100);
    const diagrams = Array.from({ length: WALKTHROUGH_LIMITS.maxDiagrams + 1 }, () => `${FENCE}mermaid\nflowchart LR\n${FENCE}`);
    assert.throws(() => parseWalkthrough(diagrams.join("\n")), /11 diagrams/);
    assert.throws(() => parseWalkthrough(`${FENCE}action\nbutton: ${"b".repeat(101)}\n${FENCE}`), /button label has 101 characters/);
    assert.throws(() => parseWalkthrough(`${FENCE}comment\nlocation: a.ts:1\n${"c".repeat(8193)}\n${FENCE}`), /over the 8192 limit/);
  });

  it("a walkthrough without a heading is titled Walkthrough; ~~~ fences work too", () => {
    const parsed = parseWalkthrough("~~~mermaid\nflowchart LR\n~~~\n");
    assert.equal(parsed.title, "Walkthrough");
    assert.deepEqual(parsed.blocks, [{ kind: "mermaid", text: "flowchart LR" }]);
  });
});
