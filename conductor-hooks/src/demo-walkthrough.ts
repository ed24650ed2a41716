// The demo agent's `/walkthrough` (docs/walkthroughs.md): it calls
// present_walkthrough on the editor's MCP server its session was offered
// (`symposium-editor` in session/new's mcpServers: the stdio entry the
// editor-context proxy adds, or the http one the conductor serves), as a real
// agent would, so a newcomer sees a walkthrough without one. The MCP client
// is loaded only when the command runs, so the demo agent starts as fast.

import * as fs from "node:fs";
import * as path from "node:path";
import { isObject } from "../../acp-wire/src/index.js";
import { EDITOR_TOOLS_SERVER_NAME } from "../../editor-context-proxy/src/index.js";

/** What to do when no editor was offered: the chat run from VS Code offers it. */
export const NO_EDITOR_TOOLS =
  "I cannot show a walkthrough here: this session was not offered the editor's tools (the symposium-editor MCP server). Open the chat from VS Code with the setting symposium.editorTools.enabled on, then send /walkthrough again.";

/** The editor's server as session/new offered it: a process to start, or an endpoint to post to. */
export type EditorServer =
  { kind: "stdio"; command: string; args: string[]; env: Record<string, string> } | { kind: "http"; url: string; headers: Record<string, string> };

/** The `symposium-editor` entry of a session's mcpServers, or null when none was offered. */
export function editorServerOf(mcpServers: readonly unknown[]): EditorServer | null {
  const entry = mcpServers.find((server) => isObject(server) && server.name === EDITOR_TOOLS_SERVER_NAME);
  if (!isObject(entry)) return null;
  if (typeof entry.url === "string") return { kind: "http", url: entry.url, headers: namedValues(entry.headers) };
  if (typeof entry.command !== "string") return null;
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === "string") : [];
  return { kind: "stdio", command: entry.command, args, env: namedValues(entry.env) };
}

function namedValues(list: unknown): Record<string, string> {
  const pairs = Array.isArray(list) ? list.filter(isObject) : [];
  return Object.fromEntries(pairs.flatMap((pair) => (typeof pair.name === "string" && typeof pair.value === "string" ? [[pair.name, pair.value]] : [])));
}

/** The sample project's file the demo opens (test/fixtures/workspace), and the line its comment is on. */
const SAMPLE_PLACE = { file: "src/main.rs", line: 2 } as const;

/** Where the walkthrough's comment goes: the sample's line when the folder has it, else the folder's first file, else none. */
export function commentPlace(folder: string): { file: string; line: number } | null {
  if (fs.existsSync(path.join(folder, SAMPLE_PLACE.file))) return SAMPLE_PLACE;
  const first = fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort()[0];
  return first === undefined ? null : { file: first, line: 1 };
}

/** A short walkthrough of the folder: a heading, a few sentences, one comment on a real line, a diagram. */
export function demoWalkthrough(folder: string): string {
  const place = commentPlace(folder);
  const fence = "```";
  const comment = place
    ? [
        `Its comment sits on [${place.file}:${place.line}](${place.file}:${place.line}); open it from here, then reply in the editor.`,
        "",
        `${fence}comment`,
        `location: ${place.file}:${place.line}`,
        "A comment an agent placed in the code: the walkthrough view lists it, and the editor shows it on this line.",
        fence,
      ]
    : ["The folder has no file yet, so this walkthrough places no comment in the code."];
  return [
    "# A tour of the demo project",
    "",
    "The demo agent presented this walkthrough with the editor's present_walkthrough tool, as a real agent does after writing code or to explain a codebase.",
    "",
    ...comment,
    "",
    "How it got here:",
    "",
    `${fence}mermaid`,
    "flowchart LR",
    "  chat[Chat /walkthrough] --> agent[Demo agent]",
    "  agent -->|present_walkthrough| tools[symposium-editor MCP server]",
    "  tools --> view[Walkthrough view in VS Code]",
    fence,
  ].join("\n");
}

/** Presents the demo walkthrough through the session's editor server; the tool's answer, or a sentence saying why not. */
export async function presentDemoWalkthrough(server: EditorServer | null, folder: string, version: string): Promise<string> {
  if (server === null) return NO_EDITOR_TOOLS;
  try {
    const answer = await callPresentWalkthrough(server, { markdown: demoWalkthrough(folder), baseFolder: folder }, version);
    return `I presented a walkthrough of this project in VS Code, beside the editor. The editor's tools answered:\n\n${answer}`;
  } catch (error) {
    return `I could not present the walkthrough: ${(error as Error).message}. Is the VS Code window that opened this chat still open, with symposium.editorTools.enabled on? Then send /walkthrough again.`;
  }
}

async function callPresentWalkthrough(server: EditorServer, args: { markdown: string; baseFolder: string }, version: string): Promise<string> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "symposium-demo-agent", version });
  await client.connect(await transportFor(server));
  try {
    const result = await client.callTool({ name: "present_walkthrough", arguments: args });
    const text = textOf(result.content);
    if (result.isError === true) throw new Error(text || "present_walkthrough failed");
    return text;
  } finally {
    await client.close();
  }
}

async function transportFor(server: EditorServer) {
  if (server.kind === "http") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  }
  const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  return new StdioClientTransport({ command: server.command, args: server.args, env: { ...getDefaultEnvironment(), ...server.env }, stderr: "ignore" });
}

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content.filter(isObject) : [];
  return blocks.flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : [])).join("\n");
}
