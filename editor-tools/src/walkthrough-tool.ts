// present_walkthrough (docs/walkthroughs.md): the agent shows the user around
// the code in a view beside the editor. The description teaches the format in
// a few lines; the whole format is one read away, as the MCP resource
// WALKTHROUGH_FORMAT_URI. The call is checked here (schema, then the format and
// its bounds, so a mistake comes back at once with its line), then the window
// resolves the locations and shows it (extension/src/walkthroughs/walkthrough-view.ts).

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, ReadResourceRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ChannelClient } from "./channel-client.js";
import { LIMITS, TOOL } from "./protocol.js";
import {
  WALKTHROUGH_FORMAT_DOC,
  WALKTHROUGH_FORMAT_URI,
  WALKTHROUGH_LIMITS,
  parseWalkthrough,
  type PresentWalkthroughParams,
  type PresentWalkthroughResult,
} from "./walkthrough-format.js";

const FENCE = "```";

/** The tool's entry in tools.ts's TOOL_SPECS. */
export const WALKTHROUGH_SPEC = {
  description: [
    "Show the user a walkthrough of the code in VS Code, beside the editor: after writing code (the key points to review, where you were unsure), to explain a codebase, or while debugging.",
    `It is Markdown plus fenced blocks: ${FENCE}mermaid (a diagram); ${FENCE}comment (first line \`location: <where>\`, then the text, placed as a comment in the code); ${FENCE}action (first line \`button: <label>\`, then the message you receive when the user presses it); ${FENCE}gitdiff (\`A..B\`, a commit, or \`turn:<id>\`).`,
    "A location is `path:line`, `path:start-end`, `symbol:<name>` (its definitions, through the language servers) or `search:<path>:<text>`. Links to `path:line` in the Markdown open the code.",
    `Limits: ${WALKTHROUGH_LIMITS.maxMarkdownBytes / 1024} KiB, ${WALKTHROUGH_LIMITS.maxComments} comments, ${WALKTHROUGH_LIMITS.maxActions} actions, ${WALKTHROUGH_LIMITS.maxDiagrams} diagrams. Answers what was shown and which locations did not resolve. The full format: the resource ${WALKTHROUGH_FORMAT_URI}.`,
  ].join(" "),
  inputSchema: {
    type: "object",
    properties: {
      markdown: { type: "string", minLength: 1, description: "The walkthrough: Markdown with the blocks above." },
      baseFolder: {
        type: "string",
        minLength: 1,
        maxLength: 4096,
        description: "The folder relative paths are taken from (absolute, inside the workspace; usually the project's root).",
      },
    },
    required: ["markdown", "baseFolder"],
  } satisfies Tool["inputSchema"],
  fallsBack: false,
  readOnly: false,
};

/** The format's full text as an MCP resource, one read away from the tool's description. */
export function registerWalkthroughResources(server: Server): void {
  const resource = { uri: WALKTHROUGH_FORMAT_URI, name: "walkthrough-format", title: "The walkthrough format", mimeType: "text/markdown" };
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [resource] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== WALKTHROUGH_FORMAT_URI) throw new Error(`No resource ${request.params.uri}; the one resource is ${WALKTHROUGH_FORMAT_URI}.`);
    return { contents: [{ uri: WALKTHROUGH_FORMAT_URI, mimeType: "text/markdown", text: WALKTHROUGH_FORMAT_DOC }] };
  });
}

/**
 * Checks the walkthrough (its arguments already checked against the schema), then asks the window to show it.
 * A format mistake throws at once with its line, before the window is asked; server.ts makes errors tool errors.
 */
export async function presentWalkthrough(args: Record<string, unknown>, channel: ChannelClient, agent: string | undefined): Promise<CallToolResult> {
  const markdown = args.markdown as string;
  parseWalkthrough(markdown);
  const params: PresentWalkthroughParams = { markdown, baseFolder: args.baseFolder as string, ...(agent ? { agent: agent.slice(0, 100) } : {}) };
  const result = (await channel.request(TOOL.presentWalkthrough, params, LIMITS.requestMs)) as PresentWalkthroughResult;
  return { content: [{ type: "text", text: describeShown(result) }] };
}

/** The answer an agent reads: what the user sees, then what did not resolve, so it can present again corrected. */
export function describeShown(result: PresentWalkthroughResult): string {
  const counts = `${result.placed} comment(s) placed, ${result.ambiguous.length} with several places for the user to pick, ${result.diagrams} diagram(s), ${result.actions} action(s), ${result.gitdiffs} gitdiff(s)`;
  const lines = [`Shown to the user: "${result.title}" — ${counts}.`];
  for (const each of result.ambiguous) lines.push(`Comment ${each.comment} (${each.location}): ${each.places} places; the user picks one when opening it.`);
  if (result.unresolved.length > 0) {
    lines.push(`Not resolved (shown as such; correct the location and present again if it matters):`);
    for (const each of result.unresolved) lines.push(`- comment ${each.comment} (${each.location}): ${each.reason}`);
  }
  return lines.join("\n");
}
