// An agent that exits at start with a stack trace (Gemini CLI in a folder it
// cannot read): the conductor's one-line message carries the line
// that says what went wrong, not the trace's last frame; the whole tail stays
// in the error's data, and the log ends with that one line (a chat keeping only
// the log's last lines shows the cause). The conductor runs a real Node agent that throws.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { testClient } from "../../support/acp-client.js";
import { CONDUCTOR_CLI, eventually, startNode, streamTo } from "../../support/processes.js";

/** Throws from a few calls deep, as an adapter's CLI does at start: Node prints the message, the frames, then its version. */
const THROWS_AT_START = `function loadConfig() { require("fs").realpathSync("/no/such/project/folder"); }
function main() { loadConfig(); }
main();`;

describe("an agent that exits at start with a stack trace", () => {
  it("the error's message is the line that says why, and its data keeps the whole tail", async (t) => {
    const conductor = startNode(CONDUCTOR_CLI, ["agent", quote([process.execPath, "-e", THROWS_AT_START])]);
    t.after(() => conductor.child.kill());
    const client = testClient(streamTo(conductor.child));
    const error = await client.run((agent) =>
      agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).then(
        () => assert.fail("initialize answered by an agent that exited"),
        (failure: { message: string; data?: { stderrTail?: string[]; details?: string } }) => failure,
      ),
    );
    assert.match(error.message, /^component 'agent' exited with code 1: Error: ENOENT: no such file or directory, lstat '\/no'$/);
    const tail = error.data?.stderrTail ?? [];
    assert.ok(
      tail.some((line) => /^\s+at main \(/.test(line)),
      `the frames stay in the data: ${tail.join("\n")}`,
    );
    // The log, and a client that keeps only its last lines (the built-in chat), end with the cause.
    assert.match(error.data?.details ?? "", /\nIn one line: component 'agent' exited with code 1: Error: ENOENT[^\n]*$/);
    await eventually(() => conductor.stderr().trimEnd().endsWith(`In one line: ${error.message}`), 5_000, "the log's last line");
    conductor.child.stdin!.end();
    await conductor.exited;
  });
});
