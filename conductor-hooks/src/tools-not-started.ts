// An agent that was offered the editor's MCP server and never started it
// (Gemini CLI in a folder it does not trust starts none, silently): the
// session's first prompt answer carries a notice saying so, with the agent's
// own remedy where known (docs/editor-tools.md, "An agent that never starts
// the tools"). Judged at the first prompt's answer: Claude Code, Gemini CLI and
// OpenCode start their servers within session/new, Codex at the first prompt,
// and every agent lists the tools before it asks its model, so by then a server
// that was going to start has announced itself (tools-started.ts).

import * as path from "node:path";
import { SESSION_PROMPT, isObject, isRequest, type WireMessage } from "../../acp-wire/src/index.js";
import { EDITOR_TOOLS_SERVER_NAME, SESSION_SETUP_METHODS, type McpServerEntry } from "../../editor-context-proxy/src/index.js";
import { StartMarkers, TOOLS_STARTED_ENV } from "../../editor-context-proxy/src/tools-started.js";

/** The `_meta` key of a prompt answer whose value is a list of notices for the chat to show (plain text). */
export const NOTICES_META_KEY = "symposium.dev/notices";

const GENERIC_ADVICE =
  "The agent did not start the editor's tools (the symposium-editor MCP server it was offered), so it cannot read the editor's selection, unsaved files or diagnostics through them. Check its settings for MCP servers, then start a new conversation.";

const GEMINI_ADVICE =
  "Gemini CLI did not start the editor's tools (the symposium-editor MCP server): it starts no MCP server in a folder it does not trust. Trust this folder in Gemini CLI (its /permissions command, ~/.gemini/trustedFolders.json, or GEMINI_CLI_TRUST_WORKSPACE=true in its environment), then start a new conversation.";

/**
 * The conductor's own agents (demo-agent.ts, configuration-agent.ts, by their agentInfo names): they
 * use no tools, so not starting the server is no news to tell.
 */
const OWN_AGENTS_WITHOUT_TOOLS: ReadonlySet<string> = new Set(["symposium-demo-agent", "symposium-configuration"]);

/** The notice for an agent by the name its initialize answer gave (agentInfo.name). */
export function toolsNotStartedNotice(agentName: string | undefined): string {
  return agentName !== undefined && /gemini/i.test(agentName) ? GEMINI_ADVICE : GENERIC_ADVICE;
}

/** Follows each session offered the editor's server to its first prompt's answer. */
export class ToolsStartWatch {
  private readonly markers: StartMarkers;
  private agentName: string | undefined;
  /** Setup requests in flight (by id) with their marker, and the session id when the request names it. */
  private readonly setups = new Map<string, { file: string; sessionId: unknown }>();
  /** Sessions not judged yet, by id: their marker. */
  private readonly sessions = new Map<string, string>();
  /** First prompts in flight, by request id: their session. */
  private readonly prompts = new Map<string, string>();

  /** `stateFile`: the window's state file, beside which the start files go. */
  constructor(stateFile: string) {
    this.markers = new StartMarkers(path.dirname(stateFile));
  }

  /** `rewritten` (a setup request with our entry added) with this session's marker in the entry's env; prompts noted. */
  marked(original: WireMessage, rewritten: WireMessage | null): WireMessage | null {
    if (!isRequest(original)) return rewritten;
    const params = isObject(original.params) ? original.params : {};
    if (original.method === SESSION_PROMPT && typeof params.sessionId === "string" && this.sessions.has(params.sessionId)) {
      this.prompts.set(key(original.id), params.sessionId);
    }
    if (!SESSION_SETUP_METHODS.has(original.method) || rewritten === null || !isObject(rewritten.params)) return rewritten;
    const servers = rewritten.params.mcpServers;
    if (!Array.isArray(servers)) return rewritten;
    const file = this.markers.next();
    const marked = servers.map((server: unknown) => (isOurs(server) ? withEnv(server, file) : server));
    if (marked.every((server, i) => server === servers[i])) return rewritten;
    this.setups.set(key(original.id), { file, sessionId: params.sessionId });
    return { ...rewritten, params: { ...rewritten.params, mcpServers: marked } };
  }

  /** A first prompt's answer with the notice in its `_meta` when the session's server never started; null to pass it as it is. */
  revise(answer: WireMessage): WireMessage | null {
    const id = key(answer.id);
    const result = answer.result;
    if (isObject(result) && isObject(result.agentInfo) && typeof result.agentInfo.name === "string" && "protocolVersion" in result) {
      this.agentName = result.agentInfo.name;
    }
    const setup = this.setups.get(id);
    if (setup !== undefined) {
      this.setups.delete(id);
      const sessionId = isObject(result) && typeof result.sessionId === "string" ? result.sessionId : setup.sessionId;
      if (typeof sessionId === "string" && isObject(result)) this.sessions.set(sessionId, setup.file);
      return null;
    }
    const sessionId = this.prompts.get(id);
    if (sessionId === undefined) return null;
    this.prompts.delete(id);
    // A prompt that failed (sign-in asked, say) leaves the judgment to the next one.
    if (!isObject(result)) return null;
    const file = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    if (file === undefined || this.markers.started(file)) return null;
    if (this.agentName !== undefined && OWN_AGENTS_WITHOUT_TOOLS.has(this.agentName)) return null;
    const meta = isObject(result._meta) ? result._meta : {};
    const notices = Array.isArray(meta[NOTICES_META_KEY]) ? (meta[NOTICES_META_KEY] as unknown[]) : [];
    const notice = toolsNotStartedNotice(this.agentName);
    return { ...answer, result: { ...result, _meta: { ...meta, [NOTICES_META_KEY]: [...notices, notice] } } };
  }

  close(): void {
    this.markers.remove();
  }
}

function key(id: unknown): string {
  return JSON.stringify(id ?? null);
}

function isOurs(server: unknown): server is McpServerEntry {
  return isObject(server) && server.name === EDITOR_TOOLS_SERVER_NAME && Array.isArray(server.env);
}

function withEnv(entry: McpServerEntry, file: string): McpServerEntry {
  return { ...entry, env: [...entry.env, { name: TOOLS_STARTED_ENV, value: file }] };
}
