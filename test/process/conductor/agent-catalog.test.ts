// The chat server's agent list (webchat/src/agent-catalog.ts) against the real
// conductor: conversations starting together share one `registry list`, but
// a listing asked after the config changed outside the catalog (the first-run
// menu's agent records a choice itself) is a new one, never one that read the
// config before the change. The conductor's answer is held back
// (test/fixtures/held-conductor.ts) so that "before the change" is exact.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { runForOutput } from "../../../acp-wire/src/run-for-output.js";
import { AgentCatalog } from "../../../webchat/src/agent-catalog.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, tempDir } from "../../support/processes.js";

const HELD_CONDUCTOR = path.join(OUT_DIR, "test", "fixtures", "held-conductor.js");
const NAMED_AGENT = path.join(OUT_DIR, "test", "fixtures", "named-agent.js");

describe("the chat's agent list", () => {
  it("a listing asked after a config change is a new one, not the one that read the config before it", async () => {
    const home = tempDir("agent-catalog-home-");
    const release = path.join(home, "release");
    const env = {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      SYMPOSIUM_CONFIG: path.join(home, ".symposium", "config.jsonc"),
      SYMPOSIUM_AGENTS: JSON.stringify([
        { id: "agent-b", name: "Agent B", distribution: { local: { command: process.execPath, args: [NAMED_AGENT, "Agent B"] } } },
      ]),
      SYMPOSIUM_REGISTRY_URL: "",
      HELD_CONDUCTOR_RELEASE: release,
    };
    const catalog = new AgentCatalog(
      { program: process.execPath, args: [HELD_CONDUCTOR, CONDUCTOR_CLI], env: {}, configArgs: [] },
      { env, cwd: home, log: () => {} },
    );

    const before = catalog.forNewConversation();
    await eventually(() => fs.existsSync(`${release}.read`), 30_000, "the first listing's conductor having read the config");
    await runForOutput(process.execPath, [CONDUCTOR_CLI, "registry", "use", "agent-b"], { env, timeoutMs: 30_000 }); // the menu's choice
    assert.equal(catalog.forNewConversation(), before, "conversations starting together share the listing on its way");
    const after = catalog.afterConfigChange();
    assert.notEqual(after, before, "after a change, a new listing");
    fs.writeFileSync(release, "");
    assert.equal((await before).current, undefined, "the listing on its way read the config before the choice");
    assert.equal((await after).current, "agent-b");
  });
});
