// The tools an agent sees, one file each in tools/ (name, description, input
// schema, hints, and the window's handler against the editor interface,
// tools/editor.ts): this list is what tools/list answers; the window registers
// the handlers of tools/window-tools.ts (extension/src/tools/editor-tools-host.ts). Plain JSON Schema (the SDK's
// Ajv validator checks calls against it), no zod: building zod schemas and
// converting them cost the server memory and start-up time in a process every
// session starts. Descriptions say when to pick each one over the agent's own
// file tools: these answer with what the user sees in VS Code (unsaved text,
// live problems, the language servers' knowledge).

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolName } from "./protocol.js";
import { presentWalkthrough } from "./tools/present-walkthrough.js";
import type { EditorTool } from "./tools/tool.js";
import { WINDOW_TOOLS } from "./tools/window-tools.js";

export type { EditorTool } from "./tools/tool.js";

/**
 * Claude Code defers an MCP tool behind its ToolSearch (the model sees the name only, not the description that
 * steers it here) unless its tools/list entry carries this in `_meta` (docs/editor-tools.md, "Always loaded").
 */
export const ALWAYS_LOAD_META = "anthropic/alwaysLoad";

/**
 * What all always-loaded entries may cost the model's context together, in characters of their JSON as tools/list
 * sends it (~4 characters a token): the decision in docs/editor-tools.md is taken again before it grows past this.
 */
export const ALWAYS_LOADED_CHARS = 9000;

/** Every tool, in the order tools/list lists them. */
export const EDITOR_TOOLS: readonly EditorTool[] = [...WINDOW_TOOLS, presentWalkthrough];

/** The tools by name (the MCP server's lookups). */
export const TOOL_SPECS = Object.fromEntries(EDITOR_TOOLS.map((tool) => [tool.name, tool])) as Record<ToolName, EditorTool>;

/** What tools/list answers: each tool's name, description, schema and hints; every one always loaded (see ALWAYS_LOAD_META). */
export function toolList(): Tool[] {
  return EDITOR_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
    _meta: { [ALWAYS_LOAD_META]: true },
  }));
}
