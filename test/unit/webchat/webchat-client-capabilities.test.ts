// What the built-in chat advertises in initialize (webchat/src/client-capabilities.ts)
// against what it handles, and against the real adapters' initialize answers
// (test/interop/adapter-initialize.json, recorded from claude-agent-acp,
// codex-acp and gemini-cli --acp as test/interop/interop-agent-adapters.test.ts starts
// them, which checks the recording still matches them): every capability they
// offer is used by the chat or listed as not used yet; their sign-in methods
// show as the card shows them.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { AGENT_CAPABILITIES_NOT_USED, AGENT_CAPABILITIES_USED, CLIENT_CAPABILITIES } from "../../../webchat/src/client-capabilities.js";
import { authMethodInfo } from "../../../webchat/src/agent-session.js";
import { RECORDED_INITIALIZE as RECORDED, capabilityPaths } from "../../interop/adapters.js";

describe("the chat's client capabilities", () => {
  it("advertises exactly what it handles: fs, terminals, boolean options, terminal sign-in, elicitation in both modes, the first-run hand-over", () => {
    // Each one's handler and its test: fs → project-files.ts (webchat-fs-boundary), terminal → terminals.ts
    // (webchat-features), boolean options → pickers.ts (webchat-features), auth.terminal and the terminal-auth
    // hint → the sign-in card (webchat-features), elicitation → elicitation.ts (webchat-elicitation), a new
    // conversation for the first-run menu's choice → conversation.ts (webchat-agent-picker, webchat-conductor-in-process).
    assert.deepEqual(CLIENT_CAPABILITIES, {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      session: { configOptions: { boolean: {} } },
      auth: { terminal: true },
      elicitation: { form: {}, url: {} },
      _meta: { "terminal-auth": true, "symposium.dev/newConversationOnChoice": true },
    });
  });

  for (const [adapter, init] of Object.entries(RECORDED)) {
    it(`${adapter} (${init.agentInfo?.name}@${init.agentInfo?.version}): every capability it offers is used by the chat or listed as not yet`, () => {
      const offered = capabilityPaths(init.agentCapabilities);
      const known = new Set<string>([...AGENT_CAPABILITIES_USED, ...AGENT_CAPABILITIES_NOT_USED]);
      assert.deepEqual(
        offered.filter((capability) => !known.has(capability)),
        [],
        `new capabilities in ${adapter}'s answer: use them (agent-session.ts) or list them in AGENT_CAPABILITIES_NOT_USED`,
      );
      // What the chat does with it: reopens a kept conversation by session/load (all three offer it).
      assert.equal(init.agentCapabilities?.loadSession, true);
      assert.ok(init.agentInfo?.title, "its title names the agent in the header");
    });

    it(`${adapter}: its sign-in methods show on the card as a button or the command to run`, () => {
      const methods = init.authMethods ?? [];
      assert.ok(methods.length > 0);
      for (const method of methods) {
        const shown = authMethodInfo(method, "agent --acp");
        assert.equal(shown.id, method.id);
        const type = (method as { type?: string }).type;
        // ACP's terminal methods (and Claude Code's terminal-auth hint) show the command; the older env_var
        // methods (Codex's) the variables to set, never a button; the rest are buttons.
        if (type === "terminal") assert.match(shown.command ?? "", /auth login/, JSON.stringify(shown));
        else if (type === "env_var") {
          assert.equal(shown.command, undefined);
          const vars = (method as { vars?: Array<{ name: string }> }).vars ?? [];
          assert.deepEqual(
            shown.envVars,
            vars.map((each) => each.name),
            JSON.stringify(shown),
          );
          assert.ok(vars.length > 0);
        } else assert.equal(shown.envVars ?? shown.command, undefined, JSON.stringify(shown));
      }
    });
  }
});
