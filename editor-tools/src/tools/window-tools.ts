// The tools the window answers through the editor interface (editor.ts), in
// tools/list's order: what the extension registers on its channel
// (extension/src/tools/editor-tools-host.ts). Apart from tools.ts, which adds
// present_walkthrough, so that the extension loads no MCP SDK code.

import { diagnostics } from "./diagnostics.js";
import { documentSymbols } from "./document-symbols.js";
import { editorState } from "./editor-state.js";
import { findDefinitions } from "./find-definitions.js";
import { findReferences } from "./find-references.js";
import { hover } from "./hover.js";
import { proposeEdit } from "./propose-edit.js";
import { readFile } from "./read-file.js";
import type { WindowTool } from "./tool.js";
import { workspaceSymbols } from "./workspace-symbols.js";

export const WINDOW_TOOLS: readonly WindowTool[] = [
  editorState,
  readFile,
  diagnostics,
  findDefinitions,
  findReferences,
  hover,
  documentSymbols,
  workspaceSymbols,
  proposeEdit,
];
