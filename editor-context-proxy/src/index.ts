// Library entry point: what the conductor (conductor-hooks/, which runs the
// editor-context proxy in process, and its `symposium-editor-context` program)
// and other programs may use to inject the block, or to show the one it would send.

export { EditorContextInjector, EDITOR_CONTEXT_META_KEY, INJECTED_METHODS, type EditorContextInjectorOptions } from "./injector.js";
export { StateFileReader, type StateReadResult } from "./state-file.js";
export { formatEditorContext, displayPath, codeFence, OPEN_TAG, CLOSE_TAG, DEFAULT_MAX_SELECTION_CHARS } from "./context-block.js";
export { describeCurrentContext, watchCurrentContext } from "./show.js";
export { FILE_METHODS, READ_TEXT_FILE, answerLine, UnsavedFiles, unsavedChangesError } from "./unsaved-files.js";
export {
  EDITOR_TOOLS_SERVER_NAME,
  EDITOR_TOOLS_CONFIG_KEY,
  SESSION_SETUP_METHODS,
  editorToolsServer,
  editorToolsOffInConfig,
  withEditorTools,
  type McpServerEntry,
} from "./editor-tools-offer.js";
