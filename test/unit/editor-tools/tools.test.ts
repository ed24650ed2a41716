// What tools/list costs the model's context (editor-tools/src/tools.ts): every
// tool is always loaded (Claude Code's `anthropic/alwaysLoad`, issue 48), a
// decision taken on these figures (docs/editor-tools.md, "Always loaded"); the
// test keeps them under the budget the decision was taken for.

import { strict as assert } from "node:assert";
import { it } from "node:test";
import { TOOL_NAMES } from "../../../editor-tools/src/protocol.js";
import { ALWAYS_LOADED_CHARS, ALWAYS_LOAD_META, toolList } from "../../../editor-tools/src/tools.js";

it("every tool is always loaded, and all of them together stay within the context budget the decision was taken for", (t) => {
  const tools = toolList();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    [...TOOL_NAMES],
  );
  let total = 0;
  for (const tool of tools) {
    assert.deepEqual(tool._meta, { [ALWAYS_LOAD_META]: true }, tool.name);
    // What the model reads of a tool: its name, description and input schema, as JSON.
    const chars = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length;
    t.diagnostic(`${tool.name}: ${chars} characters, ~${Math.round(chars / 4)} tokens`);
    total += chars;
  }
  t.diagnostic(`all ${tools.length}: ${total} characters, ~${Math.round(total / 4)} tokens`);
  assert.ok(total <= ALWAYS_LOADED_CHARS, `${total} characters always loaded, over the ${ALWAYS_LOADED_CHARS} the decision allows: take it again`);
});
