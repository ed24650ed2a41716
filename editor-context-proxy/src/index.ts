// Library entry point: what the conductor (conductor-hooks/) and other
// programs may use to run the editor-context proxy in process.

export { EditorContextInjector, type EditorContextInjectorOptions } from "./injector.js";
export { StateFileReader, STATE_FILE_ENV, DEFAULT_MAX_AGE_MS, type StateReadResult } from "./state-file.js";
export { parseEditorState, type EditorState, type SelectionState, type CursorState, type DocumentState } from "./editor-state.js";
export { formatEditorContext, displayPath, OPEN_TAG, CLOSE_TAG, DEFAULT_MAX_SELECTION_CHARS } from "./context-block.js";
export { runChainedProxy, ChainedProxyRouter } from "./chained-proxy.js";
export { runWrapped, endAgent, killTree, exitStatus, describeSpawnError } from "./wrap-mode.js";
export { spawnProgram, killProcessTree, isRunning } from "./process-tree.js";
export { LineSplitter, LineWriter, readLines, pipeRaw, type LineHandler } from "./ndjson.js";
export * from "./jsonrpc.js";
export * from "./acp-constants.js";
export * from "./splice.js";
export * from "./envelope.js";
export * from "./proxy-dialect.js";
export { stderrLogger, debugLogger, type Logger } from "./log.js";
export { packageVersion } from "./version.js";
