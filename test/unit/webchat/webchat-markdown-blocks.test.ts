// Where the chat page may cut a streaming Markdown answer (webchat/page/
// markdown-blocks.ts): the settled parts rendered one by one, then the rest,
// must give the same HTML as the whole text rendered at once.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { marked } from "marked";
import { findSettled, startOfText } from "../../../webchat/page/markdown-blocks.js";

const render = (markdown: string) => marked.parse(markdown, { async: false, gfm: true, breaks: false });

/** Streams `text` in chunks of `size` characters, cutting as the page does; returns the parts. */
function streamed(text: string, size: number): string[] {
  const parts: string[] = [];
  let state = startOfText();
  for (let at = size; at < text.length + size; at += size) {
    const prefix = text.slice(0, at);
    const next = findSettled(prefix, state);
    if (next.end > state.end) parts.push(prefix.slice(state.end, next.end));
    state = next;
  }
  return [...parts, text.slice(state.end)];
}

const ANSWER = [
  "# Plan\n\nFirst a paragraph with **bold** and `code`,\nwrapped over two lines.\n\n",
  "```ts\nconst a = 1;\n\n\nconst b = 2; // blank lines inside the fence\n```\n\n",
  "- one\n- two\n  continued\n\n  still item two (indented after a blank line)\n\n",
  "> quoted\n> more\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n",
  "~~~\n```\nnot a fence end\n~~~\n\n    indented code\n\n    more indented code\n\nLast words.",
].join("");

describe("streamed Markdown cuts", () => {
  for (const size of [1, 3, 7, 40, 1000]) {
    it(`render the same HTML as the whole text (chunks of ${size})`, () => {
      const parts = streamed(ANSWER, size);
      assert.ok(parts.length > 4 || size >= ANSWER.length, `expected cuts, got ${parts.length} parts`);
      assert.equal(parts.map(render).join(""), render(ANSWER));
    });
  }

  it("never cuts inside a fenced code block, before an indented line, or without a blank line", () => {
    assert.equal(findSettled("```\na\n\nb\n", startOfText()).end, 0);
    assert.equal(findSettled("- item\n\n  more\n", startOfText()).end, 0);
    assert.equal(findSettled("line one\nline two\n", startOfText()).end, 0);
    const fenced = findSettled("```\na\n\n", startOfText());
    assert.deepEqual(fenced.fence, { char: "`", length: 3 });
  });

  it("cuts where the next block has begun, even on a line still streaming", () => {
    assert.equal(findSettled("para\n\nNe", startOfText()).end, 6);
    assert.equal(findSettled("para\n\n", startOfText()).end, 0, "nothing after the blank line yet");
    const first = findSettled("a\n\nb\n", startOfText());
    assert.equal(findSettled("a\n\nb\n\nc", first).end, 6, "scanning resumes where it stopped");
  });
});
