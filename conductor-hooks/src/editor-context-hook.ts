// The editor-context component: the editor-context proxy in the chain, in
// process (after the turn checkpoints), exactly when SYMPOSIUM_EDITOR_STATE_FILE is set and non-empty
// (with it, each session gets the editor's MCP server: docs/editor-tools.md).
// Unset, it is not in the chain at all, so CLI use pays nothing.

import { INITIALIZE, SESSION_PROMPT, encodeMessage, type Logger } from "../../acp-wire/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import {
  EditorContextInjector,
  FILE_METHODS,
  INJECTED_METHODS,
  SESSION_SETUP_METHODS,
  answerLine,
  editorToolsServer,
} from "../../editor-context-proxy/src/index.js";
import type { InProcessComponent } from "./router.js";
import { EditorToolsOverHttp } from "./editor-tools-http.js";
import { ToolsStartWatch } from "./tools-not-started.js";

export const EDITOR_CONTEXT_COMPONENT = "editor-context";

/** The requests the component observes: initialize (what the agent takes) and the setup requests (held while the http listener starts). */
const OBSERVED_METHODS: ReadonlySet<string> = new Set([INITIALIZE, ...SESSION_SETUP_METHODS]);

export function editorContextHook(env: NodeJS.ProcessEnv, debug: Logger): InProcessComponent | null {
  const stateFile = env[STATE_FILE_ENV];
  if (!stateFile) return null;
  const injector = new EditorContextInjector({
    stateFile,
    onSkip: (reason) => debug(`prompt forwarded without editor context: ${reason}`),
    onUnsavedNote: (note) => debug(note),
    // Every session gets the editor's MCP server (docs/editor-tools.md), which sits beside this bundle in dist/.
    editorTools: editorToolsServer(stateFile, bundleDir(), env),
  });
  setImmediate(() => warmUp(stateFile));
  // Whether each session's agent starts the server it was offered (tools-not-started.ts).
  const toolsStart = new ToolsStartWatch(stateFile);
  // Served by this process over HTTP to an agent that takes it (editor-tools-http.ts).
  const overHttp = new EditorToolsOverHttp(stateFile, env, debug);
  return {
    name: EDITOR_CONTEXT_COMPONENT,
    rewrites: INJECTED_METHODS,
    rewriteDownstream: (message) => overHttp.swapped(toolsStart.marked(message, injector.rewrite(message))),
    observes: OBSERVED_METHODS,
    observe: (request) => overHttp.observe(request),
    reviseAnswer: (answer) => {
      overHttp.noteAnswer(answer);
      return toolsStart.revise(answer);
    },
    close: async () => {
      toolsStart.close();
      await overHttp.close();
    },
    // The agent reads the editor's unsaved text and cannot overwrite it (docs/proxy.md, "Unsaved changes").
    answers: FILE_METHODS,
    answerUpstream: (message, id) => {
      const answer = injector.unsavedFiles.answer(message);
      return answer === null ? null : answerLine(id, answer);
    },
  };
}

/**
 * dist/, where the conductor's bundles sit: this code runs from a chunk the conductor's
 * entries share (scripts/bundle.mjs splits it into dist/chunks/), or from the entry itself.
 */
function bundleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(here) === "chunks" ? path.dirname(here) : here;
}

/**
 * Runs the injection once while the agent starts, on an injector of its own
 * (nothing logged, nothing sent): a session's first prompt otherwise pays for
 * compiling the reader and the formatter, several ms (docs/benchmarks-notes.md, P10).
 */
function warmUp(stateFile: string): void {
  const prompt = { jsonrpc: "2.0", id: 0, method: SESSION_PROMPT, params: { sessionId: "warm-up", prompt: [{ type: "text", text: "warm up" }] } };
  try {
    const rewritten = new EditorContextInjector({ stateFile }).rewrite(prompt);
    if (rewritten !== null) encodeMessage(rewritten, 0, null, null);
  } catch {
    // a warm-up never matters more than the session: the real prompt reports any problem
  }
}
