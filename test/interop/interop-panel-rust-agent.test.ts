// The panel with symposium.acpAgentPath set to Symposium's published Rust
// conductor (symposium-acp-agent, which has no editor-context proxy of its
// own): the command line the extension plans (extension/src/panel/panel-launch.ts)
// run by the real built-in chat server, the Rust conductor running a recording
// agent from its own config. The chat works and exactly one editor-context
// block reaches the agent.

import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { planLaunch } from "../../extension/src/panel/panel-launch.js";
import { parseArgs } from "../../webchat/src/args.js";
import { REPO_DIR, eventually, tempDir } from "../support/processes.js";
import { SEED_STATE, writeStateFile } from "../support/state-files.js";
import { startChatServer } from "../support/webchat-server.js";
import { ChatSocket } from "./chat-socket.js";
import { INTEROP_AGENT } from "./fixtures.js";
import { SYMPOSIUM_AGENT, failIfMissing, rustPeerMissing, rustPeerPath, skipOutsideCi } from "./rust-peers.js";

const missing = rustPeerMissing(SYMPOSIUM_AGENT);

/**
 * A home for symposium-acp-agent: its global agent is the recording agent, and the project's
 * mods are its recommendations (sparkle-mcp), disabled: resolving them needs the network.
 * Paths as symposium-acp-agent 2.0.1's user_config.rs lays them out.
 */
function rustAgentHome(projectDir: string): string {
  const home = tempDir("symposium-rust-home-");
  const config = path.join(home, ".symposium", "config");
  const hash = crypto.createHash("sha256").update(projectDir).digest("hex").slice(0, 16);
  fs.mkdirSync(path.join(config, `${path.basename(projectDir)}-${hash}`), { recursive: true });
  fs.writeFileSync(path.join(config, "agent.json"), JSON.stringify({ agent: { local: { command: process.execPath, args: [INTEROP_AGENT] } } }));
  const sparkle = { source: { cargo: { crate: "sparkle-mcp", version: null, binary: null, args: ["--acp"] } }, enabled: false, when: {} };
  fs.writeFileSync(path.join(config, `${path.basename(projectDir)}-${hash}`, "config.json"), JSON.stringify({ mods: [sparkle] }));
  return home;
}

/** The program and arguments the extension plans for the built-in chat's conductor (no shell, nothing quoted). */
function plannedConductorCommand(projectDir: string, editorContextEnabled: boolean): string[] {
  const plan = planLaunch({
    config: { toadCommand: "builtin", toadPort: 0, acpAgentPath: rustPeerPath(SYMPOSIUM_AGENT), editorContextEnabled },
    runtime: { program: process.execPath, script: path.join(REPO_DIR, "dist", "symposium-panel-host.mjs"), env: {} },
    extensionPath: REPO_DIR,
    cwd: projectDir,
    noticeToadMissing: () => {},
  });
  const { command } = parseArgs(plan.frontend.args.slice(1));
  assert.equal(command.kind, "program");
  return command.kind === "program" ? [command.program, ...command.args] : [];
}

describe(`the panel with symposium.acpAgentPath = ${SYMPOSIUM_AGENT.crate} ${SYMPOSIUM_AGENT.version}`, { skip: skipOutsideCi(missing) }, () => {
  it("puts our proxy in front of it: the chat works and exactly one editor-context block reaches the agent", async (t) => {
    failIfMissing(missing);
    const projectDir = tempDir("symposium-project-");
    const agent = plannedConductorCommand(projectDir, true);
    assert.deepEqual(agent.slice(-3), ["--", rustPeerPath(SYMPOSIUM_AGENT), "run"]);
    assert.match(agent[1]!, /symposium-editor-context\.mjs$/);
    const server = await startChatServer({
      agent,
      projectDir,
      env: { HOME: rustAgentHome(projectDir), SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) },
    });
    t.after(() => server.stop());
    const page = new ChatSocket(server);
    t.after(() => page.close());
    await page.ready(30_000);
    await page.ask("hello", 30_000);
    assert.deepEqual(page.errors(), []);
    // symposium-acp-agent 2.0.1 may pass the agent's chunks on after the turn's end (docs/interop.md).
    await eventually(() => page.agentText().includes(`"received"`), 10_000, "the agent's report");
    const report = JSON.parse(page.agentText().slice(page.agentText().indexOf(`{"received"`))) as { received: Array<{ text?: string }> };
    const blocks = report.received.filter((block) => block.text?.startsWith("<editor-context>"));
    assert.equal(blocks.length, 1, "exactly one editor-context block");
    assert.match(report.received[0]!.text!, /^<editor-context>\nActive file: src\/main\.rs[\s\S]*fn main\(\) \{ \.\.\. \}/);
    assert.equal(report.received.at(-1)!.text, "hello");
  });

  it("runs it as it is when editor context is off", () => {
    failIfMissing(missing);
    assert.deepEqual(plannedConductorCommand(tempDir("symposium-project-"), false), [rustPeerPath(SYMPOSIUM_AGENT), "run"]);
  });
});
