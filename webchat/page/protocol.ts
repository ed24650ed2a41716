// The messages between the chat page and its server, over the one websocket
// (JSON text frames). The page never speaks ACP; the server does, and passes
// the agent's session updates through as `update` events. Both the page (DOM)
// and the server (Node) load this file; it imports types only, from the
// protocol between VS Code's panel and this page (webview/src/panel-messages.ts).

import type { EditResult } from "../../webview/src/panel-messages.js";

/** What the server keeps per conversation and replays to a page that attaches. */
export type TranscriptEvent =
  /** `images`: how many images went with the text (their bytes go to the agent only, never into the transcript). */
  | { kind: "user"; text: string; contextSkipped: boolean; images?: number }
  /** An ACP `session/update` notification's `update`, as the agent sent it. */
  | { kind: "update"; update: AgentUpdate }
  | { kind: "permission"; id: string; title: string; toolKind?: string; options: PermissionOption[] }
  | { kind: "permissionDone"; id: string; outcome: "selected" | "cancelled"; optionId?: string }
  | { kind: "turnEnd"; stopReason: string }
  /** The turn that just ended changed files (its checkpoint record, docs/checkpoints.md): `files` project-relative, the first few. */
  | { kind: "turnChanges"; project: string; turn: string; count: number; files: string[]; notRecorded?: string }
  /** That turn was undone since (its checkpoint record says so: VS Code's Undo turn or Rewind, or the command line's). */
  | { kind: "turnUndone"; turn: string }
  | { kind: "error"; message: string; detail?: string[] }
  /** `promptRefused`: the server did not take the page's prompt (the agent was already answering, or not ready); the page queues its text again. */
  | { kind: "notice"; message: string; promptRefused?: boolean }
  /** The agent wants a sign-in (docs/webchat.md: sign-in): a card with its methods, and the prompt to send again. */
  | { kind: "signIn"; id: string; message: string; methods: AuthMethodInfo[]; retryText?: string }
  /** `output`: what the agent wrote while the sign-in was pending (an address, a code, why it failed). */
  | { kind: "signInDone"; id: string; methodId: string; ok: boolean; message?: string; output?: string[] }
  /** A sign-in under way (not kept): what the agent wrote since, and how long the chat waits for it. */
  | { kind: "signInProgress"; id: string; methodId: string; lines: string[]; limitMs: number }
  /** A terminal's output so far (at most its byte limit, cut at the start); `exitStatus` once it has exited. */
  /** The agent asks the user (docs/webchat.md: elicitation): a form (fields read by elicitation-fields.ts) or an address to open. */
  | ElicitationEvent
  /** What became of it; never the answer's values (a password is not kept). "complete": the agent said the URL flow finished. */
  | { kind: "elicitationDone"; id: string; action: "accept" | "decline" | "cancel" | "complete" }
  | { kind: "terminal"; terminalId: string; output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } };

export type ElicitationEvent =
  | { kind: "elicitation"; id: string; message: string; mode: "form"; fields: ElicitationField[] }
  | { kind: "elicitation"; id: string; message: string; mode: "url"; url: string };

/** What one answer may hold (ACP's ElicitationContentValue). */
export type ElicitationValue = string | number | boolean | string[];

/** A form field as elicitation-fields.ts reads it from the agent's schema. */
export interface ElicitationField {
  name: string;
  /** The label: the property's title, else its name. */
  label: string;
  description?: string;
  kind: "string" | "number" | "integer" | "boolean" | "choice" | "multi";
  required: boolean;
  /** Never echoed on screen, never kept (a password, a token). */
  secret: boolean;
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  /** `choice` and `multi`: the values offered, with their titles. */
  choices?: Array<{ value: string; title: string }>;
  /** The schema's default (never for a secret field). */
  default?: ElicitationValue;
}

/** The agent's usage_update, bounded (webchat/src/usage.ts): tokens in context, the window's size, the session's cost. */
export interface UsageInfo {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
}

/** An ACP auth method as the page shows it; `command` (the exact one to run in a terminal) when it needs one. */
export interface AuthMethodInfo {
  id: string;
  name: string;
  description?: string;
  command?: string;
  /**
   * The variables an older `type: "env_var"` method (gone from the spec; Codex still lists them) needs
   * in the agent's environment: the card says to set them, with no button (the chat sets no secret).
   */
  envVars?: string[];
}

/** An ACP session config option: a select (the model picker shows category "model") or a boolean (a toggle). */
export type ConfigOptionInfo = SelectOptionInfo | BooleanOptionInfo;

interface OptionBase {
  id: string;
  name: string;
  description?: string;
  category?: string;
}

export interface SelectOptionInfo extends OptionBase {
  type: "select";
  currentValue: string;
  options: Array<{ value: string; name: string; description?: string; group?: string }>;
}

export interface BooleanOptionInfo extends OptionBase {
  type: "boolean";
  currentValue: boolean;
}

/** An agent the picker offers: `symposium-conductor registry list`'s entry. */
export interface AgentChoice {
  id: string;
  name: string;
  version?: string;
  description?: string;
}

/** A kept conversation of this workspace (docs/webchat.md: history). */
/** One of the agent's own sessions (`session/list`), as History shows it. */
export interface AgentSessionEntry {
  sessionId: string;
  title?: string;
  /** ms since the epoch */
  updatedAt?: number;
}

export interface HistoryEntry {
  id: string;
  title: string;
  /** ms since the epoch */
  updatedAt: number;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  /** "allow_once", "allow_always", "reject_once", "reject_always", or a kind of the agent's own. */
  kind: string;
}

/** An ACP session update, loosely typed: the page renders what it knows and ignores the rest. */
export interface AgentUpdate {
  sessionUpdate: string;
  [field: string]: unknown;
}

export interface AgentMode {
  id: string;
  name: string;
  description?: string | null;
}

export interface SlashCommand {
  name: string;
  description: string;
  hint?: string;
}

export type ConversationState = "starting" | "ready" | "prompting" | "ended";

/** What the page shows about the agent and its session. */
export interface SessionInfo {
  state: ConversationState;
  agentName?: string;
  /** While starting: what our conductor is installing first ("<id> <version>"), shown instead of "Starting the agent…". */
  installing?: string;
  modes: AgentMode[];
  currentModeId?: string;
  commands: SlashCommand[];
  /** The agent's session config options (the model picker shows selects of category "model"; booleans are toggles). */
  configOptions?: ConfigOptionInfo[];
  /** The agent offered sign-in methods (initialize's authMethods). */
  authMethods?: AuthMethodInfo[];
  /** This conversation's id in the history (docs/webchat.md: history). */
  historyId?: string;
  /** Set while the session cannot start until the user signs in (the sign-in card in the transcript says how). */
  waitingFor?: "signIn";
  /** The agent lists its sessions (`session/list`), and can reopen them (load or resume): History shows them. */
  agentSessions?: boolean;
  /** The agent's id of this conversation's session (History marks it "this one"). */
  agentSessionId?: string;
  /** The agent can sign out (agentCapabilities.auth.logout): the header offers Sign out. */
  canLogout?: boolean;
  /** The agent forks sessions (the draft `sessionCapabilities.fork`) and reopens them (load or resume): Fork and Edit and resend are offered. */
  canFork?: boolean;
  /** The agent takes images in prompts (promptCapabilities.image): the composer attaches pasted and dropped ones. */
  imagePrompts?: boolean;
  /** The context meter (docs/webchat.md: usage), from the agent's last sane usage_update. */
  usage?: UsageInfo;
  /** The MCP servers the agent was given for this session, by name (webchat/src/mcp-servers.ts): the header's "Tools" chip. */
  mcpServers?: string[];
  /** Servers of the user's that our conductor did not give this agent, with why (an http server to an agent without http). */
  mcpServersWithheld?: Array<{ name: string; reason: string }>;
  /** Why the conversation ended, with the agent's last stderr lines. */
  ended?: EndedInfo;
}

/** Why a conversation ended (docs/webchat.md: when the agent does not start). */
export interface EndedInfo {
  message: string;
  stderrTail: string[];
  readOnly?: boolean;
  /** The agent never opened a session (it exited, or initialize or session/new failed): the page offers Retry and another agent. */
  startFailed?: boolean;
  /** The agent's own explanation, when its error carried one (the conductor's `data.details`: command, stderr, what to try). */
  detail?: string[];
  /** The agent's exit status, when it exited. */
  exit?: { code: number | null; signal: string | null };
}

/** The editor context the next prompt will carry (docs/context-block.md), or null: no chip. */
export interface ContextChip {
  /** Short: `main.rs:10-12`. */
  label: string;
  /** The whole block, shown on hover. */
  block: string;
}

export type ServerMessage =
  /** `maxConversations`: the server's limit of live conversations (the page's tabs stay within it). */
  | { type: "hello"; conversationId: string; named: boolean; title: string; projectDir: string; maxConversations?: number }
  | { type: "replay"; events: TranscriptEvent[] }
  /** The answer to `fork`: the agent's id of the new session and, when the history is kept, its entry there (a new tab reopens it), or why not. */
  | { type: "forked"; agentSessionId?: string; historyId?: string; error?: string }
  | { type: "event"; event: TranscriptEvent }
  | { type: "session"; session: SessionInfo }
  | { type: "context"; chip: ContextChip | null }
  | { type: "history"; entries: HistoryEntry[] }
  /** A page of the agent's own sessions (`listAgentSessions`); `cursor` names the next; `leftOut`: entries of the agent's page not shown; `error`: the agent refused. */
  | { type: "agentSessions"; sessions: AgentSessionEntry[]; cursor?: string; leftOut: number; error?: string }
  /** The answer to `listFiles`: the project's files (relative, `/`-separated), at most a few thousand. */
  | { type: "files"; files: string[]; truncated: boolean }
  /** The agents to choose from (docs/webchat.md: choosing the agent); only when the agent command is our conductor. `current`: the one this conversation runs, when it is in the list. */
  | { type: "agents"; agents: AgentChoice[]; current?: string }
  /**
   * The answer to `chooseAgent`, or the first-run menu's choice: saved (the page then starts a new conversation), or why not.
   * `firstQuestion`: what the user asked the menu, sent in the new conversation once its agent is ready.
   */
  | { type: "agentChoice"; ok: boolean; id?: string; name?: string; message?: string; firstQuestion?: string }
  /** The config's extensions in order (docs/extensions.md), after `extensions` asked or changed them; `message`: what the change did, or why not (`ok` false). */
  | { type: "extensions"; extensions: ExtensionItem[]; ok: boolean; message?: string }
  /** Messages the server had ready at once (a burst of agent updates), in order, in one frame. */
  | { type: "batch"; messages: ServerMessage[] }
  /** An agent's write, for VS Code when the page is in its panel (webchat/src/workspace-edits.ts); answered by `editResult`. */
  /** `tooLarge`: over the bridge's limit, so `content` is empty: VS Code refuses it when the file is open there (it cannot be reviewed). */
  | { type: "applyEdit"; id: string; path: string; content: string; tooLarge?: boolean };

export type PageMessage =
  /** `images`: pasted or dropped ones (image-check.ts), only when the session says the agent takes them. */
  | { type: "prompt"; text: string; skipContext: boolean; images?: Array<{ mimeType: string; data: string }> }
  | { type: "cancel" }
  | { type: "permission"; id: string; optionId: string }
  | { type: "setMode"; modeId: string }
  | { type: "authenticate"; signInId: string; methodId: string }
  /** Stop waiting for a pending sign-in (the card's Cancel). */
  | { type: "cancelSignIn"; signInId: string }
  /** A string for a select, true or false for a boolean option. */
  | { type: "setConfigOption"; configId: string; value: string | boolean }
  | { type: "listHistory" }
  /** Sign out of the agent (`logout`, when SessionInfo.canLogout). */
  | { type: "logout" }
  /** The agent's own sessions (when SessionInfo.agentSessions says it lists them): the first page, or the one `cursor` names. */
  | { type: "listAgentSessions"; cursor?: string }
  /** Fork this conversation's session (`session/fork`, only when the session says `canFork`); the answer is `forked`. */
  | { type: "fork" }
  /** The project's files, for `@` in the composer. */
  | { type: "listFiles" }
  | { type: "deleteHistory"; id: string }
  /** Saves the agent new conversations run (an id from the `agents` list). */
  | { type: "chooseAgent"; id: string }
  /** The Extensions section: list them, or change one (the conductor's `extensions` verbs); the answer is `extensions`. */
  | { type: "extensions"; action: ExtensionAction; name?: string; to?: "up" | "down" | number; spec?: string }
  /** "New chat": end this conversation now rather than after the grace period. */
  | { type: "end" }
  /** The page is in VS Code's panel (its bridge is up): agents' writes are offered to it (`applyEdit`). */
  | { type: "inEditor" }
  | { type: "editResult"; id: string; result: EditResult }
  /** The answer to an elicitation card; `content` (accept of a form) goes to the agent and is never kept. */
  | { type: "elicitation"; id: string; action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

/** One of the config's extensions (the conductor's `extensions list --json`). */
export interface ExtensionItem {
  position: number;
  name: string;
  enabled: boolean;
  /** What starts it, in words. */
  runs: string;
  source?: string;
}

export type ExtensionAction = "list" | "enable" | "disable" | "move" | "remove" | "add";

/** Query parameters of the page and websocket URLs (docs/webchat.md). */
export const QUERY = {
  token: "token",
  conversation: "conversation",
  theme: "theme",
  reopen: "reopen",
  /** One of the agent's own sessions to reopen (from `session/list`). */
  reopenAgent: "reopen-agent",
  newAgent: "new-agent",
} as const;
/**
 * The largest websocket message the server takes from a page (UTF-8 bytes of
 * the JSON): the server closes a socket that sends more (close code 1009), so
 * the composer refuses a longer prompt before sending it.
 */
export const MAX_PAGE_MESSAGE_BYTES = 4 * 1024 * 1024;
