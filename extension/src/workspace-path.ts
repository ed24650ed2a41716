// Whether a path the chat names is inside the workspace: one check for the
// chat bridge, the agent's edits and the editor's tools, kept with the tools
// (editor-tools/src/workspace-paths.ts, pure Node, tested directly).

export { insideFolders } from "../../editor-tools/src/workspace-paths.js";
