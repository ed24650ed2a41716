// The seed's configuration agent: with no config file, `run` starts this
// instead of an AI agent. It lists the known agents; a valid number writes the
// config file (never over one that appeared meanwhile); anything else repeats
// the list.

import * as fs from "node:fs";
import * as path from "node:path";
import { agent, type AgentApp } from "@agentclientprotocol/sdk";
import { quote } from "shell-quote";
import { RUST_BUILTIN_PROXIES } from "./config.js";
import { PROTOCOL_VERSION, serveOnStdio, streamText, userText } from "./stdio-agent.js";

export interface KnownAgent {
  name: string;
  command: string;
}

/** The seed's four, in its order. */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  { name: "Claude Code", command: "npx -y @zed-industries/claude-code-acp" },
  { name: "Gemini CLI", command: "npx -y -- @google/gemini-cli@latest --experimental-acp" },
  { name: "Codex", command: "npx -y @zed-industries/codex-acp" },
  { name: "Kiro CLI", command: "kiro-cli-chat acp" },
];

export interface ConfigurationAgentOptions {
  configPath: string;
  /** Program and arguments that start this package's demo agent. */
  demoAgentCommand: string[];
  version: string;
}

export function choices(options: ConfigurationAgentOptions): KnownAgent[] {
  return [
    ...KNOWN_AGENTS,
    { name: "Built-in demo agent (offline: shows what it receives)", command: quote(options.demoAgentCommand) },
  ];
}

export function menu(options: ConfigurationAgentOptions): string {
  const list = choices(options);
  return [
    "Welcome to Symposium!",
    `No configuration found at ${options.configPath}. Let's set up your AI agent.`,
    "",
    "Which agent would you like to use?",
    ...list.map((choice, index) => `${index + 1}. ${choice.name}`),
    "",
    `Type a number (1-${list.length}) to select:`,
  ].join("\n");
}

/** Writes the config for `choice`; false when a file appeared at the path meanwhile. */
export function writeConfig(configPath: string, choice: KnownAgent): boolean {
  fs.mkdirSync(path.dirname(configPath), { recursive: true, mode: 0o700 });
  const proxies = RUST_BUILTIN_PROXIES.map((name) => `    { "name": ${JSON.stringify(name)}, "enabled": false }`).join(",\n");
  const text = `{
  // ${choice.name}. The command line is split into words like a shell would, and run without a shell.
  "agent": ${JSON.stringify(choice.command)},
  // Extensions. sparkle, ferris and cargo are built into Symposium's Rust conductor
  // (symposium-acp-agent); the TypeScript conductor cannot run them, so they start disabled.
  // An entry with a "command" is started as an ACP proxy by either conductor.
  "proxies": [
${proxies}
  ]
}
`;
  try {
    fs.writeFileSync(configPath, text, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

export function answer(input: string, options: ConfigurationAgentOptions): string {
  const list = choices(options);
  const number = /^\d+$/.test(input) ? Number(input) : Number.NaN;
  const choice = list[number - 1];
  if (choice === undefined) return menu(options);
  if (!writeConfig(options.configPath, choice)) {
    return `A configuration file appeared at ${options.configPath} meanwhile; it was left as it is. Start a new session to use it.`;
  }
  return `Saved: ${choice.name} is your agent (${options.configPath}).\nStart a new session to talk to it.`;
}

export function configurationAgent(options: ConfigurationAgentOptions): AgentApp {
  let sessions = 0;
  return agent()
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {},
      agentInfo: { name: "symposium-configuration", title: "Symposium setup", version: options.version },
    }))
    .onRequest("session/new", () => ({ sessionId: `setup-${++sessions}` }))
    .onNotification("session/cancel", () => {})
    .onRequest("session/prompt", async ({ params, client }) => {
      await streamText(client, params.sessionId, answer(userText(params.prompt), options));
      return { stopReason: "end_turn" };
    });
}

export async function runConfigurationAgent(options: ConfigurationAgentOptions): Promise<void> {
  await serveOnStdio(configurationAgent(options));
}
