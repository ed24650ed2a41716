#!/usr/bin/env node
// symposium-lm-tools: the synthetic MCP server (stdio) the language model
// provider lists in session/new's mcpServers. It offers the tools the VS Code
// consumer's request offered, and relays each call the agent makes to the
// extension over the private tool channel (tool-channel.ts); the consumer's
// tool result, in its next request, is this call's answer. Logs on stderr.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { packageVersion } from "../../acp-wire/src/version.js";
import type { LmTool } from "./messages.js";
import { TOOLS_SECRET_ENV, TOOLS_SOCKET_ENV, ToolChannelClient } from "./tool-channel.js";

/** MCP wants an object schema; a tool offered without one takes any object. */
function mcpTool(tool: LmTool): Tool {
  const schema = typeof tool.inputSchema === "object" && tool.inputSchema !== null ? (tool.inputSchema as Tool["inputSchema"]) : { type: "object" as const };
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

async function main(): Promise<void> {
  const address = process.env[TOOLS_SOCKET_ENV];
  const secret = process.env[TOOLS_SECRET_ENV];
  if (!address || !secret) {
    process.stderr.write(`symposium-lm-tools: ${TOOLS_SOCKET_ENV} and ${TOOLS_SECRET_ENV} must be set (the editor starts this server for its agent)\n`);
    process.exit(2);
  }
  const channel = await ToolChannelClient.connect(address, secret);
  const server = new Server({ name: "symposium-vscode-tools", version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await channel.listTools()).map(mcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await channel.callTool(request.params.name, request.params.arguments ?? {});
    return { content: [{ type: "text" as const, text: result.text }], isError: result.isError };
  });
  server.onclose = () => channel.close();
  await server.connect(new StdioServerTransport());
}

main().catch((error: Error) => {
  process.stderr.write(`symposium-lm-tools: ${error.message}\n`);
  process.exit(1);
});
