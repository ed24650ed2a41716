// The one catalogue of agents (conductor-hooks/src/catalogue.ts) and its one
// recorder (record-choice.ts), in process: what every way of choosing lists
// (built-ins, the config's agents, symposium.agents, the registry's shipped
// snapshot, each id once), how a typed or named choice is found, and what a
// choice writes. No network: the registry is the shipped snapshot.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { catalog, configuredAgentId, CUSTOM_AGENTS_ENV, customAgents, findChoice } from "../../../conductor-hooks/src/catalogue.js";
import { KNOWN_AGENTS } from "../../../conductor-hooks/src/agent-choices.js";
import { loadConfig } from "../../../conductor-hooks/src/config.js";
import { chooseAgent, recordFirstChoice } from "../../../conductor-hooks/src/record-choice.js";
import type { RegistryContext } from "../../../conductor-hooks/src/registry.js";
import { tempDir } from "../../support/processes.js";

const MINE = { id: "my-recorder", name: "My recording agent", distribution: { local: { command: "/opt/recorder", args: ["--acp"] } } };
const POSIX = process.platform !== "win32";

/** A context as the conductor builds it: the config at `configPath`, symposium.agents from the environment, the snapshot as the registry. */
function contextFor(configPath: string, env: NodeJS.ProcessEnv = { [CUSTOM_AGENTS_ENV]: JSON.stringify([MINE]) }): RegistryContext {
  const fullEnv = { SYMPOSIUM_REGISTRY_URL: "", ...env };
  return {
    configPath,
    config: loadConfig(configPath),
    extraAgents: customAgents(undefined, fullEnv),
    selfCommand: (args) => [path.join(path.dirname(configPath), "bin", "symposium-conductor"), ...args],
    log: () => {},
    env: fullEnv,
    registryCache: { fetched: null },
  };
}

describe("the agent catalogue", () => {
  it("lists symposium.agents, the built-ins and the registry's agents, each id once, a built-in's registry entries folded into it", async () => {
    const entries = await catalog(contextFor(path.join(tempDir(), "config.jsonc")));
    const ids = entries.map(({ agent }) => agent.id);
    assert.deepEqual(ids.slice(0, 6), ["my-recorder", "claude", "gemini", "codex", "kiro", "demo"]);
    assert.deepEqual(
      entries.slice(0, 6).map(({ source }) => source),
      ["custom", "builtin", "builtin", "builtin", "builtin", "builtin"],
    );
    assert.ok(entries.slice(6).length > 0 && entries.slice(6).every(({ source }) => source === "registry"), "then the registry's");
    assert.equal(new Set(ids).size, ids.length, "each id once");
    const registryIds = new Set(entries.filter(({ source }) => source === "registry").map(({ agent }) => agent.id));
    for (const foldedId of KNOWN_AGENTS.flatMap((agent) => agent.registryIds ?? [])) assert.ok(!registryIds.has(foldedId), `${foldedId} is a built-in's`);
  });

  it("puts the config's own agents first, and marks the one the config names", async () => {
    const configPath = path.join(tempDir(), "config.jsonc");
    const own = { id: "team-agent", name: "Team agent", distribution: { local: { command: "team-agent" } } };
    fs.writeFileSync(configPath, JSON.stringify({ agent: { id: "my-recorder" }, agents: [own] }));
    const context = contextFor(configPath);
    const entries = await catalog(context);
    assert.deepEqual(
      entries.slice(0, 2).map(({ agent, source }) => `${source}:${agent.id}`),
      ["config:team-agent", "custom:my-recorder"],
    );
    assert.equal(configuredAgentId(context.config, entries), "my-recorder");
  });

  it("reads symposium.agents from --agents, else $SYMPOSIUM_AGENTS, and names where a bad one came from", () => {
    const other = { ...MINE, id: "other" };
    assert.deepEqual(
      customAgents(JSON.stringify([other]), { [CUSTOM_AGENTS_ENV]: JSON.stringify([MINE]) }).map((agent) => agent.id),
      ["other"],
    );
    assert.deepEqual(
      customAgents(undefined, { [CUSTOM_AGENTS_ENV]: JSON.stringify([MINE]) }).map((agent) => agent.id),
      ["my-recorder"],
    );
    assert.deepEqual(customAgents(undefined, {}), []);
    assert.throws(() => customAgents(undefined, { [CUSTOM_AGENTS_ENV]: "{not json" }), /^AgentFormatError: \$SYMPOSIUM_AGENTS: not JSON/);
    assert.throws(() => customAgents(undefined, { [CUSTOM_AGENTS_ENV]: '[{"id":"x"}]' }), /\$SYMPOSIUM_AGENTS\[0\]/);
  });

  it("finds a typed choice: a built-in's number or name, else any agent's id or name; a question is no choice", async () => {
    const entries = await catalog(contextFor(path.join(tempDir(), "config.jsonc")));
    const found = (typed: string): string | null => findChoice(typed, entries)?.agent.id ?? null;
    assert.equal(found("5"), "demo");
    assert.equal(found(" 1. "), "claude");
    assert.equal(found("Claude Code"), "claude");
    assert.equal(found("my-recorder"), "my-recorder");
    assert.equal(found("My recording agent"), "my-recorder");
    const registryId = entries.find(({ source }) => source === "registry")!.agent.id;
    assert.equal(found(registryId), registryId);
    assert.equal(found("hello, can you help me with my code?"), null);
    assert.equal(found("9"), null);
    assert.equal(found("  "), null);
  });
});

describe("recording a choice", () => {
  it("writes the catalogue's whole entry as the config's agent, keeping the file's comments and other settings", async () => {
    const configPath = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(configPath, '{\n  // mine\n  "agent": "old-agent --acp",\n  "proxies": [{ "name": "sparkle", "enabled": false }]\n}\n');
    const chosen = await chooseAgent("my-recorder", contextFor(configPath));
    assert.equal(chosen.id, "my-recorder");
    const text = fs.readFileSync(configPath, "utf8");
    assert.match(text, /\/\/ mine/);
    const config = loadConfig(configPath)!;
    assert.deepEqual(config.agentConfig, { ...MINE, _source: "custom" });
    assert.deepEqual(config.proxies, [{ name: "sparkle", enabled: false }]);
    await assert.rejects(chooseAgent("no-such-agent", contextFor(configPath)), /no agent with the id 'no-such-agent'/);
  });

  it("keeps this conductor's own agent (the demo) as the launcher's command line, which any conductor can start", async () => {
    const configPath = path.join(tempDir(), "home", ".symposium", "config.jsonc");
    const context = contextFor(configPath);
    const demo = findChoice("demo", await catalog(context))!;
    assert.deepEqual(demo.agent.distribution, { symposium: { subcommand: "demo-agent" } }, "the catalogue names the subcommand");
    assert.equal(recordFirstChoice(demo.agent, context), true);
    const config = loadConfig(configPath)!;
    assert.deepEqual(config.agentConfig?.distribution, { local: { command: context.selfCommand([])[0], args: ["demo-agent"] } });
    assert.equal(configuredAgentId(config, await catalog(context)), "demo", "listed as the current agent");
    assert.equal(config.proxies.length, 3, "a first file lists the Rust conductor's proxies, disabled");
    if (POSIX) {
      assert.equal(fs.statSync(configPath).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(configPath)).mode & 0o777, 0o700);
    }
  });

  it("never writes a first choice over a file that appeared meanwhile", async () => {
    const configPath = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(configPath, '{ "agent": "theirs" }');
    const [entry] = await catalog(contextFor(configPath));
    assert.equal(recordFirstChoice(entry!.agent, contextFor(configPath)), false);
    assert.equal(fs.readFileSync(configPath, "utf8"), '{ "agent": "theirs" }');
  });
});
