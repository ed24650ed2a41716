// The per-prompt skip: a prompt whose _meta says "symposium.dev/editorContext": false
// goes out without the block (docs/context-block.md); anything else gets one.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { EDITOR_CONTEXT_META_KEY, EditorContextInjector } from "../../../editor-context-proxy/src/index.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

function prompt(meta?: Record<string, unknown>) {
  return {
    jsonrpc: "2.0" as const,
    id: 1,
    method: "session/prompt",
    params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }], ...(meta ? { _meta: meta } : {}) },
  };
}

describe("editor-context skip toggle", () => {
  it("leaves a prompt marked false unchanged and says why", () => {
    const skips: string[] = [];
    const injector = new EditorContextInjector({ stateFile: writeStateFile(SEED_STATE), onSkip: (reason) => skips.push(reason) });
    assert.equal(injector.rewrite(prompt({ [EDITOR_CONTEXT_META_KEY]: false })), null);
    assert.deepEqual(skips, ["the prompt asked for no editor context"]);
  });

  it("still adds the block when the key is absent, true, or not a boolean", () => {
    const injector = new EditorContextInjector({ stateFile: writeStateFile(SEED_STATE) });
    for (const meta of [undefined, { [EDITOR_CONTEXT_META_KEY]: true }, { [EDITOR_CONTEXT_META_KEY]: "false" }, { other: false }]) {
      const rewritten = injector.rewrite(prompt(meta));
      assert.ok(rewritten, JSON.stringify(meta));
      const blocks = (rewritten.params as { prompt: Array<{ text: string }> }).prompt;
      assert.match(blocks[0]!.text, /^<editor-context>/);
      assert.equal(blocks.length, 2);
    }
  });
});
