// The pieces of the tools' input schemas that several tools share (plain JSON
// Schema, as tools/list sends it: tools.ts).

import type { Tool } from "@modelcontextprotocol/sdk/types.js";

type InputSchema = Tool["inputSchema"];
export type PropertySchema = Record<string, unknown>;

export const path: PropertySchema = { type: "string", minLength: 1, maxLength: 4096, description: "Absolute path, or relative to the first workspace folder." };
export const line: PropertySchema = { type: "integer", minimum: 1, description: "1-based line number." };
export const offset: PropertySchema = {
  type: "integer",
  minimum: 0,
  description: "Where the page starts in the full list (the previous answer's nextOffset).",
};

/** By name, or by position: what find_definitions, find_references and hover take. */
export const target: Record<string, PropertySchema> = {
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

export const byNameOrPosition =
  "Give either `symbol` (a name, searched in the whole workspace), or `path` + `line` with `character` or `symbol` (a position in a file).";

export function object(properties: Record<string, PropertySchema>, required: string[] = []): InputSchema {
  return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
}
