// How symposium.agents reaches every conductor the extension starts (the
// chat's, the quick pick's, the language models'): one environment variable,
// so each lists the same catalogue (conductor-hooks/src/catalogue.ts); and
// symposium.mcpServers, the same way, so each agent gets the user's MCP
// servers (conductor-hooks/src/mcp-servers.ts). No `vscode` here: the panel's
// launch plan uses it too.

/** The conductor's name for it (conductor-hooks/src/catalogue.ts: CUSTOM_AGENTS_ENV, the same name). */
export const CUSTOM_AGENTS_ENV = "SYMPOSIUM_AGENTS";

/** Always set, "[]" for none: a value inherited from VS Code's own environment never stands in for the setting. */
export function customAgentsEnvironment(custom: readonly unknown[] = []): Record<string, string> {
  return { [CUSTOM_AGENTS_ENV]: JSON.stringify(custom) };
}

/** The conductor's name for symposium.mcpServers (conductor-hooks/src/mcp-servers.ts: MCP_SERVERS_ENV, the same name). */
export const MCP_SERVERS_ENV = "SYMPOSIUM_MCP_SERVERS";

/** Always set, "[]" for none, as for the custom agents: an inherited value never stands in for the setting. */
export function mcpServersEnvironment(servers: readonly unknown[] = []): Record<string, string> {
  return { [MCP_SERVERS_ENV]: JSON.stringify(servers) };
}
