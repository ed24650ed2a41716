// `symposium-conductor demo-agent`: the embedded default agent. Offline and
// deterministic; its reply shows exactly what reached it (so the editor
// context is visible) and how to configure a real agent.

import { agent, type AgentApp, type ContentBlock } from "@agentclientprotocol/sdk";
import { OPEN_TAG } from "../../editor-context-proxy/src/index.js";
import { PROTOCOL_VERSION, serveOnStdio, streamText } from "./stdio-agent.js";

export function demoAgent(configPath: string, version: string): AgentApp {
  let sessions = 0;
  return agent()
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { promptCapabilities: { embeddedContext: true } },
      agentInfo: { name: "symposium-demo-agent", title: "Symposium demo agent", version },
    }))
    .onRequest("session/new", () => ({ sessionId: `demo-${++sessions}` }))
    .onNotification("session/cancel", () => {})
    .onRequest("session/prompt", async ({ params, client }) => {
      await streamText(client, params.sessionId, describePrompt(params.prompt, configPath));
      return { stopReason: "end_turn" };
    });
}

export function describePrompt(prompt: ContentBlock[], configPath: string): string {
  const parts = [
    "I am Symposium's built-in demo agent: I run offline and show you exactly what reached me.",
    "",
    `Your message arrived as ${prompt.length} content block${prompt.length === 1 ? "" : "s"}:`,
  ];
  prompt.forEach((block, index) => parts.push("", ...describeBlock(block, index + 1)));
  parts.push(
    "",
    `To talk to a real agent, set "agent" in ${configPath}, for example:`,
    `  "agent": "npx -y @zed-industries/claude-code-acp"`,
    "then start a new session.",
  );
  return parts.join("\n");
}

function describeBlock(block: ContentBlock, number: number): string[] {
  if (block.type !== "text") return [`${number}. a ${block.type} block`];
  const source = block.text.startsWith(OPEN_TAG) ? " (added by the editor-context proxy)" : "";
  const longestRun = Math.max(2, ...(block.text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  return [`${number}. text${source}:`, fence, block.text, fence];
}

export async function runDemoAgent(configPath: string, version: string): Promise<void> {
  await serveOnStdio(demoAgent(configPath, version));
}
