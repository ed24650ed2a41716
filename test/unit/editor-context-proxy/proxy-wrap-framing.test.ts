// Wrap mode frames the agent's output with acp-wire's LineSplitter (in runs), so the message
// limit holds for every agent line, as it does in the conductor: a line over it is dropped and
// the agent told, one at the limit passes, whether or not the line shares a chunk with others.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { EditorContextInjector, runWrapped } from "../../../editor-context-proxy/src/index.js";
import { eventually, tempDir } from "../../support/processes.js";

const LIMIT = 200;

/** A notification line of exactly `bytes` bytes. */
function lineOf(bytes: number, mark: string): string {
  const empty = `{"jsonrpc":"2.0","method":"x/${mark}","params":{"pad":""}}`;
  return empty.replace('"pad":""', `"pad":"${"a".repeat(bytes - empty.length)}"`);
}

/** An agent that logs what it receives and, on its first line, writes `lines` in one write. */
function agentScript(log: string, lines: string[]): string {
  return `const fs = require("fs"); let sent = false;
process.stdin.on("data", (chunk) => {
  fs.appendFileSync(${JSON.stringify(log)}, chunk);
  if (!sent) { sent = true; process.stdout.write(${JSON.stringify(lines.join("\n") + "\n")}); }
});
process.stdin.on("end", () => process.exit(0));`;
}

describe("wrap mode's framing of the agent's output", () => {
  it("drops an agent line over the limit even inside one chunk, tells the agent, and passes the lines around it", async () => {
    const log = path.join(tempDir(), "agent-received.ndjson");
    const [under, over, at] = [lineOf(150, "under"), lineOf(250, "over"), lineOf(LIMIT, "at")];
    const input = new PassThrough();
    const output = new PassThrough();
    let received = "";
    output.on("data", (chunk: Buffer) => (received += chunk.toString()));
    const done = runWrapped({
      command: process.execPath,
      args: ["-e", agentScript(log, [under, over, at])],
      injector: new EditorContextInjector({ stateFile: "/nonexistent/state.json" }),
      input,
      output,
      log: () => {},
      maxMessageBytes: LIMIT,
    });
    try {
      input.write(`{"jsonrpc":"2.0","method":"x/start","params":{}}\n`);
      await eventually(() => received.split("\n").length > 2, 5_000, "the agent's lines at the client");
      await eventually(() => fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("-32600"), 5_000, "the agent told");
    } finally {
      input.end();
      await done;
    }
    assert.deepEqual(received.split("\n").filter(Boolean), [under, at], "the line over the limit stays behind; the others pass as they came");
    const told = fs.readFileSync(log, "utf8").trim().split("\n").at(-1)!;
    assert.match(told, /"code":-32600/);
    assert.match(told, /250 bytes/, "the agent is told the size of what was dropped");
  });
});
