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
import { MCP_SERVERS_META } from "../../conductor-hooks/src/index.js";
import { ourConductorRun } from "./agent-catalog.js";
import type { AgentCommand } from "./agent-command.js";

/** What the page is told: the servers the agent got, and those our conductor withheld, with why. */
export interface McpServersShown {
  given: string[];
  withheld: Array<{ name: string; reason: string }>;
}

const MAX_SHOWN = 64;
const MAX_TEXT = 200;
/** One line of at most MAX_TEXT characters: control characters become spaces. */
const shownText = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0
    ? [...value]
        .slice(0, MAX_TEXT)
        .map((char) => (char < " " || char === "\u007f" ? " " : char))
        .join("")
    : undefined;

/**
 * The list our conductor put in the session's answer (`_meta["symposium/mcpServers"]`, the truth: it
 * is the last component before the agent, so it saw every server the client, the editor and the
 * proxies added); undefined when the answer has none (another conductor, or an agent run directly).
 * Only the agent's chain writes it, and an agent could too: it is shown, bounded, never acted on.
 */
export function reportedMcpServers(answer: { _meta?: Record<string, unknown> | null }): McpServersShown | undefined {
  const report = answer._meta?.[MCP_SERVERS_META];
  if (typeof report !== "object" || report === null) return undefined;
  const { given, withheld } = report as { given?: unknown; withheld?: unknown };
  if (!Array.isArray(given)) return undefined;
  const names = given.slice(0, MAX_SHOWN).flatMap((name) => shownText(name) ?? []);
  const refusals = (Array.isArray(withheld) ? withheld.slice(0, MAX_SHOWN) : []).flatMap((entry: unknown) => {
    const { name, reason } = (typeof entry === "object" && entry !== null ? entry : {}) as { name?: unknown; reason?: unknown };
    const shownName = shownText(name);
    return shownName === undefined ? [] : [{ name: shownName, reason: shownText(reason) ?? "not given" }];
  });
  return { given: names, withheld: refusals };
}

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
