// Which interpreter runs Toad's `toad` script (panel-host/src/toad-guard.ts):
// the host runs Toad's entry point under its caller checks in that
// interpreter, and must not mistake anything else for a Python script.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { guardedCommand, pythonOf, TOAD_GUARD_PY } from "../../../panel-host/src/toad-guard.js";
import { tempDir } from "../../support/processes.js";

function script(text: string): string {
  const file = path.join(tempDir("symposium-shebang-"), "toad");
  fs.writeFileSync(file, text, { mode: 0o755 });
  return file;
}

describe("Toad's interpreter, from its script", () => {
  it("reads pip's and uv's first line, `env python3`, and the '''exec' form for long paths", () => {
    assert.deepEqual(pythonOf(script("#!/home/u/.local/share/uv/tools/batrachian-toad/bin/python\nimport sys\n")), {
      program: "/home/u/.local/share/uv/tools/batrachian-toad/bin/python",
      args: [],
    });
    assert.deepEqual(pythonOf(script("#!/usr/bin/python3.14 -s\n")), { program: "/usr/bin/python3.14", args: ["-s"] });
    assert.deepEqual(pythonOf(script("#!/usr/bin/env python3\n")), { program: "/usr/bin/env", args: ["python3"] });
    assert.deepEqual(pythonOf(script(`#!/bin/sh\n'''exec' '/a path/with spaces/bin/python' "$0" "$@"\n' '''\nimport sys\n`)), {
      program: "/a path/with spaces/bin/python",
      args: [],
    });
  });

  it("takes nothing else for Python: a shell wrapper, a Node script, a binary, a missing file", () => {
    assert.equal(pythonOf(script('#!/bin/sh\nexec toad "$@"\n')), undefined);
    assert.equal(pythonOf(script("#!/usr/bin/env node\n")), undefined);
    assert.equal(pythonOf(script("\x7fELF\x02\x01\x01")), undefined);
    assert.equal(pythonOf("/no/such/toad"), undefined);
  });

  it("runs the launcher, then the script with Toad's own arguments", () => {
    const toad = script("#!/opt/toad/bin/python\n");
    assert.deepEqual(guardedCommand({ program: toad, args: ["acp", "x run", "--serve"] }), {
      program: "/opt/toad/bin/python",
      args: ["-P", "-c", TOAD_GUARD_PY, toad, "acp", "x run", "--serve"],
    });
    assert.equal(guardedCommand({ program: "toad", args: [] }), undefined, "a bare name is resolved by the extension, never guessed here");
    assert.equal(guardedCommand({ program: process.execPath, args: ["webchat.mjs"] }), undefined, "the built-in chat checks callers itself");
  });
});
