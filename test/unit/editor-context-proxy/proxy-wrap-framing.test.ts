// The chain frames every connection with acp-wire's LineSplitter, so the message limit holds for
// every line, the agent's included: a line over it is dropped and reported (the router tells its
// sender), one at the limit passes, whether or not the line shares a chunk with others.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { LineSplitter } from "../../../acp-wire/src/index.js";

const LIMIT = 200;

/** A notification line of exactly `bytes` bytes. */
function lineOf(bytes: number, mark: string): string {
  const empty = `{"jsonrpc":"2.0","method":"x/${mark}","params":{"pad":""}}`;
  return empty.replace('"pad":""', `"pad":"${"a".repeat(bytes - empty.length)}"`);
}

/** The lines and the oversized reports a splitter gives for `chunks`. */
function split(chunks: string[]): { lines: string[]; framed: Array<string | null>; oversized: number[] } {
  const result = { lines: [] as string[], framed: [] as Array<string | null>, oversized: [] as number[] };
  const splitter = new LineSplitter(LIMIT, {
    onLine: (line, framed) => {
      result.lines.push(line.toString());
      result.framed.push(framed?.toString() ?? null);
    },
    onOversizedLine: (bytes) => result.oversized.push(bytes),
  });
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.end();
  return result;
}

describe("the chain's framing of every connection", () => {
  it("drops a line over the limit even inside one chunk, reports its size, and passes the lines around it", () => {
    const [under, over, at] = [lineOf(150, "under"), lineOf(250, "over"), lineOf(LIMIT, "at")];
    const { lines, framed, oversized } = split([`${under}\n${over}\n${at}\n`]);
    assert.deepEqual(lines, [under, at], "the line over the limit stays behind; the others pass as they came");
    assert.deepEqual(framed, [`${under}\n`, `${at}\n`], "each with its newline, ready to pass on in one piece");
    assert.deepEqual(oversized, [250], "the size of what was dropped");
  });

  it("does the same for lines split across chunks, never buffering the long one whole", () => {
    const [under, over, at] = [lineOf(150, "under"), lineOf(250, "over"), lineOf(LIMIT, "at")];
    const text = `${under}\n${over}\n${at}\n`;
    const chunks = text.match(/[\s\S]{1,37}/g)!;
    const { lines, oversized } = split(chunks);
    assert.deepEqual(lines, [under, at]);
    assert.deepEqual(oversized, [250]);
  });
});
