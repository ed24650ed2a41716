// Typed access to the extension's settings: the only module that reads or
// writes them. The setting names are those of Symposium's VS Code design (`toadCommand`, `toadPort`)
// even where the built-in chat runs instead of Toad: renaming them would drop
// every user's values.

import * as vscode from "vscode";

export interface ExtensionSettings {
  /** Program that starts Toad; run directly, never through a shell. */
  toadCommand: string;
  /** The panel host's port on 127.0.0.1 (whichever chat runs behind it); 0: pick a free port. */
  toadPort: number;
  /** Conductor the chat runs for each session; empty: this extension's own. */
  acpAgentPath: string;
  editorContextEnabled: boolean;
  /** Offer agents the editor's MCP server and run the window's live channel (docs/editor-tools.md). */
  editorToolsEnabled?: boolean;
  /** The built-in chat's --max-conversations; undefined: its own default. */
  chatMaxConversations?: number;
  /** An agent's write to a document open in VS Code (agent-edits.ts): applied at once, or reviewed in a diff first. */
  chatAgentEdits?: "apply" | "review";
  /** Notify (a notification and the view's badge) when the agent is done or waits while the chat is out of view. */
  chatNotifications?: boolean;
  /** Turn checkpoints (docs/checkpoints.md): recorded by the conductor, or off. */
  checkpointsEnabled?: boolean;
  /** The most turn records kept per project; undefined: the conductor's default. */
  checkpointsMaxTurns?: number;
  /** symposium.agents, as they are (the conductor checks them); undefined: none. */
  customAgents?: unknown[];
  /** symposium.mcpServers, the user's own value only, as it is (the conductor checks it: mcp-servers.ts). */
  userMcpServers?: unknown[];
}

/** Every setting, as named after `symposium.`. */
export type SettingName =
  | "toadCommand"
  | "toadPort"
  | "acpAgentPath"
  | "editorContext.enabled"
  | "editorTools.enabled"
  | "chat.maxConversations"
  | "chat.agentEdits"
  | "chat.notifications"
  | "enableExperimentalLM"
  | "agents"
  | "mcpServers"
  | "checkpoints.enabled"
  | "checkpoints.maxTurns";

const SECTION = "symposium";
const EDITOR_CONTEXT: SettingName = "editorContext.enabled";

export function readConfig(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    toadCommand: config.get<string>("toadCommand", "toad").trim() || "toad",
    toadPort: clampPort(config.get<number>("toadPort", 0)),
    acpAgentPath: config.get<string>("acpAgentPath", "").trim(),
    editorContextEnabled: config.get<boolean>(EDITOR_CONTEXT, true),
    editorToolsEnabled: config.get<boolean>("editorTools.enabled", true),
    chatMaxConversations: wholeNumberIn(config.get<number>("chat.maxConversations", 16), 1, 1000),
    chatAgentEdits: config.get<string>("chat.agentEdits", "apply") === "review" ? "review" : "apply",
    chatNotifications: config.get<boolean>("chat.notifications", true) !== false,
    checkpointsEnabled: config.get<boolean>("checkpoints.enabled", true),
    checkpointsMaxTurns: wholeNumberIn(config.get<number>("checkpoints.maxTurns", 100), 1, 10_000),
    customAgents: readCustomAgents(),
    userMcpServers: readUserMcpServers(),
  };
}

/** A value outside the setting's range (hand-edited settings.json): undefined, the chat's own default. */
function wholeNumberIn(value: number, least: number, most: number): number | undefined {
  return Number.isInteger(value) && value >= least && value <= most ? value : undefined;
}

function clampPort(value: number): number {
  return Number.isInteger(value) && value > 0 && value < 65536 ? value : 0;
}

/**
 * `symposium.agents`: custom agents as AgentConfig objects (Symposium's agent registry design)
 * ({ id, name?, description?, distribution }). Passed as they are to the
 * conductor, which checks them (registry-format.ts) and says what is wrong.
 */
export function readCustomAgents(): unknown[] {
  const agents = vscode.workspace.getConfiguration(SECTION).get<unknown>("agents", []);
  return Array.isArray(agents) ? agents : [];
}

/**
 * `symposium.mcpServers`: the user's MCP servers for every agent. Only the user's own value
 * (settings.json of this machine): a workspace's or folder's value would name programs an
 * agent runs, so it is never read, trusted workspace or not (its scope is "machine" too).
 */
export function readUserMcpServers(): unknown[] {
  const servers = vscode.workspace.getConfiguration(SECTION).inspect<unknown>("mcpServers")?.globalValue;
  return Array.isArray(servers) ? servers : [];
}

/** `symposium.enableExperimentalLM`: the agents as VS Code language models (lm-provider.ts); off by default. */
export function readExperimentalLm(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>("enableExperimentalLM", false) === true;
}

/** Fires `listener` when any Symposium setting changes. */
export function onConfigChange(listener: (config: ExtensionSettings) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(SECTION)) listener(readConfig());
  });
}

/** Fires `listener` with the first of `names` that changed, when one does. */
export function onSettingChange(names: readonly SettingName[], listener: (changed: SettingName) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    const changed = names.find((name) => event.affectsConfiguration(`${SECTION}.${name}`));
    if (changed) listener(changed);
  });
}

/**
 * Settings VS Code reads only from the machine the extension runs on (package.json: "scope": "machine"):
 * in a remote window (SSH, WSL, a container, Codespaces, code-server) from Remote settings, never from User settings.
 */
export const MACHINE_SETTINGS: readonly SettingName[] = ["toadCommand", "acpAgentPath", "agents"];

/**
 * Fires `listener` when one of `names` is changed in any settings file, with whether the value in effect
 * here changed: VS Code reports a change to a scope it does not read here (a machine setting in the User
 * settings of a remote window) like any other, though the value stays what it was.
 */
export function onSettingEdit(names: readonly SettingName[], listener: (changed: SettingName, applies: boolean) => void): vscode.Disposable {
  const effective = (name: SettingName) => JSON.stringify(vscode.workspace.getConfiguration(SECTION).get<unknown>(name));
  const seen = new Map(names.map((name) => [name, effective(name)]));
  return vscode.workspace.onDidChangeConfiguration((event) => {
    const edited = names.filter((name) => event.affectsConfiguration(`${SECTION}.${name}`));
    if (edited.length === 0) return;
    const applied = edited.find((name) => effective(name) !== seen.get(name));
    for (const name of edited) seen.set(name, effective(name));
    listener(applied ?? edited[0]!, applied !== undefined);
  });
}

/**
 * Flips editor-context sharing (the status bar item's click) for this window's workspace: its Workspace
 * settings when a folder or workspace is open, so another project keeps its own choice and the User
 * setting stays the default for all; with nothing open, the User setting.
 */
export async function toggleEditorContext(): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update(EDITOR_CONTEXT, !readConfig().editorContextEnabled, target);
}
