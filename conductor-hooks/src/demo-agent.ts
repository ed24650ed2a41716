// `symposium-conductor demo-agent`: the embedded default agent. Offline and
// deterministic; its reply shows exactly what reached it (so the editor
// context is visible, and each mentioned file by name) and how to get a real
// agent from where the user is: the chat's agent picker or VS Code's command
// (agent-choices.ts: chooseAgentHint), else the config file `run` read
// (RUN_CONFIG_ENV says which), or a command line. Two commands of its own
// change the project, so a newcomer can try what an agent's writes look like:
// `/edit` through the client (fs/write_text_file: VS Code applies or reviews
// it), `/write` straight to disk as real agents' own tools do (the turn's
// checkpoint shows it, with Review and Undo turn). `/walkthrough` presents
// one through the editor's tools the session was offered (demo-walkthrough.ts).

import * as fs from "node:fs";
import * as path from "node:path";
import { agent, type AgentApp, type AgentContext, type ContentBlock } from "@agentclientprotocol/sdk";
import { codeFence, OPEN_TAG } from "../../editor-context-proxy/src/index.js";
import { editorServerOf, presentDemoWalkthrough } from "./demo-walkthrough.js";
import { chooseAgentHint, DEMO_AGENT_NAME, KNOWN_AGENTS } from "./agent-choices.js";
import { PROTOCOL_VERSION, serveOnStdio, streamText, userText } from "./stdio-agent.js";

/** The example of a real agent's command: the menu's first (Claude Code), so the hint names the adapter's current package. */
const EXAMPLE_AGENT = KNOWN_AGENTS[0]!.command;

/** The files the demo's commands change, in the session's folder: one a command writes through the client, one it writes itself. */
export const DEMO_FILES = { edit: "demo-edit.md", write: "demo-write.md" } as const;

type DemoCommand = keyof typeof DEMO_FILES | "walkthrough";

const DEMO_COMMANDS: ReadonlyArray<{ name: DemoCommand; description: string }> = [
  { name: "edit", description: `Change ${DEMO_FILES.edit} through VS Code (the client's fs/write_text_file): an open editor gets the edit, or a review` },
  { name: "write", description: `Write ${DEMO_FILES.write} to disk myself, as real agents' own tools do: the turn's Review and Undo turn show it` },
  { name: "walkthrough", description: "Show a walkthrough of this project in VS Code, beside the editor, with the editor's present_walkthrough tool" },
];

/** `configPath`: the config file that named this agent, or null when a command line did. */
export function demoAgent(configPath: string | null, version: string): AgentApp {
  let sessions = 0;
  let clientWrites = false;
  const folders = new Map<string, string>();
  /** Each session's offered MCP servers (`/walkthrough` looks for the editor's). */
  const servers = new Map<string, readonly unknown[]>();
  return agent()
    .onRequest("initialize", ({ params }) => {
      clientWrites = params.clientCapabilities?.fs?.writeTextFile === true;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { promptCapabilities: { embeddedContext: true } },
        agentInfo: { name: "symposium-demo-agent", title: DEMO_AGENT_NAME, version },
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const sessionId = `demo-${++sessions}`;
      folders.set(sessionId, params.cwd);
      servers.set(sessionId, params.mcpServers ?? []);
      // Offered as the chat's "/" commands once the answer has gone (a client drops updates for a session it does not know yet).
      setImmediate(() => void offerCommands(client, sessionId).catch(() => undefined));
      return { sessionId };
    })
    .onNotification("session/cancel", () => {})
    .onRequest("session/prompt", async ({ params, client }) => {
      const command = demoCommand(userText(params.prompt));
      const folder = folders.get(params.sessionId);
      const text =
        command && folder
          ? command === "walkthrough"
            ? await presentDemoWalkthrough(editorServerOf(servers.get(params.sessionId) ?? []), folder, version)
            : await runDemoCommand(command, { client, sessionId: params.sessionId, folder, clientWrites })
          : describePrompt(params.prompt, configPath);
      await streamText(client, params.sessionId, text);
      return { stopReason: "end_turn" };
    });
}

function offerCommands(client: AgentContext, sessionId: string): Promise<void> {
  return client.notify("session/update", {
    sessionId,
    update: { sessionUpdate: "available_commands_update", availableCommands: DEMO_COMMANDS.map((command) => ({ ...command, input: null })) },
  });
}

/** `/edit`, `/write` or `/walkthrough` (what follows is ignored), else null. */
export function demoCommand(text: string): DemoCommand | null {
  const match = /^\/(edit|write|walkthrough)(?:\s|$)/.exec(text);
  return match ? (match[1] as DemoCommand) : null;
}

interface CommandContext {
  client: AgentContext;
  sessionId: string;
  folder: string;
  /** Whether the client said it takes fs/write_text_file. */
  clientWrites: boolean;
}

async function runDemoCommand(command: keyof typeof DEMO_FILES, context: CommandContext): Promise<string> {
  const file = path.join(context.folder, DEMO_FILES[command]);
  try {
    return command === "edit" ? await editThroughClient(file, context) : writeToDisk(file);
  } catch (error) {
    return `I could not change ${DEMO_FILES[command]}: ${(error as Error).message}`;
  }
}

/** A line added to the file through the client, which decides how it lands (an open editor: applied or reviewed). */
async function editThroughClient(file: string, context: CommandContext): Promise<string> {
  if (!context.clientWrites)
    return `This client does not take file writes from an agent (fs/write_text_file), so /edit cannot show one here; /write writes to disk.`;
  const { client, sessionId } = context;
  const before = await client
    .request<{ content: string }>("fs/read_text_file", { sessionId, path: file })
    .then((result) => result.content)
    .catch(() => `# ${DEMO_FILES.edit}\n\nLines the demo agent added through the editor (/edit):\n`);
  await client.request("fs/write_text_file", { sessionId, path: file, content: withLine(before, "through the editor") });
  return [
    `I added a line to ${DEMO_FILES.edit} through the editor (fs/write_text_file): the client writes it, not me.`,
    `In VS Code, a file open in an editor gets the edit there (Ctrl+Z undoes it), or a diff to Accept or Reject first when the setting symposium.chat.agentEdits is "review"; open ${DEMO_FILES.edit} and run /edit again to see it. A file not open is written to disk.`,
    "The turn is recorded too: its row offers Review and Undo turn.",
  ].join("\n\n");
}

/** A line added to the file by this process itself, as Claude Code's or OpenCode's tools write: nothing asks the client. */
function writeToDisk(file: string): string {
  const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : `# ${DEMO_FILES.write}\n\nLines the demo agent wrote to disk itself (/write):\n`;
  fs.writeFileSync(file, withLine(before, "straight to disk"));
  return [
    `I added a line to ${DEMO_FILES.write} myself, straight to disk, as real agents' own tools do: no request reached the editor.`,
    "Symposium saw it anyway: this turn's row offers Review (the multi-file diff of what the turn changed) and Undo turn (puts the file back); the command Symposium: Review Agent Changes lists every such turn.",
  ].join("\n\n");
}

function withLine(text: string, how: string): string {
  const count = text.split("\n").filter((line) => line.startsWith("- ")).length + 1;
  return `${text.endsWith("\n") || text === "" ? text : `${text}\n`}- line ${count}, written ${how}\n`;
}

export function describePrompt(prompt: ContentBlock[], configPath: string | null, env: NodeJS.ProcessEnv = process.env): string {
  const parts = [
    "I am Symposium's built-in demo agent: I run offline and show you exactly what reached me.",
    "",
    `Your message arrived as ${prompt.length} content block${prompt.length === 1 ? "" : "s"}:`,
  ];
  prompt.forEach((block, index) => parts.push("", ...describeBlock(block, index + 1)));
  parts.push(
    "",
    `To see an agent change files, send /edit (I change ${DEMO_FILES.edit} through the editor) or /write (I write ${DEMO_FILES.write} to disk myself); each turn can then be reviewed and undone. /walkthrough shows this project around in VS Code.`,
  );
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
