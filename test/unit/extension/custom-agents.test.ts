// symposium.agents reaches every conductor the extension starts through one
// variable, named as the conductor reads it, so the quick pick, the chat's
// header and the first-run menu list the same agents; and the chat's launch
// plan gives the built-in chat its conductor as a program and its arguments.

import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { CUSTOM_AGENTS_ENV as CONDUCTOR_NAME, customAgents } from "../../../conductor-hooks/src/catalogue.js";
import { CUSTOM_AGENTS_ENV, customAgentsEnvironment } from "../../../extension/src/agents/custom-agents.js";
import { conductorEnvironment, planLaunch } from "../../../extension/src/panel/panel-launch.js";
import { parseArgs } from "../../../webchat/src/args.js";
import { tempDir } from "../../support/processes.js";

const MINE = { id: "my-recorder", name: "My recording agent", distribution: { local: { command: "/opt/recorder" } } };
const BASE = { toadCommand: "builtin", toadPort: 0, acpAgentPath: "", editorContextEnabled: true };

describe("symposium.agents for the conductor", () => {
  it("is the variable the conductor reads, always set, and read back as the same agents", () => {
    assert.equal(CUSTOM_AGENTS_ENV, CONDUCTOR_NAME);
    assert.deepEqual(customAgentsEnvironment(), { [CUSTOM_AGENTS_ENV]: "[]" }, "none is said, so an inherited value never stands in");
    const env = conductorEnvironment({ ...BASE, customAgents: [MINE] });
    assert.deepEqual(
      customAgents(undefined, env).map((agent) => agent.id),
      ["my-recorder"],
    );
  });

  it("the built-in chat gets the conductor as a program and its arguments, even from a folder with spaces and quotes", () => {
    const extensionPath = path.join(tempDir(), `VS Code's "extensions"`, "symposium 0.1.0");
    const plan = planLaunch({
      config: BASE,
      runtime: { program: "/opt/VS Code/code", script: path.join(extensionPath, "dist", "symposium-panel-host.mjs"), env: { ELECTRON_RUN_AS_NODE: "1" } },
      extensionPath,
      cwd: "/work/my project",
      noticeToadMissing: () => {},
    });
    assert.equal(plan.kind, "builtin");
    assert.deepEqual(parseArgs(plan.frontend.args.slice(1), "/").command, {
      kind: "program",
      program: "/opt/VS Code/code",
      args: [path.join(extensionPath, "dist", "symposium-conductor.mjs"), "run"],
      env: { ELECTRON_RUN_AS_NODE: "1" },
    });
  });
});
