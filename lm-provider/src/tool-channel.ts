// The consumer's tools on the private channel into VS Code: each language-model
// session runs its own instance of the editor channel's server
// (editor-tools/src/channel-server.ts: socket or named pipe, secret, deadline
// to authenticate, bounds), with two methods, and the relay the agent starts
// (tool-relay.ts) asks them through the editor tools' client
// (editor-tools/src/channel-client.ts). Only the methods and their checks are here.

import { isObject } from "../../acp-wire/src/jsonrpc.js";
import { ChannelRefusal, ChannelServer, channelSecret, listenableChannelAddress } from "../../editor-tools/src/channel-server.js";
import type { ChannelClient } from "../../editor-tools/src/channel-client.js";
import { CHANNEL_ERROR } from "../../editor-tools/src/protocol.js";
import type { LmTool } from "./messages.js";

/** The relay's environment: where the channel is and its secret. */
export const TOOLS_SOCKET_ENV = "SYMPOSIUM_LM_TOOLS_SOCKET";
export const TOOLS_SECRET_ENV = "SYMPOSIUM_LM_TOOLS_SECRET";

/** The channel's methods: the tools the current request offers, and one call of them. */
export const LM_TOOLS_METHOD = { list: "list_tools", call: "call_tool" } as const;

/**
 * How long the relay waits for a call's answer: the consumer runs the tool when its next request comes, which
 * may be after the user confirmed it in VS Code.
 */
export const TOOL_CALL_MS = 15 * 60_000;

export interface ToolCallRequest {
  name: string;
  input: unknown;
}

export interface ToolCallResult {
  text: string;
  isError: boolean;
}

export interface ToolHandler {
  /** The tools the current request offers. */
  tools(): LmTool[];
  /** An agent's call; resolves with what the consumer answered. */
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** One session's channel: its server, listening, and the relay's environment entries. */
export interface ToolChannel {
  readonly server: ChannelServer;
  readonly address: string;
  readonly relayEnv: Record<string, string>;
}

/** Listens for one session's relay in `privateDir` (0700): the channel's socket is 0600, its secret new. */
export async function openToolChannel(privateDir: string, handler: ToolHandler, log: (message: string) => void): Promise<ToolChannel> {
  const address = listenableChannelAddress(privateDir);
  const secret = channelSecret();
  const server = new ChannelServer({
    address,
    secret,
    handlers: {
      [LM_TOOLS_METHOD.list]: () => Promise.resolve({ tools: handler.tools() }),
      [LM_TOOLS_METHOD.call]: (params) => handler.call(toolCallRequest(params)),
    },
    identity: () => ({ pid: process.pid, workspaceFolders: [] }),
    log,
  });
  await server.listen();
  return { server, address, relayEnv: { [TOOLS_SOCKET_ENV]: address, [TOOLS_SECRET_ENV]: secret } };
}

function toolCallRequest(params: Record<string, unknown>): ToolCallRequest {
  if (typeof params.name !== "string" || params.name === "") throw new ChannelRefusal("call_tool needs the tool's name", CHANNEL_ERROR.invalidParams);
  return { name: params.name, input: params.arguments ?? {} };
}

/** The relay's questions, their answers checked: a channel peer is not trusted to send the shapes it should. */
export async function listTools(client: ChannelClient): Promise<LmTool[]> {
  const answer = await client.request(LM_TOOLS_METHOD.list, {});
  const tools = isObject(answer) && Array.isArray(answer.tools) ? answer.tools : null;
  if (!tools?.every(isTool)) throw new Error("the editor answered list_tools with something that is not a tool list");
  return tools;
}

export async function callTool(client: ChannelClient, name: string, input: unknown): Promise<ToolCallResult> {
  const answer = await client.request(LM_TOOLS_METHOD.call, { name, arguments: input }, TOOL_CALL_MS);
  if (!isObject(answer) || typeof answer.text !== "string" || typeof answer.isError !== "boolean") {
    throw new Error(`the editor answered the call of ${name} with something that is not a tool result`);
  }
  return { text: answer.text, isError: answer.isError };
}

function isTool(value: unknown): value is LmTool {
  return isObject(value) && typeof value.name === "string" && typeof value.description === "string";
}
