// `symposium-conductor demo-agent`: the embedded default agent. Offline and
// deterministic; its reply shows exactly what reached it (so the editor
// context is visible, and each mentioned file by name) and how to get a real
// agent from where the user is: the chat's agent picker or VS Code's command
// (agent-choices.ts: chooseAgentHint), else the config file `run` read
// (RUN_CONFIG_ENV says which), or a command line.

import { agent, type AgentApp, type ContentBlock } from "@agentclientprotocol/sdk";
import { codeFence, OPEN_TAG } from "../../editor-context-proxy/src/index.js";
import { chooseAgentHint, DEMO_AGENT_NAME, KNOWN_AGENTS } from "./agent-choices.js";
import { PROTOCOL_VERSION, serveOnStdio, streamText } from "./stdio-agent.js";

/** The example of a real agent's command: the menu's first (Claude Code), so the hint names the adapter's current package. */
const EXAMPLE_AGENT = KNOWN_AGENTS[0]!.command;

/** `configPath`: the config file that named this agent, or null when a command line did. */
export function demoAgent(configPath: string | null, version: string): AgentApp {
  let sessions = 0;
  return agent()
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { promptCapabilities: { embeddedContext: true } },
      agentInfo: { name: "symposium-demo-agent", title: DEMO_AGENT_NAME, version },
    }))
    .onRequest("session/new", () => ({ sessionId: `demo-${++sessions}` }))
    .onNotification("session/cancel", () => {})
    .onRequest("session/prompt", async ({ params, client }) => {
      await streamText(client, params.sessionId, describePrompt(params.prompt, configPath));
      return { stopReason: "end_turn" };
    });
}

export function describePrompt(prompt: ContentBlock[], configPath: string | null, env: NodeJS.ProcessEnv = process.env): string {
  const parts = [
    "I am Symposium's built-in demo agent: I run offline and show you exactly what reached me.",
    "",
    `Your message arrived as ${prompt.length} content block${prompt.length === 1 ? "" : "s"}:`,
  ];
  prompt.forEach((block, index) => parts.push("", ...describeBlock(block, index + 1)));
  parts.push("", ...howToUseARealAgent(configPath, env));
  return parts.join("\n");
}

function howToUseARealAgent(configPath: string | null, env: NodeJS.ProcessEnv): string[] {
  const chooser = chooseAgentHint(env);
  if (chooser !== null) return [`To talk to a real agent, ${chooser}; the new conversation runs it.`];
  if (configPath !== null) {
    return [
      `You are talking to me because "agent" in ${configPath} names me. To talk to a real agent, set "agent" there to its command, for example:`,
      `  "agent": ${JSON.stringify(EXAMPLE_AGENT)}`,
      "then start a new session.",
    ];
  }
  return [
    'No config file chose me: I was named on a command line (as in `symposium-conductor agent "symposium-conductor demo-agent"`).',
    "To talk to a real agent, name its command there instead, for example:",
    `  symposium-conductor agent ${JSON.stringify(EXAMPLE_AGENT)}`,
    "or use `symposium-conductor run`, which starts the agent set in ~/.symposium/config.jsonc.",
  ];
}

function describeBlock(block: ContentBlock, number: number): string[] {
  if (block.type === "resource") {
    // A mention (`@src/main.rs`) the chat sent with its text: which file, and how much of it.
    const { resource } = block;
    const size = "text" in resource ? `, ${resource.text.length} characters of text` : ", binary";
    return [`${number}. a resource block: ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}${size}`];
  }
  if (block.type === "resource_link")
    return [`${number}. a resource link: ${block.uri}${block.name && !block.uri.endsWith(block.name) ? ` (${block.name})` : ""}`];
  if (block.type !== "text") return [`${number}. a ${block.type} block`];
  const source = block.text.startsWith(OPEN_TAG) ? " (added by the editor-context proxy)" : "";
  const fence = codeFence([block.text]);
  return [`${number}. text${source}:`, fence, block.text, fence];
}

export async function runDemoAgent(configPath: string | null, version: string): Promise<void> {
  await serveOnStdio(demoAgent(configPath, version));
}
