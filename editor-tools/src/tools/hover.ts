// hover: the type, signature and documentation VS Code shows on hovering a
// symbol (of at most three places the name leads to), capped.

import { LIMITS, TOOL } from "../protocol.js";
import type { Editor } from "./editor.js";
import { byNameOrPosition, object, target } from "./schema.js";
import { targets } from "./targets.js";
import { capped, type WindowTool } from "./tool.js";

export const hover: WindowTool = {
  name: TOOL.hover,
  description: `The type, signature and documentation VS Code shows when hovering a symbol. ${byNameOrPosition}`,
  inputSchema: object(target),
  fallsBack: false,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

async function answer(params: Record<string, unknown>, editor: Editor): Promise<Record<string, unknown>> {
  const parts: string[] = [];
  for (const at of (await targets(params, editor)).slice(0, 3)) parts.push(...(await editor.hovers(at)));
  return { hover: capped(parts.filter((part) => part.trim() !== "").join("\n\n---\n\n"), LIMITS.maxAnswerChars) };
}
