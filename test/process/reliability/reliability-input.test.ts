// Reliability under hostile state files (docs/proxy.md, docs/conductor.md:
// "Guarantees"): any valid state file yields a bounded block, and any state
// file costs a few ms, in wrap mode and in the conductor.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { SHAPES, STATE_ENV, chainWithFaultAgent, closeClient as close, promptThrough as prompt, rawClient } from "../../support/reliability.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

const BLOCK_LIMIT = 40_000;
const manySelections = (count: number, text = "x") => Array.from({ length: count }, (_, index) => ({ text, startLine: index + 1, endLine: index + 1 }));

const HOSTILE_STATES: Array<[string, unknown]> = [
  ["31,000 one-character selections", { ...SEED_STATE, selection: null, selections: manySelections(31_000) }],
  ["20,000 selections", { ...SEED_STATE, selection: null, selections: manySelections(20_000, "ab") }],
  ["a 1 MB file path", { ...SEED_STATE, activeFile: `/project/${"p".repeat(1_000_000)}.rs` }],
  ["a 1 MB language id", { ...SEED_STATE, languageId: "l".repeat(1_000_000) }],
  ["30,000 workspace folders", { ...SEED_STATE, workspaceFolders: Array.from({ length: 30_000 }, (_, index) => `/folder-${index}`) }],
  ["a 1 MB workspace folder", { ...SEED_STATE, workspaceFolders: [`/${"f".repeat(1_000_000)}`] }],
  [
    "a non-file document with 1 MB uri and label",
    { ...SEED_STATE, activeFile: null, document: { uri: `untitled:${"u".repeat(1_000_000)}`, scheme: "untitled", label: "b".repeat(1_000_000) } },
  ],
  [
    "30,000 diagnostics",
    { ...SEED_STATE, diagnostics: Array.from({ length: 30_000 }, (_, index) => ({ line: 10, severity: "error", source: "ts", message: `problem ${index}` })) },
  ],
];

for (const shape of SHAPES) {
  describe(`${shape}: any valid state file`, () => {
    for (const [name, state] of HOSTILE_STATES) {
      it(`survives ${name}, with a block under ${BLOCK_LIMIT} characters`, async () => {
        const client = rawClient(chainWithFaultAgent(shape, { [STATE_ENV]: writeStateFile(state) }));
        const { blocks } = await prompt(client, 1);
        assert.equal(blocks.length, 2, "one block, then the prompt");
        assert.match(blocks[0]!.text, /^<editor-context>\n[\s\S]*<\/editor-context>$/);
        assert.ok(blocks[0]!.text.length < BLOCK_LIMIT, `block of ${blocks[0]!.text.length} characters`);
        assert.equal(await close(client), 0, client.proc.stderr());
      });
    }

    it("reads a 4 MiB file of nested brackets, and goes on without context", async () => {
      const hostile = writeStateFile(`{"activeFile":"/a","x":${"[".repeat(2 * 1024 * 1024 - 100)}${"]".repeat(10)}}`);
      const client = rawClient(chainWithFaultAgent(shape, { [STATE_ENV]: hostile }, shape === "conductor" ? 2 : 0));
      await prompt(client, 1);
      fs.utimesSync(hostile, new Date(), new Date()); // a new version of the file: read again, not from the cache
      const { blocks } = await prompt(client, 2);
      assert.equal(blocks.length, 1, "no block from a broken file");
      assert.equal(await close(client), 0);
    });
  });
}
