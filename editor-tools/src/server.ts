// The MCP server: every tool of tools.ts, answered by the live window over
// the channel (channel-client.ts), or for editor_state, read_file and
// diagnostics from the state file when no window is connected
// (state-fallback.ts). A tool that needs the window says at once that none is
// connected. Errors are tool errors (isError), never a crash, and the
// transport skips a line that is not JSON-RPC.
//
// The SDK's low-level `Server` with plain JSON Schemas (tools.ts), not
// `McpServer` with zod: the server starts with every session, and McpServer's
// zod schemas and their conversion cost it ~5 MB and start-up time
// (docs/benchmarks.md, the editor tools' memory). Arguments are checked with the SDK's own Ajv
// validator, the one `Server` already holds, compiled per tool on first use;
// Ajv itself (its meta-schemas, its formats) is built on the first call that
// needs it, not at start: initialize and tools/list never do (P15).

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { packageVersion } from "../../acp-wire/src/index.js";
import { REVIEW_ANSWER_GRACE_MS, REVIEW_ANSWER_MS } from "../../editor-state/src/index.js";
import { ChannelClient, NoWindowError } from "./channel-client.js";
import { checkProposal } from "./proposal.js";
import { LIMITS, TOOL, TOOL_NAMES, type ReadFileParams, type ReadFileResult, type ToolName } from "./protocol.js";
import { StateFallback } from "./state-fallback.js";
import { TOOL_SPECS, toolList } from "./tools.js";
import { presentWalkthrough, registerWalkthroughResources } from "./walkthrough-tool.js";

export const SERVER_NAME = "symposium-editor";

/** How long propose_edit waits for the window: the one review deadline and the answer's way back (agent-writes.ts). */
const PROPOSAL_WAIT_MS = REVIEW_ANSWER_MS + REVIEW_ANSWER_GRACE_MS;

export interface EditorToolsOptions {
  /** The state file (SYMPOSIUM_EDITOR_STATE_FILE). */
  stateFile: string | undefined;
  log?: (message: string) => void;
  /** One validator for many servers in one process (the http server's sessions): each tool's schema compiled once. */
  validator?: LazyAjvValidator;
}

export interface EditorTools {
  server: Server;
  close(): void;
}

/** What tools/list answers, built once. */
const TOOLS: Tool[] = toolList();

export function createEditorToolsServer(options: EditorToolsOptions): EditorTools {
  const log = options.log ?? (() => {});
  const fallback = new StateFallback(options.stateFile);
  const channel = new ChannelClient(() => fallback.address(), log);
  const validator = options.validator ?? new LazyAjvValidator();
  const checked = argumentChecker(validator);
  const server = new Server({ name: SERVER_NAME, version: packageVersion() }, { capabilities: { tools: {}, resources: {} }, jsonSchemaValidator: validator });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  registerWalkthroughResources(server);
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name as ToolName;
    if (!TOOL_NAMES.includes(name)) return toolError(`Tool ${request.params.name} not found; the tools are ${TOOL_NAMES.join(", ")}.`);
    try {
      const args = await checked(name, request.params.arguments ?? {});
      if (name === TOOL.presentWalkthrough) return await presentWalkthrough(args, channel, server.getClientVersion()?.name);
      return await answer(name, args, channel, fallback);
    } catch (error) {
      return toolError(error instanceof Error ? error.message : String(error));
    }
  });
  return { server, close: () => channel.close() };
}

/**
 * The SDK's Ajv validator, loaded and built by the first call that checks arguments (`ready`), not at start:
 * Ajv is ~3.5 MB of a process every session starts, and initialize and tools/list never need it (P15). The
 * stdio bundle replaces the SDK `Server`'s own import of it (scripts/bundle.mjs), so this is the only load.
 */
export class LazyAjvValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;
  private loading: Promise<jsonSchemaValidator> | undefined;

  ready(): Promise<jsonSchemaValidator> {
    this.loading ??= import("@modelcontextprotocol/sdk/validation/ajv").then(({ AjvJsonSchemaValidator }) => (this.ajv = new AjvJsonSchemaValidator()));
    return this.loading;
  }

  /** For the SDK `Server`, which asks only to check an elicitation's answer: this server elicits nothing. */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (this.ajv === undefined) throw new Error("The argument validator is not loaded yet: await ready() first.");
    return this.ajv.getValidator<T>(schema);
  }
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Checks a call's arguments against its tool's schema (each compiled once, when first called) and keeps only the schema's properties. */
function argumentChecker(validator: LazyAjvValidator): (name: ToolName, args: Record<string, unknown>) => Promise<Record<string, unknown>> {
  const compiled = new Map<ToolName, JsonSchemaValidator<Record<string, unknown>>>();
  return async (name, args) => {
    const schema = TOOL_SPECS[name].inputSchema;
    let validate = compiled.get(name);
    if (validate === undefined) {
      validate = (await validator.ready()).getValidator<Record<string, unknown>>(schema);
      compiled.set(name, validate);
    }
    const result = validate(args);
    if (!result.valid) throw new Error(`Invalid arguments for tool ${name}: ${result.errorMessage}`);
    const known = Object.keys(schema.properties ?? {});
    return Object.fromEntries(Object.entries(args).filter(([key]) => known.includes(key)));
  };
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
