// The language model provider's core, for the extension's adapter.
export { LmConversation, TOOLS_SERVER_NAME, type LmConversationOptions, type LmRequest, type ResponseSink } from "./lm-conversation.js";
export type { AgentLaunch } from "./conductor-session.js";
export { HistoryTracker, type HistoryMatch } from "./history-match.js";
export { estimateTokens, messageText, type LmMessage, type LmPart, type LmTool } from "./messages.js";
export { AGENT_ACTION_APPROVED, AGENT_ACTION_TOOL, type AgentActionInput } from "./agent-action.js";
