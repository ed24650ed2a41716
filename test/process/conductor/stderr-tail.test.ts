// An agent's stderr, as the conductor and the chat keep it for their error
// reports (acp-wire/src/stderr-tail.ts): whole lines, however the bytes
// arrive, and only the last few.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { StderrTail, followStderr } from "../../../acp-wire/src/index.js";
import { AgentSession } from "../../../webchat/src/agent-session.js";
import { ProjectFiles } from "../../../webchat/src/project-files.js";
import type { SessionInfo } from "../../../webchat/page/protocol.js";
import { eventually, tempDir } from "../../support/processes.js";

describe("stderr tail", () => {
  it("joins a line that arrives in two chunks, splits CRLF and LF, and skips blank lines", async () => {
    const stream = new PassThrough();
    const tail = new StderrTail(3, 100);
    const seen: string[] = [];
    const ended = followStderr(stream, tail, (line) => seen.push(line));
    stream.write("the agent could");
    await new Promise((resolve) => setImmediate(resolve));
    stream.write(" not start\r\n\nsecond é");
    stream.write(Buffer.from("€")); // a multi-byte character may straddle chunks too
    stream.end("\nlast without newline");
    await ended;
    assert.deepEqual(seen, ["the agent could not start", "", "second é€", "last without newline"]);
    assert.deepEqual(tail.lines(), ["the agent could not start", "second é€", "last without newline"]);
  });

  it("the chat reports a stderr line the agent wrote in two pieces as one line", async () => {
    const dir = tempDir();
    const agent = path.join(dir, "half-line-agent.js");
    fs.writeFileSync(agent, `process.stderr.write("cannot find"); setTimeout(() => { process.stderr.write(" the API key\\n"); process.exit(3); }, 150);`);
    let info: SessionInfo | undefined;
    const logged: string[] = [];
    const session = new AgentSession({
      command: { kind: "shell", line: quote([process.execPath, agent]) },
      projectDir: dir,
      env: process.env,
      files: await ProjectFiles.open(dir),
      log: (message) => logged.push(message),
      onEvent: () => {},
      onSession: (next) => (info = next),
    });
    await eventually(() => info?.state === "ended", 10_000, "the session to end");
    assert.deepEqual(session.info.ended?.stderrTail, ["cannot find the API key"]);
    assert.ok(logged.includes("agent: cannot find the API key"), logged.join("\n"));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
