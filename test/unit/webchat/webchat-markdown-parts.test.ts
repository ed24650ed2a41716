// A long settled stretch of a streamed answer is rendered in parts no longer
// than the page's Markdown cap where the text has cuts (webchat/page/
// markdown-blocks.ts, findSettledPart): the parts render as the whole does.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { marked } from "marked";
import { findSettledPart, startOfText } from "../../../webchat/page/markdown-blocks.js";
import { markdownChunks } from "../../fixtures/markdown-answer.js";

const render = (markdown: string) => marked.parse(markdown, { async: false, gfm: true, breaks: false });

/** The parts findSettledPart cuts `text` into, arrived all at once, then the unsettled rest. */
function parts(text: string, maxPart: number): string[] {
  const cut: string[] = [];
  let state = startOfText();
  for (;;) {
    const next = findSettledPart(text, state, maxPart);
    if (next.end === state.end) return [...cut, text.slice(state.end)];
    cut.push(text.slice(state.end, next.end));
    state = next;
  }
}

describe("settled parts under a size cap", () => {
  const answer = markdownChunks(600).join("");

  it("cut a long answer into parts of at most the cap, rendering as the whole does", () => {
    const cutInto = parts(answer, 1024);
    assert.ok(cutInto.length > answer.length / 1024, `${cutInto.length} parts`);
    assert.ok(
      cutInto.every((part) => part.length <= 1024),
      `longest part ${Math.max(...cutInto.map((part) => part.length))}`,
    );
    assert.equal(cutInto.join(""), answer);
    assert.equal(cutInto.map(render).join(""), render(answer));
  });

  it("take a block longer than the cap whole, and cut again after it", () => {
    const fence = `\`\`\`\n${"x".repeat(5000)}\n\`\`\`\n\n`;
    const text = `intro\n\n${fence}after\n\nend`;
    const cutInto = parts(text, 1024);
    assert.deepEqual(cutInto, ["intro\n\n", fence, "after\n\n", "end"]);
  });

  it("take a line longer than many windows whole, up to the blank line after it", () => {
    const text = `${"word ".repeat(2_000_000)}\n\nnext`;
    const next = findSettledPart(text, startOfText(), 32 * 1024);
    assert.equal(next.end, text.length - 4);
  });
});
