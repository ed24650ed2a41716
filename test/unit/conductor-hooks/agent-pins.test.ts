// The catalogue's agents run the adapter versions the project tests
// (conductor-hooks/src/agent-choices.ts ADAPTER_PINS): the same versions
// scripts/install-agent-adapters.sh installs and test/interop/adapters.ts
// starts; never an unpinned `npx -y pkg`, which runs whatever npx's cache
// holds (0.49.0 of claude-agent-acp, fifty releases old, was seen). A config
// an older menu wrote (unpinned) runs the pin; a version the user wrote runs
// as written.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { ADAPTER_PINS, KNOWN_AGENTS } from "../../../conductor-hooks/src/agent-choices.js";
import { builtinAgents, configuredAgent, configuredAgentId, type CatalogEntry } from "../../../conductor-hooks/src/catalogue.js";
import { loadConfig } from "../../../conductor-hooks/src/config.js";
import type { RegistryContext } from "../../../conductor-hooks/src/registry.js";
import { ADAPTERS } from "../../interop/adapters.js";
import { REPO_DIR, tempDir } from "../../support/processes.js";

/** `"pkg@version"` words of the install script's ADAPTERS=( … ) list. */
function installScriptPins(): Map<string, string> {
  const script = fs.readFileSync(path.join(REPO_DIR, "scripts", "install-agent-adapters.sh"), "utf8");
  const list = /^ADAPTERS=\(([\s\S]*?)^\)/m.exec(script);
  assert.ok(list, "the install script has its ADAPTERS=( … ) list");
  const pins = new Map<string, string>();
  for (const [, name, version] of list[1]!.matchAll(/"(@?[^"@\s]+)@([^"\s]+)"/g)) pins.set(name!, version!);
  return pins;
}

function context(configPath: string): RegistryContext {
  return {
    configPath,
    config: loadConfig(configPath),
    extraAgents: [],
    selfCommand: (args) => ["symposium-conductor", ...args],
    log: () => {},
    env: { SYMPOSIUM_REGISTRY_URL: "" },
    registryCache: { fetched: null },
  };
}

describe("the agents' pinned versions", () => {
  it("the catalogue pins the versions the install script installs and the interop tests start", () => {
    const script = installScriptPins();
    for (const [shortName, pin] of Object.entries(ADAPTER_PINS)) {
      assert.equal(script.get(pin.package), pin.version, `${pin.package}: scripts/install-agent-adapters.sh installs the catalogue's version`);
      const adapter = ADAPTERS.find((each) => each.shortName === shortName);
      assert.deepEqual(
        adapter && { package: adapter.pkg, version: adapter.version },
        pin,
        `${shortName}: test/interop/adapters.ts starts the catalogue's version`,
      );
    }
  });

  it("every built-in that runs an npm package names its version on the command line", () => {
    for (const agent of builtinAgents()) {
      const known = KNOWN_AGENTS.find((each) => each.shortName === agent.id);
      const local = agent.distribution.local;
      if (known?.pinned === undefined || local === undefined) continue;
      assert.equal(local.command, "npx");
      assert.ok(local.args?.includes(`${known.pinned.package}@${known.pinned.version}`), `${agent.id}: ${local.args?.join(" ")}`);
    }
    assert.deepEqual(
      builtinAgents()
        .flatMap(({ distribution }) => distribution.local?.args ?? [])
        .filter((word) => /^@[^@]+$/.test(word)),
      [],
      "no package without its version",
    );
  });

  it("a built-in an older menu recorded unpinned runs at the pin; a version the user wrote runs as written", async () => {
    const configPath = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(configPath, JSON.stringify({ agent: "my-agent" }));
    const older = { id: "claude", name: "Claude Code", distribution: { local: { command: "npx", args: ["-y", "@agentclientprotocol/claude-agent-acp"] } } };
    const upgraded = await configuredAgent(older, context(configPath));
    assert.deepEqual(upgraded.distribution.local?.args, ["-y", "@agentclientprotocol/claude-agent-acp@0.101.0"]);
    const olderGemini = { id: "gemini", distribution: { local: { command: "npx", args: ["-y", "--", "@google/gemini-cli@latest", "--acp"] } } };
    assert.deepEqual((await configuredAgent(olderGemini, context(configPath))).distribution.local?.args, ["-y", "--", "@google/gemini-cli@0.61.0", "--acp"]);
    const chosen = { ...older, distribution: { local: { command: "npx", args: ["-y", "@agentclientprotocol/claude-agent-acp@0.105.0"] } } };
    assert.deepEqual((await configuredAgent(chosen, context(configPath))).distribution.local?.args, ["-y", "@agentclientprotocol/claude-agent-acp@0.105.0"]);
    const newer = { id: "claude", distribution: { npx: { package: "@agentclientprotocol/claude-agent-acp@latest" } } };
    assert.deepEqual((await configuredAgent(newer, context(configPath))).distribution, newer.distribution);
  });

  it("an older menu's unpinned command line still counts as the built-in it chose", () => {
    const entries: CatalogEntry[] = builtinAgents().map((agent) => ({ agent, source: "builtin" }));
    const configPath = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(configPath, JSON.stringify({ agent: "npx -y @agentclientprotocol/claude-agent-acp" }));
    assert.equal(configuredAgentId(loadConfig(configPath), entries), "claude");
    fs.writeFileSync(configPath, JSON.stringify({ agent: KNOWN_AGENTS.find((each) => each.shortName === "codex")!.command }));
    assert.equal(configuredAgentId(loadConfig(configPath), entries), "codex");
  });
});
