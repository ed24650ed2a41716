// bench/report.ts: a full `npm run bench` rewrites only its table in docs/benchmarks.md;
// the sections written by hand around it (render times, floods, real Toad, P10 re-measured,
// the Rust reference conductor) stay, and the file it leaves passes Prettier's check.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import * as prettier from "prettier";
import { REPO } from "./figures/common.js";
import { BEGIN, END, mergeGenerated, renderFigures, writeReport } from "./report.js";

const FIGURE = { id: "P9", what: "new chat session", value: "+12.0 ms over the floor", goal: "≤ +30 ms over the floor", met: true, detail: "conductor 150 ms" };
const HAND_WRITTEN = ["## The editor's MCP server", "## Hostile Markdown render time", "## Chat server under floods"];

describe("docs/benchmarks.md as npm run bench writes it", () => {
  it("replaces only the text between the markers", () => {
    const existing = `# Benchmarks\n\nIntro by hand.\n\n${BEGIN}\n\nold table\n\n${END}\n\n## By hand\n\nkept | as is\n`;
    const merged = mergeGenerated(existing, "new table");
    assert.equal(merged, `# Benchmarks\n\nIntro by hand.\n\n${BEGIN}\n\nnew table\n\n${END}\n\n## By hand\n\nkept | as is\n`);
    assert.equal(mergeGenerated(merged, "new table"), merged, "a second run with the same figures changes nothing");
  });

  it("keeps the sections of a file written before the markers", () => {
    const legacy = "# Benchmarks\n\nLatest run: then.\n\n| id |\n|---|\n| P1 |\n\n## Floods\n\nby hand\n\n## Toad\n\nby hand too\n";
    const merged = mergeGenerated(legacy, "Latest run: now.");
    assert.equal(merged, `# Benchmarks\n\n${BEGIN}\n\nLatest run: now.\n\n${END}\n\n## Floods\n\nby hand\n\n## Toad\n\nby hand too\n`);
    assert.doesNotMatch(merged, /then/);
  });

  it("starts a missing file with a title and the markers", () => {
    assert.equal(mergeGenerated(undefined, "table"), `# Benchmarks\n\n${BEGIN}\n\ntable\n\n${END}\n`);
  });

  it("refuses a file with one marker only, saying what to restore", () => {
    assert.throws(() => mergeGenerated(`# Benchmarks\n\n${BEGIN}\n\ntable\n\n## By hand\n`, "new"), /one of the bench markers without the other: restore both/);
  });

  it("keeps every hand-written section of the repository's docs/benchmarks.md, formatted as lint wants", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "symposium-bench-doc-")), "benchmarks.md");
    const current = fs.readFileSync(path.join(REPO, "docs", "benchmarks.md"), "utf8");
    fs.writeFileSync(file, current);
    await writeReport(file, renderFigures([FIGURE], 200));
    const written = fs.readFileSync(file, "utf8");
    assert.match(written, /\| P9 +\| new chat session +\| \+12\.0 ms over the floor/);
    assert.doesNotMatch(written, /\| P1 +\|/, "the old table is gone");
    const after = (text: string): string => text.slice(text.indexOf(END));
    assert.equal(after(written), after(current), "everything after the generated part, byte for byte");
    for (const heading of HAND_WRITTEN) assert.ok(written.includes(`\n${heading}\n`), heading);
    assert.ok(
      await prettier.check(written, { ...(await prettier.resolveConfig(path.join(REPO, "docs", "benchmarks.md"))), filepath: file }),
      "Prettier-formatted",
    );
  });
});
