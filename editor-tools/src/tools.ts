// The tools an agent sees: names, descriptions and input schemas, as plain
// JSON Schema (what tools/list sends; the SDK's Ajv validator checks calls
// against it). No zod here: building zod schemas and converting them cost the
// server memory and start-up time in a process every session starts.
// Descriptions say when to pick each one over the agent's own file tools:
// these answer with what the user sees in VS Code (unsaved text, live
// problems, the language servers' knowledge).

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { LIMITS, TOOL, TOOL_NAMES, type ToolName } from "./protocol.js";
import { WALKTHROUGH_SPEC } from "./walkthrough-tool.js";

type InputSchema = Tool["inputSchema"];
type PropertySchema = Record<string, unknown>;

const path: PropertySchema = { type: "string", minLength: 1, maxLength: 4096, description: "Absolute path, or relative to the first workspace folder." };
const line: PropertySchema = { type: "integer", minimum: 1, description: "1-based line number." };
const offset: PropertySchema = { type: "integer", minimum: 0, description: "Where the page starts in the full list (the previous answer's nextOffset)." };

/** By name, or by position: what find_definitions, find_references and hover take. */
const target: Record<string, PropertySchema> = {
  symbol: {
    type: "string",
    minLength: 1,
    maxLength: 512,
    description:
      "A symbol's name (function, class, variable…). Alone: looked up in the whole workspace. With path and line: the name's first occurrence on that line.",
  },
  path,
  line,
  character: { type: "integer", minimum: 1, description: "1-based column on `line` (instead of `symbol`)." },
};

const byNameOrPosition =
  "Give either `symbol` (a name, searched in the whole workspace), or `path` + `line` with `character` or `symbol` (a position in a file).";

function object(properties: Record<string, PropertySchema>, required: string[] = []): InputSchema {
  return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
}

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

export interface ToolSpec {
  description: string;
  inputSchema: InputSchema;
  /** Answered from the state file when no window is connected. */
  fallsBack: boolean;
  /** Changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
}

/** What tools/list answers: each tool's name, description, schema and hints; every one always loaded (see ALWAYS_LOAD_META). */
export function toolList(): Tool[] {
  return TOOL_NAMES.map((name) => ({
    name,
    description: TOOL_SPECS[name].description,
    inputSchema: TOOL_SPECS[name].inputSchema,
    annotations: { readOnlyHint: TOOL_SPECS[name].readOnly, openWorldHint: false },
    _meta: { [ALWAYS_LOAD_META]: true },
  }));
}

export const TOOL_SPECS: Record<ToolName, ToolSpec> = {
  [TOOL.editorState]: {
    description:
      "What the user sees in VS Code right now: the active file and its language, every selection with its text, the visible lines, the open editors (and which have unsaved changes), the workspace folders. Call it first when the user says 'this', 'here', 'the selected code' or 'the open file'.",
    inputSchema: object({}),
    fallsBack: true,
    readOnly: true,
  },
  [TOOL.readFile]: {
    description: `Read a file as the VS Code editor has it, unsaved changes included (reading the disk would miss what the user typed but did not save). Answers at most ${LIMITS.defaultLines} lines or ${LIMITS.maxAnswerChars} characters per call; ask again from \`nextLine\` for more. Only files inside the workspace folders.`,
    inputSchema: object(
      {
        path,
        line: { ...line, description: "1-based line to start at (default 1)." },
        limit: { type: "integer", minimum: 1, maximum: LIMITS.defaultLines, description: `How many lines (default and most: ${LIMITS.defaultLines}).` },
      },
      ["path"],
    ),
    fallsBack: true,
    readOnly: true,
  },
  [TOOL.diagnostics]: {
    description: `The problems VS Code's language servers and linters report now (errors, warnings, infos, hints: severity, range, message, source), for one file or, without \`path\`, for the whole workspace. Check it after editing to see whether the code still compiles. ${LIMITS.pageSize} entries per page, errors first.`,
    inputSchema: object({ path, offset }),
    fallsBack: true,
    readOnly: true,
  },
  [TOOL.findDefinitions]: {
    description: `Where a symbol is defined, answered by VS Code's language servers (works through imports, re-exports and overloads where a text search would guess). ${byNameOrPosition}`,
    inputSchema: object(target),
    fallsBack: false,
    readOnly: true,
  },
  [TOOL.findReferences]: {
    description: `Every place a symbol is used, answered by VS Code's language servers (only real uses of that symbol, not other things with the same name). ${byNameOrPosition} ${LIMITS.pageSize} locations per page, each with its line's text.`,
    inputSchema: object({ ...target, offset }),
    fallsBack: false,
    readOnly: true,
  },
  [TOOL.hover]: {
    description: `The type, signature and documentation VS Code shows when hovering a symbol. ${byNameOrPosition}`,
    inputSchema: object(target),
    fallsBack: false,
    readOnly: true,
  },
  [TOOL.documentSymbols]: {
    description: `The outline of a file: its classes, functions, methods, variables with their kinds and line ranges, nested as in the code. Quicker than reading a large file to find where something is. ${LIMITS.pageSize} symbols per page.`,
    inputSchema: object({ path, offset }, ["path"]),
    fallsBack: false,
    readOnly: true,
  },
  [TOOL.workspaceSymbols]: {
    description: `Find symbols (types, functions, constants…) by name across the whole workspace, as VS Code's "Go to Symbol in Workspace" does (fuzzy match). ${LIMITS.pageSize} per page.`,
    inputSchema: object({ query: { type: "string", minLength: 1, maxLength: 512, description: "The name or part of it." }, offset }, ["query"]),
    fallsBack: false,
    readOnly: true,
  },
  [TOOL.proposeEdit]: {
    description: `Propose a change to a file and let the user decide: VS Code shows it as a diff with Accept and Reject (the user may change it before accepting), unless the user chose to apply edits at once. Answers what the user decided and, when applied, the file's final text. Give \`newText\` (the whole new content; creates the file if missing) or \`edits\` (each \`oldText\` must occur exactly once in the current text). Applied in the editor, undoable; refused (unsaved) while the user has unsaved changes to the file. At most ${LIMITS.maxProposalBytes / 1024 / 1024} MiB.`,
    inputSchema: object(
      {
        path,
        newText: { type: "string", description: "The file's whole new content." },
        edits: {
          type: "array",
          minItems: 1,
          maxItems: LIMITS.maxEdits,
          description: "Replacements instead of newText, each oldText found in the current text (not in another edit's result), none overlapping.",
          items: {
            type: "object",
            properties: {
              oldText: { type: "string", minLength: 1, description: "Text to replace, exactly as in the file; must occur once." },
              newText: { type: "string" },
            },
            required: ["oldText", "newText"],
          },
        },
        title: { type: "string", maxLength: 200, description: "A short summary the user sees." },
      },
      ["path"],
    ),
    fallsBack: false,
    readOnly: false,
  },
  [TOOL.presentWalkthrough]: WALKTHROUGH_SPEC,
};
