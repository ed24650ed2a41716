// The MCP servers a conversation's agent is given, by name, for the page's
// "Tools" chip (docs/webchat.md: tools): those session/new names itself (the
// chat's own: none), and the editor's (symposium-editor), which our
// conductor's editor-context component adds to every session when VS Code's
// state file is set (conductor-hooks/src/editor-context-hook.ts). Known here
// only when the agent runs behind our conductor; decided by the rules the
// conductor itself applies (editorToolsServer; the state file's switch).

import * as fs from "node:fs";
import * as path from "node:path";
import { STATE_FILE_ENV, parseEditorTools } from "../../editor-state/src/index.js";
import { editorToolsServer } from "../../editor-context-proxy/src/index.js";
import { ourConductorRun } from "./agent-catalog.js";
import type { AgentCommand } from "./agent-command.js";

/** The names, in the order the agent gets them: `requested` (session/new's own), then the editor's when our conductor adds it. */
export function mcpServerNames(requested: ReadonlyArray<{ name: string }>, command: AgentCommand, env: NodeJS.ProcessEnv): string[] {
  const names = requested.map((server) => server.name);
  const editor = editorServerName(command, env);
  return editor === undefined || names.includes(editor) ? names : [...names, editor];
}

function editorServerName(command: AgentCommand, env: NodeJS.ProcessEnv): string | undefined {
  const run = ourConductorRun(command);
  const stateFile = env[STATE_FILE_ENV];
  if (run === undefined || !stateFile || toolsTurnedOff(stateFile)) return undefined;
  // The conductor's bundle folder holds the editor's server (the hook looks beside itself).
  return editorToolsServer(stateFile, path.dirname(run.conductor.args[0]!), env)?.name;
}

/** Whether VS Code's state file says the user turned the editor's tools off (`symposium.editorTools.enabled`). */
function toolsTurnedOff(stateFile: string): boolean {
  try {
    return parseEditorTools(JSON.parse(fs.readFileSync(stateFile, "utf8")) as unknown)?.enabled === false;
  } catch {
    return false; // not written yet, or unreadable: the conductor's hook adds the server then too
  }
}
