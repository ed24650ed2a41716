// present_walkthrough, registered with the other tools: its description and
// schema are walkthrough-tool.ts's, the MCP server checks and sends it there,
// and the window answers it in extension/src/walkthroughs/walkthrough-view.ts (no handler
// against the editor interface: the view is the answer).

import { TOOL } from "../protocol.js";
import { WALKTHROUGH_SPEC } from "../walkthrough-tool.js";
import type { EditorTool } from "./tool.js";

export const presentWalkthrough: EditorTool = { name: TOOL.presentWalkthrough, ...WALKTHROUGH_SPEC };
