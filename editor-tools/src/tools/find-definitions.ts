// find_definitions: where a symbol is defined, answered by the language
// servers (by name across the workspace, or at a position).

import { LIMITS, TOOL } from "../protocol.js";
import type { Editor, Location } from "./editor.js";
import { locations, withLineText } from "./locations.js";
import { byNameOrPosition, object, target } from "./schema.js";
import { targets } from "./targets.js";
import type { WindowTool } from "./tool.js";

export const findDefinitions: WindowTool = {
  name: TOOL.findDefinitions,
  description: `Where a symbol is defined, answered by VS Code's language servers (works through imports, re-exports and overloads where a text search would guess). ${byNameOrPosition}`,
  inputSchema: object(target),
  fallsBack: false,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

async function answer(params: Record<string, unknown>, editor: Editor): Promise<Record<string, unknown>> {
  const found: Location[] = [];
  for (const at of await targets(params, editor)) found.push(...(await editor.definitions(at)));
  return { definitions: withLineText(locations(found).slice(0, LIMITS.pageSize), editor) };
}
