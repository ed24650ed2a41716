// document_symbols: a file's outline, flattened with each symbol's depth, a
// page at a time.

import { LIMITS, TOOL, pageOf } from "../protocol.js";
import type { Editor, OutlineSymbol } from "./editor.js";
import { object, offset, path } from "./schema.js";
import { integer, loadDocument, resolvePath, type WindowTool } from "./tool.js";

export const documentSymbols: WindowTool = {
  name: TOOL.documentSymbols,
  description: `The outline of a file: its classes, functions, methods, variables with their kinds and line ranges, nested as in the code. Quicker than reading a large file to find where something is. ${LIMITS.pageSize} symbols per page.`,
  inputSchema: object({ path, offset }, ["path"]),
  fallsBack: false,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

interface SymbolAnswer {
  name: string;
  kind: string;
  detail?: string;
  startLine: number;
  endLine: number;
  depth: number;
}

async function answer(params: Record<string, unknown>, editor: Editor): Promise<Record<string, unknown>> {
  const start = integer(params.offset, "offset", 0);
  const document = await loadDocument(resolvePath(params.path, editor), editor);
  const flat: SymbolAnswer[] = [];
  const walk = (symbol: OutlineSymbol, depth: number): void => {
    flat.push({
      name: symbol.name,
      kind: symbol.kind,
      ...(symbol.detail ? { detail: symbol.detail } : {}),
      startLine: symbol.range.start.line + 1,
      endLine: symbol.range.end.line + 1,
      depth,
    });
    for (const child of symbol.children) walk(child, depth + 1);
  };
  for (const symbol of await editor.documentSymbols(document)) walk(symbol, 0);
  const { items, page } = pageOf(flat, start);
  return { path: document.path, ...page, symbols: items };
}
