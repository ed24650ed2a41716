// find_references: every use of a symbol, answered by the language servers,
// a page at a time, each with its line's text.

import { LIMITS, TOOL, pageOf } from "../protocol.js";
import type { Editor, Location } from "./editor.js";
import { locations, withLineText } from "./locations.js";
import { byNameOrPosition, object, offset, target } from "./schema.js";
import { targets } from "./targets.js";
import { integer, type WindowTool } from "./tool.js";

export const findReferences: WindowTool = {
  name: TOOL.findReferences,
  description: `Every place a symbol is used, answered by VS Code's language servers (only real uses of that symbol, not other things with the same name). ${byNameOrPosition} ${LIMITS.pageSize} locations per page, each with its line's text.`,
  inputSchema: object({ ...target, offset }),
  fallsBack: false,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

async function answer(params: Record<string, unknown>, editor: Editor): Promise<Record<string, unknown>> {
  const start = integer(params.offset, "offset", 0);
  const found: Location[] = [];
  for (const at of await targets(params, editor)) found.push(...(await editor.references(at)));
  const { items, page } = pageOf(locations(found), start);
  return { ...page, references: withLineText(items, editor) };
}
