// The MCP server: every tool of tools.ts, answered by the live window over
// the channel (channel-client.ts), or for editor_state, read_file and
// diagnostics from the state file when no window is connected
// (state-fallback.ts). A tool that needs the window says at once that none is
// connected. Errors are tool errors (isError), never a crash: the SDK turns a
// thrown Error into one, and its transport skips a line that is not JSON-RPC.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { packageVersion } from "../../acp-wire/src/index.js";
import { ChannelClient, NoWindowError } from "./channel-client.js";
import { checkProposal } from "./proposal.js";
import { LIMITS, TOOL, TOOL_NAMES, type ReadFileParams, type ReadFileResult, type ToolName } from "./protocol.js";
import { StateFallback } from "./state-fallback.js";
import { TOOL_SPECS } from "./tools.js";

export const SERVER_NAME = "symposium-editor";

/** How long propose_edit waits for the user: the window's review time (10 minutes) and a little more. */
const PROPOSAL_WAIT_MS = 10.5 * 60_000;

export interface EditorToolsOptions {
  /** The state file (SYMPOSIUM_EDITOR_STATE_FILE). */
  stateFile: string | undefined;
  log?: (message: string) => void;
}

export interface EditorTools {
  server: McpServer;
  close(): void;
}

export function createEditorToolsServer(options: EditorToolsOptions): EditorTools {
  const log = options.log ?? (() => {});
  const fallback = new StateFallback(options.stateFile);
  const channel = new ChannelClient(() => fallback.address(), log);
  const server = new McpServer({ name: SERVER_NAME, version: packageVersion() }, { capabilities: { tools: {} } });
  for (const name of TOOL_NAMES) {
    const spec = TOOL_SPECS[name];
    server.registerTool(
      name,
      { description: spec.description, inputSchema: spec.inputSchema, annotations: { readOnlyHint: spec.readOnly, openWorldHint: false } },
      async (args: Record<string, unknown>) => answer(name, args, channel, fallback),
    );
  }
  return { server, close: () => channel.close() };
}

async function answer(name: ToolName, args: Record<string, unknown>, channel: ChannelClient, fallback: StateFallback): Promise<CallToolResult> {
  if (name === TOOL.proposeEdit) checkProposal(args);
  try {
    const result = await channel.request(name, args, name === TOOL.proposeEdit ? PROPOSAL_WAIT_MS : LIMITS.requestMs);
    return rendered(name, result);
  } catch (error) {
    if (!(error instanceof NoWindowError) || !TOOL_SPECS[name].fallsBack) throw error;
    return rendered(name, fromStateFile(name, args, fallback, error));
  }
}

/** The state file's answer, when it has one for this call; else the reason no window answered. */
function fromStateFile(name: ToolName, args: Record<string, unknown>, fallback: StateFallback, noWindow: NoWindowError): unknown {
  if (name === TOOL.editorState) return fallback.editorState();
  if (name === TOOL.readFile) return fallback.readFile(args as unknown as ReadFileParams);
  if (args.path === undefined) return fallback.diagnostics();
  throw noWindow;
}

/** The answer as text an agent reads: a file's lines as they are, anything else as JSON. */
function rendered(name: ToolName, result: unknown): CallToolResult {
  if (name === TOOL.readFile && isReadFileResult(result)) {
    const more = result.nextLine !== undefined ? `; more from line ${result.nextLine}` : "";
    const note = "note" in result && typeof result.note === "string" ? `\n${result.note}` : "";
    const header = `${result.path}: lines ${result.startLine}-${result.endLine} of ${result.totalLines} (${result.unsaved ? "with unsaved changes" : "saved"}, from the ${result.source})${more}${note}`;
    return { content: [{ type: "text", text: `${header}\n${result.text}` }] };
  }
  return { content: [{ type: "text", text: JSON.stringify(result, null, 1) }] };
}

function isReadFileResult(value: unknown): value is ReadFileResult & { note?: string } {
  return (
    typeof value === "object" && value !== null && typeof (value as ReadFileResult).text === "string" && typeof (value as ReadFileResult).startLine === "number"
  );
}
