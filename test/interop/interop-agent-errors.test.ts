// What a client is told when the agent behind our conductor answers the way
// the published adapters do logged out (docs/interop.md): a -32000
// "Authentication required" names the agent, what to do and its login methods;
// a bare -32603 "Internal error" gets the agent's stderr. Real processes: the
// bundled conductor, the recording agent, the SDK's client app.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { quote } from "shell-quote";
import { openSession, testClient } from "../support/acp-client.js";
import { CONDUCTOR_CLI, startNode, streamTo } from "../support/processes.js";
import { SEED_STATE, writeStateFile } from "../support/state-files.js";
import { INTEROP_AGENT } from "./fixtures.js";

async function promptError(text: string): Promise<{ message: string; code: number; data: { details?: string; authMethods?: unknown[]; agent?: string } }> {
  const conductor = startNode(CONDUCTOR_CLI, ["agent", quote([process.execPath, INTEROP_AGENT])], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) });
  try {
    const client = testClient(streamTo(conductor.child));
    return await client.run(async (agent) => {
      const sessionId = await openSession(agent);
      return agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }).then(
        () => assert.fail("the prompt was answered"),
        (error: { message: string; code: number; data: never }) => error,
      );
    });
  } finally {
    conductor.child.kill();
  }
}

describe("an agent's errors, through our conductor", () => {
  it('"Authentication required" says which agent, what to do, and its login methods', async () => {
    const error = await promptError("needs-login");
    assert.equal(error.code, -32000);
    assert.equal(
      error.message,
      "Authentication required: agent 'interop-agent' is not logged in. To fix: log in with one of: Log in; then start a new chat. Its login methods: Log in.",
    );
    assert.equal(error.data.agent, "interop-agent");
    assert.deepEqual(error.data.authMethods, [{ id: "interop-login", name: "Log in", description: "A test login", vars: [] }]);
    assert.match(error.data.details!, /^agent 'interop-agent' answered with: Authentication required\.\nCommand: .*interop-agent\.js\n/);
  });

  it('a bare "Internal error" gets what the agent wrote on stderr', async () => {
    const error = await promptError("internal-error");
    assert.equal(error.code, -32603);
    assert.equal(error.message, "Internal error: agent 'interop-agent' wrote on stderr: interop-agent: cannot reach the model (a line only stderr carries)");
  });
});
