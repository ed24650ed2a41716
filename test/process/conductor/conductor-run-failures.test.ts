// `symposium-conductor run` when the agent cannot start, dies, or answers
// only "Internal error": the JSON-RPC error says which agent, how it ended,
// what it wrote on stderr and what to try, through the SDK's client app and
// acpx; the log says the same.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { describeAgentFailure, StderrTail } from "../../../conductor-hooks/src/index.js";
import { acpx, converse, escapeRegExp, failingKiro, kiroOnPath, node, POSIX, QUESTION, run } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, tempDir } from "../../support/processes.js";

describe("an agent that cannot start says why", () => {
  it(
    "the chosen agent exits at start: the error names it, its exit status and its stderr, and says what to try",
    { skip: !POSIX && "the stand-in agent is a POSIX shell script on PATH" },
    async () => {
      const config = path.join(tempDir(), "config.jsonc");
      const proc = run(config, [], failingKiro());
      const { turns } = await converse(proc, [QUESTION, "kiro", "again?"]);
      const failed = turns[1]!;
      assert.match(failed.reply, /^Saved: Kiro CLI is your agent/);
      assert.equal(failed.error?.code, -32603);
      assert.equal(failed.error?.message, "agent 'Kiro CLI' exited with code 3: kiro: you are not logged in; run kiro-cli login");
      const data = failed.error?.data as { component: string; stderrTail: string[]; details: string };
      assert.equal(data.component, "Kiro CLI");
      assert.deepEqual(data.stderrTail, ["kiro: starting", "kiro: you are not logged in; run kiro-cli login"]);
      assert.match(
        data.details,
        /Command: kiro-cli-chat acp\nLast lines of its stderr:\n {2}kiro: starting\n[\s\S]*What to try:\n- if Kiro CLI is not signed in: run `kiro-cli login` in a terminal\n- run the command \("agent" in .*config\.jsonc\)[\s\S]*--trace FILE[\s\S]*demo agent: .*demo-agent/,
      );
      // The choice is undone (test/process/conductor/conductor-first-run.test.ts): the next prompt meets the menu again.
      assert.equal(turns[2]!.error, undefined);
      assert.match(turns[2]!.reply, /Which agent would you like to use\?/);
      const log = proc.stderr();
      for (const line of data.details.split("\n")) assert.ok(log.includes(`${line}\n`), `the log has the same text, here: ${line}`);
    },
  );

  it(
    'an agent that answers only "Internal error" gets what it wrote on stderr meanwhile added to its error',
    { skip: !POSIX && "the stand-in agent is a POSIX shell script on PATH" },
    async () => {
      // What Claude Code's adapter does when its CLI refuses to run as root: the cause is only on stderr.
      const script = path.join(tempDir(), "refusing-agent.js");
      fs.writeFileSync(
        script,
        `
      const readline = require("node:readline");
      const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
      readline.createInterface({ input: process.stdin }).on("line", (line) => {
        const { id, method } = JSON.parse(line);
        if (method === "initialize") return send({ id, result: { protocolVersion: 1, agentCapabilities: {} } });
        process.stderr.write("--dangerously-skip-permissions cannot be used with root/sudo privileges\\n");
        send({ id, error: { code: -32603, message: "Internal error", data: { details: "Query closed before response received" } } });
      });`,
      );
      const proc = run(path.join(tempDir(), "config.jsonc"), [], kiroOnPath(`exec "${node}" "${script}"`));
      const { turns } = await converse(proc, [QUESTION, "kiro"]);
      const error = turns[1]!.error!;
      assert.equal(error.code, -32603);
      assert.equal(error.message, "Internal error: agent 'Kiro CLI' wrote on stderr: --dangerously-skip-permissions cannot be used with root/sudo privileges");
      const data = error.data as { agentError: unknown; details: string };
      assert.deepEqual(data.agentError, { message: "Internal error", data: { details: "Query closed before response received" } });
      assert.match(
        data.details,
        /^agent 'Kiro CLI' answered session\/new with: Internal error \(Query closed before response received\)\.\n[\s\S]*Meanwhile it wrote on stderr:\n {2}--dangerously[\s\S]*What to try:/,
      );
      assert.ok(proc.stderr().includes(data.details.split("\n")[0]!), "the log says the same");
    },
  );

  it(
    "the configured agent exits at start, under acpx: the error acpx gets carries its stderr",
    { skip: !POSIX && "the stand-in agent is a POSIX shell script on PATH" },
    async () => {
      const cwd = tempDir();
      const config = path.join(cwd, "config.jsonc");
      const env = { HOME: cwd, SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "kiro", ...failingKiro() };
      const failure = await acpx(["--agent", `${node} ${CONDUCTOR_CLI} run`, "--format", "json", "exec", QUESTION], { cwd, env }).then(
        (stdout) => assert.fail(`acpx succeeded: ${stdout}`),
        (error: { code?: number; stdout: string }) => error,
      );
      assert.notEqual(failure.code, 0);
      const reply = failure.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { error?: { code: number; message: string; data: { stderrTail: string[]; details: string } } })
        .find((message) => message.error !== undefined);
      assert.equal(reply?.error?.code, -32603);
      assert.equal(reply?.error?.message, "component 'agent' exited with code 3: kiro: you are not logged in; run kiro-cli login");
      assert.deepEqual(reply?.error?.data.stderrTail, ["kiro: starting", "kiro: you are not logged in; run kiro-cli login"]);
      assert.match(
        reply.error.data.details,
        new RegExp(`What to try:\\n- if Kiro CLI is not signed in: .*\\n- run the command \\("agent" in ${escapeRegExp(config)}\\)`),
      );
    },
  );

  it("describes a program that is not there, and keeps only the last stderr lines", () => {
    const missing = describeAgentFailure({
      name: "agent",
      role: "component",
      command: ["no-such-agent", "acp"],
      end: { kind: "spawn-error", error: Object.assign(new Error("spawn no-such-agent ENOENT"), { code: "ENOENT" }) },
      stderrTail: [],
    });
    assert.equal(missing.message, "component 'agent' could not start: cannot start 'no-such-agent': no such program (is it installed and on PATH?)");
    assert.match(missing.data.details, /It wrote nothing to stderr\.\nWhat to try:\n- run the command by hand/);
    const tail = new StderrTail(3, 10);
    for (const line of ["1", "2", "3", "4", "a very long line indeed"]) tail.push(line);
    assert.deepEqual(tail.lines(), ["3", "4", "a very lon…"]);
  });
});
