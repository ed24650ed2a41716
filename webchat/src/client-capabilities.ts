// What the chat tells an agent it can do in `initialize` (docs/webchat.md:
// what the chat advertises): exactly what agent-session.ts handles, no more.
// test/unit/webchat/webchat-client-capabilities.test.ts holds each against its handler and
// against the real adapters' recorded initialize answers.

import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { NEW_CONVERSATION_ON_CHOICE } from "../../conductor-hooks/src/setup-handoff.js";

/** The `_meta` key under which agents (Claude Code's adapter) name a sign-in command for a terminal. */
export const TERMINAL_AUTH_META = "terminal-auth";

export const CLIENT_CAPABILITIES = {
  // fs/read_text_file and fs/write_text_file, confined to the project (project-files.ts).
  fs: { readTextFile: true, writeTextFile: true },
  // terminal/create, output, wait_for_exit, kill, release (terminals.ts).
  terminal: true,
  // Boolean config options, shown as toggles (pickers.ts).
  session: { configOptions: { boolean: {} } },
  // Terminal sign-in methods: the sign-in card names the exact command to run (signin.ts).
  auth: { terminal: true },
  // elicitation/create in both modes and elicitation/complete (elicitation.ts).
  elicitation: { form: {}, url: {} },
  // The older spelling of terminal sign-in, still read by Claude Code's adapter; and the first-run
  // menu's choice opens a new conversation with the chosen agent (conversation.ts, setup-handoff.ts).
  _meta: { [TERMINAL_AUTH_META]: true, [NEW_CONVERSATION_ON_CHOICE]: true },
} as const satisfies ClientCapabilities;

/**
 * The agent capabilities the chat acts on (agent-session.ts): a reopened
 * conversation is loaded or resumed, mentions travel as `resource` blocks,
 * pasted and dropped images as `image` blocks, the session is closed at the
 * end, a multi-root workspace's other folders reach the agent, the agent's
 * own sessions are listed in History, the header offers Sign out, and a
 * session the agent forks opens in a new tab (Fork, Edit and resend).
 */
export const AGENT_CAPABILITIES_USED = [
  "loadSession",
  "sessionCapabilities.resume",
  "promptCapabilities.embeddedContext",
  "promptCapabilities.image",
  "sessionCapabilities.close",
  "sessionCapabilities.additionalDirectories",
  "sessionCapabilities.list",
  "auth.logout",
  "sessionCapabilities.fork",
] as const;

/**
 * What the real adapters offer that the chat does not use yet (to
 * come), so a new capability in an adapter's answer is a decision, not a
 * surprise (test/unit/webchat/webchat-client-capabilities.test.ts).
 */
export const AGENT_CAPABILITIES_NOT_USED = [
  "promptCapabilities.audio",
  "mcpCapabilities.http",
  "mcpCapabilities.sse",
  "mcpCapabilities.acp",
  "providers",
  "sessionCapabilities.delete",
  "sessionCapabilities.systemPrompt",
] as const;
