// What a user reads when an agent fails before its first session
// (conductor-hooks/src/agent-failure.ts, agent-errors.ts): a known cause in
// plain words first (Claude Code as root, Codex without bubblewrap, a download
// that cannot reach the network), the known agent's own remedy (install it,
// sign in, its tested version), each piece of advice once, no conductor flags
// or config file in the chat (where the agent was chosen in a picker), and
// command lines without needless escapes.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { StderrTail, type WireMessage } from "../../../acp-wire/src/index.js";
import { AGENT_PICKER_ENV } from "../../../conductor-hooks/src/agent-choices.js";
import { agentErrorsComponent } from "../../../conductor-hooks/src/agent-errors.js";
import { describeAgentFailure } from "../../../conductor-hooks/src/agent-failure.js";
import { joinCommandLine } from "../../../conductor-hooks/src/config.js";

const IN_THE_CHAT = { [AGENT_PICKER_ENV]: "1" };
const ROOT_ERROR = {
  code: -32603,
  message: "Internal error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
  data: { startupFailureReason: "bypass_root" },
};
interface Explained {
  id: unknown;
  error: { code: number; message: string; data: { details: string } };
}

/** The component in front of an agent named `title` by its initialize answer: each answer in, what goes on out. */
function inFrontOf(title: string, command: string[]) {
  const stderrTail = new StderrTail();
  const component = agentErrorsComponent({ name: "agent", command, stderrTail }, IN_THE_CHAT, () => {});
  component.reviseAnswer!({ jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentInfo: { name: "adapter", title }, authMethods: [] } });
  const answer = (message: WireMessage): Explained | null => component.reviseAnswer!(message) as Explained | null;
  return { stderrTail, answer };
}

describe("an agent's failure before its first session, in words", () => {
  it("Claude Code as root: what happened and what to do (a normal user, or IS_SANDBOX=1 where root is intended)", () => {
    const agent = inFrontOf("Claude Code", ["npx", "-y", "@agentclientprotocol/claude-agent-acp@0.101.0"]);
    const explained = agent.answer({ jsonrpc: "2.0", id: 1, error: ROOT_ERROR })!;
    assert.equal(explained.error.code, -32603);
    assert.match(
      explained.error.message,
      /^Internal error: --dangerously-skip-permissions cannot be used with root\/sudo privileges for security reasons: Claude Code does not start as root/,
    );
    const details = explained.error.data.details;
    assert.match(
      details,
      /What to try:\n- run VS Code \(or the chat\) as a normal user, not root\n- or, in a container or sandbox where running as root is intended, set IS_SANDBOX=1 for the agent/,
    );
    assert.match(details, /Command: npx -y @agentclientprotocol\/claude-agent-acp@0\.101\.0\n/, "the command as typed, no `\\@`");
    assert.doesNotMatch(details, /--trace|SYMPOSIUM_LOG/, "no conductor flags in the chat");
    assert.doesNotMatch(details, /not signed in/, "the cause is known: no guess at a sign-in");
  });

  it("after a session opened, the agent's errors pass as they came", () => {
    const agent = inFrontOf("Claude Code", ["claude-agent-acp"]);
    agent.answer({ jsonrpc: "2.0", id: 1, result: { sessionId: "s-1" } });
    assert.equal(agent.answer({ jsonrpc: "2.0", id: 2, error: ROOT_ERROR }), null);
  });

  it("a known agent that fails to start for a reason not known: how to sign it in, and its tested version when the command has none", () => {
    const agent = inFrontOf("Claude Code", ["npx", "-y", "@agentclientprotocol/claude-agent-acp"]);
    agent.stderrTail.push("Error: Claude Code process exited with code 1");
    const explained = agent.answer({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } })!;
    const details = explained.error.data.details;
    assert.match(details, /- if Claude Code is not signed in: run `claude` in a terminal and log in with \/login/);
    assert.match(
      details,
      /runs @agentclientprotocol\/claude-agent-acp with no version, so npx may run an old copy from its cache: choose Claude Code again in the agent picker to run 0\.101\.0/,
    );
  });

  it("an agent no one knows, failing with a worded error and nothing on stderr: passes as it came", () => {
    const agent = inFrontOf("My agent", ["my-agent"]);
    assert.equal(agent.answer({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } }), null);
  });

  it("Codex without bubblewrap: the cause and how to install it", () => {
    const report = describeAgentFailure({
      name: "agent",
      role: "component",
      command: ["npx", "-y", "@zed-industries/codex-acp@0.16.0"],
      end: { kind: "exit", code: 1, signal: null },
      stderrTail: ["Error: bubblewrap is unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was found"],
      env: IN_THE_CHAT,
    });
    assert.match(
      report.message,
      /^component 'agent' Codex's sandbox on Linux needs bubblewrap \(bwrap\), which is not installed here \(it exited with code 1\)$/,
    );
    assert.match(report.data.details, /What to try:\n- install bubblewrap \(Debian, Ubuntu: sudo apt-get install bubblewrap/);
  });

  it("an agent that cannot download: the reason leads, not 'exited with code 2'", () => {
    const report = describeAgentFailure({
      name: "OpenCode",
      command: ["npx", "-y", "opencode-ai@1.1.53", "acp"],
      end: { kind: "exit", code: 2, signal: null },
      stderrTail: [
        "npm error code ENOTFOUND",
        "npm error network request to https://registry.npmjs.org/opencode-ai failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org",
        "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log",
      ],
      configPath: "/home/user/.symposium/config.jsonc",
      env: IN_THE_CHAT,
    });
    assert.equal(report.message, "agent 'OpenCode' could not download what it needs (no network, or a proxy in the way) (it exited with code 2)");
    assert.match(report.data.details, /What to try:\n- check that this machine reaches the npm registry/);
  });

  it("Kiro CLI not installed: how to install it, once, without conductor flags or a config file the user never wrote", () => {
    const error = Object.assign(new Error("spawn kiro-cli-chat ENOENT"), { code: "ENOENT" });
    const report = describeAgentFailure({
      name: "agent",
      role: "component",
      command: ["kiro-cli-chat", "acp"],
      end: { kind: "spawn-error", error },
      stderrTail: [],
      configPath: "/home/user/.symposium/config.jsonc",
      env: IN_THE_CHAT,
    });
    const details = report.data.details;
    assert.match(
      details,
      /What to try:\n- install Kiro CLI \(its installer is on kiro\.dev\), so that kiro-cli-chat is on the PATH, then run `kiro-cli login`/,
    );
    assert.equal(details.match(/install Kiro CLI/g)?.length, 1);
    assert.doesNotMatch(details, /--trace|SYMPOSIUM_LOG|config\.jsonc/);
    assert.match(details, /choose another agent with the agent picker/);
  });

  it("outside a chat (a terminal), the conductor's flags and the config file are still named", () => {
    const report = describeAgentFailure({
      name: "agent",
      role: "component",
      command: ["my-agent"],
      end: { kind: "exit", code: 3, signal: null },
      stderrTail: [],
      configPath: "/home/user/.symposium/config.jsonc",
      env: {},
    });
    assert.match(report.data.details, /\("agent" in \/home\/user\/\.symposium\/config\.jsonc\)/);
    assert.match(report.data.details, /--trace FILE/);
  });

  it("command lines quote only what a shell needs quoted", () => {
    assert.equal(joinCommandLine(["npx", "-y", "@scope/pkg@1.2.3", "--flag=a,b:c"], "linux"), "npx -y @scope/pkg@1.2.3 --flag=a,b:c");
    assert.equal(joinCommandLine(["echo", "a b", "it's", "$HOME", ""], "linux"), `echo 'a b' 'it'\\''s' '$HOME' ''`);
  });
});
