// workspace_symbols: symbols by name across the workspace (VS Code's fuzzy
// "Go to Symbol in Workspace"), those inside the folders, a page at a time.

import { CHANNEL_ERROR, LIMITS, TOOL, pageOf } from "../protocol.js";
import type { Editor } from "./editor.js";
import { object, offset } from "./schema.js";
import { ChannelRefusal, inWorkspace, integer, type WindowTool } from "./tool.js";

export const workspaceSymbols: WindowTool = {
  name: TOOL.workspaceSymbols,
  description: `Find symbols (types, functions, constants…) by name across the whole workspace, as VS Code's "Go to Symbol in Workspace" does (fuzzy match). ${LIMITS.pageSize} per page.`,
  inputSchema: object({ query: { type: "string", minLength: 1, maxLength: 512, description: "The name or part of it." }, offset }, ["query"]),
  fallsBack: false,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

async function answer(params: Record<string, unknown>, editor: Editor): Promise<Record<string, unknown>> {
  if (typeof params.query !== "string" || params.query === "") throw new ChannelRefusal("query must be a non-empty string", CHANNEL_ERROR.invalidParams);
  const start = integer(params.offset, "offset", 0);
  const found = await editor.workspaceSymbols(params.query);
  const all = found.flatMap((symbol) =>
    symbol.path !== undefined && inWorkspace(symbol.path, editor)
      ? [{ name: symbol.name, kind: symbol.kind, container: symbol.containerName || null, path: symbol.path, line: symbol.range.start.line + 1 }]
      : [],
  );
  const { items, page } = pageOf(all, start);
  return { ...page, symbols: items };
}
