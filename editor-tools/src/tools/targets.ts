// Where find_definitions, find_references and hover ask the language servers:
// a position in a file (by line and column, or a name on a line or in the
// file), or each workspace symbol of exactly the name given.

import { CHANNEL_ERROR, LIMITS, type SymbolTarget } from "../protocol.js";
import type { DocumentPosition, Editor } from "./editor.js";
import { ChannelRefusal, inWorkspace, integer, loadDocument, resolvePath } from "./tool.js";

/** Where `params` points: a position in a file, or each workspace symbol of that exact name. */
export async function targets(params: Record<string, unknown>, editor: Editor): Promise<DocumentPosition[]> {
  const target = params as SymbolTarget;
  if (target.symbol !== undefined && typeof target.symbol !== "string") throw new ChannelRefusal("symbol must be a string", CHANNEL_ERROR.invalidParams);
  if (target.path === undefined) {
    if (!target.symbol) throw new ChannelRefusal("give symbol, or path and line", CHANNEL_ERROR.invalidParams);
    return symbolsNamed(target.symbol, editor);
  }
  const document = await loadDocument(resolvePath(target.path, editor), editor);
  const line = integer(target.line, "line", 1);
  if (line === undefined) {
    if (!target.symbol) throw new ChannelRefusal("give line (and character or symbol) with path", CHANNEL_ERROR.invalidParams);
    const at = wordIndex(document.text(), target.symbol);
    if (at < 0) throw new ChannelRefusal(`${target.symbol} does not occur in ${document.path}`);
    return [{ document, position: document.positionAt(at) }];
  }
  if (line > document.lineCount) throw new ChannelRefusal(`${document.path} has ${document.lineCount} lines, not ${line}`);
  const text = document.lineText(line - 1);
  const character = integer(target.character, "character", 1);
  if (character !== undefined) return [{ document, position: { line: line - 1, character: Math.min(character - 1, text.length) } }];
  if (target.symbol) {
    const at = wordIndex(text, target.symbol);
    if (at < 0) throw new ChannelRefusal(`${target.symbol} does not occur on line ${line} of ${document.path}`);
    return [{ document, position: { line: line - 1, character: at } }];
  }
  return [{ document, position: { line: line - 1, character: text.length - text.trimStart().length } }];
}

/** Where `name` occurs as a whole word in `text` (else anywhere); -1 when nowhere. */
function wordIndex(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).exec(text);
  return word ? word.index : text.indexOf(name);
}

/** The positions of the workspace symbols named exactly `name` (VS Code's workspace symbol search, as findDefinitions("name") of Symposium's design does). */
async function symbolsNamed(name: string, editor: Editor): Promise<DocumentPosition[]> {
  const found = await editor.workspaceSymbols(name);
  const exact = found.filter((symbol) => symbol.name === name || symbol.name.replace(/\(.*$/, "") === name);
  const inside = exact.flatMap((symbol) => (symbol.path !== undefined && inWorkspace(symbol.path, editor) ? [{ path: symbol.path, range: symbol.range }] : []));
  if (inside.length === 0) {
    const near = found.length
      ? `: ${found
          .slice(0, 5)
          .map((symbol) => symbol.name)
          .join(", ")}`
      : "";
    throw new ChannelRefusal(
      `no symbol named ${name} in the workspace (VS Code's workspace symbol search found ${found.length} near matches${near}); give path and line instead`,
    );
  }
  const result: DocumentPosition[] = [];
  for (const symbol of inside.slice(0, LIMITS.maxNamedSymbols)) {
    const document = await loadDocument(editor.realPath(symbol.path), editor);
    const start = document.offsetAt(symbol.range.start);
    const at = wordIndex(document.text(symbol.range), name);
    result.push({ document, position: document.positionAt(start + Math.max(0, at)) });
  }
  return result;
}
