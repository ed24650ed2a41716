// Library entry point of the conductor.

export { runConductor, type ConductorOptions } from "./conductor.js";
export { Router, type ChainNode, type ChainMode, type InProcessComponent } from "./router.js";
export { editorContextHook, EDITOR_CONTEXT_COMPONENT } from "./editor-context-hook.js";
export { loadConfig, parseConfig, chainFromConfig, splitCommandLine, defaultConfigPath, ConfigError, CONFIG_ENV } from "./config.js";
export { KNOWN_AGENTS, AGENT_CHOICE_ENV, agentChoices, findAgentChoice } from "./agent-choices.js";
export { configurationAgent, menu } from "./configuration-agent.js";
export { describeAgentFailure, StderrTail } from "./agent-failure.js";
export { demoAgent, describePrompt } from "./demo-agent.js";
export type { ComponentSpec } from "./connections.js";
export { MCP_SERVERS_META, type McpServersReport } from "./mcp-servers.js";
