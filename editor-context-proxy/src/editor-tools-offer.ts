// The editor's MCP server offered to every session (docs/editor-tools.md): the entry
// the proxy adds to `mcpServers` of each session/new, session/load and
// session/resume, so every agent under every frontend starts
// dist/symposium-editor-tools.mjs for its session. Never in place of an entry
// the client sent (same name: theirs is kept). Off when
// `"editorTools": false` is in ~/.symposium/config.jsonc, or when the state
// file says the user turned the tools off (`symposium.editorTools.enabled`).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { SESSION_LOAD, SESSION_NEW, SESSION_RESUME, isObject, type WireMessage } from "../../acp-wire/src/index.js";
import { runAsNodeEnv } from "../../acp-wire/src/run-as-node.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";

/** The name agents see the server by. */
export const EDITOR_TOOLS_SERVER_NAME = "symposium-editor";
/** The bundled server, beside the proxy's and the conductor's bundles in dist/. */
export const EDITOR_TOOLS_SCRIPT = "symposium-editor-tools.mjs";
/** The config file's key: `false` turns the server off. */
export const EDITOR_TOOLS_CONFIG_KEY = "editorTools";

/** The requests whose `mcpServers` get the entry. */
export const SESSION_SETUP_METHODS: ReadonlySet<string> = new Set([SESSION_NEW, SESSION_LOAD, SESSION_RESUME]);

/** ACP's stdio MCP server entry (McpServerStdio). */
export interface McpServerEntry {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/**
 * The entry for a state file: this runtime (VS Code's Electron runs it as Node with
 * ELECTRON_RUN_AS_NODE, given back here as our CLIs drop it) running the server in
 * `bundleDir`; null when the server is not there or the config file turns it off.
 */
export function editorToolsServer(stateFile: string, bundleDir: string, env: NodeJS.ProcessEnv = process.env): McpServerEntry | null {
  const script = path.join(bundleDir, EDITOR_TOOLS_SCRIPT);
  if (!fs.existsSync(script) || editorToolsOffInConfig(env)) return null;
  const runAsNode = Object.entries(runAsNodeEnv()).map(([name, value]) => ({ name, value }));
  return { name: EDITOR_TOOLS_SERVER_NAME, command: process.execPath, args: [script], env: [{ name: STATE_FILE_ENV, value: stateFile }, ...runAsNode] };
}

/**
 * Whether the conductor's config file says `"editorTools": false`. The path is the
 * conductor's (conductor-hooks/src/config.ts, defaultConfigPath; a test checks they agree).
 * A missing or unreadable file turns nothing off: its errors are the conductor's to report.
 */
export function editorToolsOffInConfig(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env.SYMPOSIUM_CONFIG || path.join(os.homedir(), ".symposium", "config.jsonc");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false;
  }
  const value: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  return isObject(value) && value[EDITOR_TOOLS_CONFIG_KEY] === false;
}

/** `message` (a session/new, load or resume) with `entry` added to its mcpServers, or null when it has one of that name already (or is not such a request). */
export function withEditorTools(message: WireMessage, entry: McpServerEntry): WireMessage | null {
  if (typeof message.method !== "string" || !SESSION_SETUP_METHODS.has(message.method) || !isObject(message.params)) return null;
  const params = message.params;
  const servers: unknown[] = Array.isArray(params.mcpServers) ? params.mcpServers : [];
  if (params.mcpServers !== undefined && !Array.isArray(params.mcpServers)) return null; // malformed: the agent's to refuse
  if (servers.some((server) => isObject(server) && server.name === entry.name)) return null;
  return { ...message, params: { ...params, mcpServers: [...servers, entry] } };
}
