#!/usr/bin/env node
// symposium-lm-tools: the synthetic MCP server (stdio) the language model
// provider lists in session/new's mcpServers. It offers the tools the VS Code
// consumer's request offered, and relays each call the agent makes to the
// extension over the session's private channel (tool-channel.ts), with the
// editor tools' client and stdio transport; the consumer's tool result, in its
// next request, is this call's answer. Logs on stderr.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { debugLogger, describeError, onStopSignal, packageVersion, runCli, stderrLogger } from "../../acp-wire/src/index.js";
import { ChannelClient } from "../../editor-tools/src/channel-client.js";
import { LineTransport } from "../../editor-tools/src/stdio-transport.js";
import type { LmTool } from "./messages.js";
import { TOOLS_SECRET_ENV, TOOLS_SOCKET_ENV, callTool, listTools } from "./tool-channel.js";

/** MCP wants an object schema; a tool offered without one takes any object. */
function mcpTool(tool: LmTool): Tool {
  const schema = typeof tool.inputSchema === "object" && tool.inputSchema !== null ? (tool.inputSchema as Tool["inputSchema"]) : { type: "object" as const };
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

const NAME = "symposium-lm-tools";

/** A call that fails (no editor, a timeout, a refusal) is the tool's error, said to the agent. */
async function relayCall(channel: ChannelClient, name: string, input: unknown): Promise<CallToolResult> {
  try {
    const result = await callTool(channel, name, input);
    return { content: [{ type: "text", text: result.text }], isError: result.isError };
  } catch (error) {
    return { content: [{ type: "text", text: (error as Error).message }], isError: true };
  }
}

async function main(): Promise<number> {
  const socket = process.env[TOOLS_SOCKET_ENV];
  const secret = process.env[TOOLS_SECRET_ENV];
  if (!socket || !secret) {
    stderrLogger(NAME)(`${TOOLS_SOCKET_ENV} and ${TOOLS_SECRET_ENV} must be set (the editor starts this server for its agent)`);
    return 2;
  }
  const log = debugLogger(NAME);
  const channel = new ChannelClient(() => ({ socket, secret }), log);
  const server = new Server({ name: "symposium-vscode-tools", version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await listTools(channel)).map(mcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => relayCall(channel, request.params.name, request.params.arguments ?? {}));
  const transport = new LineTransport();
  transport.onerror = (error) => log(error.message);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    onStopSignal(() => resolve());
  });
  await server.connect(transport);
  await closed;
  channel.close();
  await server.close().catch(() => {});
  return 0;
}

runCli(main, (error) => {
  stderrLogger(NAME)(describeError(error));
  return 1;
});
