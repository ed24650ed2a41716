// ~/.symposium/config.jsonc (docs/conductor.md): JSON with comments, parsed with
// jsonc-parser; `agent` is split into words as the platform's programs split a
// command line: on POSIX as a shell would (shell-quote), but never run through
// a shell and never variable-expanded, as the Rust conductor's shell-words
// does; on Windows as CommandLineToArgvW does, so `C:\tools\agent.exe` keeps
// its backslashes (docs/platforms.md).

import * as fs from "node:fs";
import * as path from "node:path";
import { applyEdits, modify, parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import { parse as parseShellWords } from "shell-quote";
import { isObject } from "../../acp-wire/src/index.js";
import { joinWindowsCommandLine, splitWindowsCommandLine } from "../../acp-wire/src/windows-command-line.js";
import type { ComponentSpec } from "./connections.js";
import { AgentFormatError, parseAgentConfig, type AgentConfig } from "./registry-format.js";

export { CONFIG_ENV, defaultConfigPath } from "./config-path.js";
/** Set by `run` for everything it starts: the config file the chain came from (the demo agent's hint says so). */
export const RUN_CONFIG_ENV = "SYMPOSIUM_RUN_CONFIG";

/** Proxies built into Symposium's Rust conductor (symposium-acp-agent). */
export const RUST_BUILTIN_PROXIES = ["sparkle", "ferris", "cargo"] as const;

export interface ProxyEntry {
  name: string;
  enabled: boolean;
  command?: string;
  /** Variables the extension starts with (an installed extension's, extensions-add.ts). */
  env?: Record<string, string>;
}

export interface SymposiumConfig {
  /** The agent's command line (the first format, still read); "" when "agent" is an object. */
  agent: string;
  /** "agent" when it is an AgentConfig (or just { "id" }) instead: registry.ts checks and resolves it. */
  agentConfig?: Record<string, unknown>;
  /** AgentConfigs the user can choose by id: custom ones, and registry ones imported here (`_source: "registry"`). */
  agents: AgentConfig[];
  /** Where the agent registry is fetched from; "" for the shipped snapshot only. */
  registryUrl?: string;
  proxies: ProxyEntry[];
  /** The user's MCP servers for every session, as written: mcp-servers.ts checks each entry, so one bad entry refuses only itself. */
  mcpServers?: unknown;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the config file; null when it does not exist. */
export function loadConfig(file: string): SymposiumConfig | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): SymposiumConfig {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new ConfigError(`${file}:${line}:${column}: ${describeParseError(printParseErrorCode(first.error))}`);
  }
  if (!isObject(value)) throw new ConfigError(`${file}: the configuration must be a JSON object`);
  const agent = value.agent;
  if (!(typeof agent === "string" && agent.trim() !== "") && !isObject(agent)) {
    throw new ConfigError(
      `${file}: "agent" must be the command line of your agent, e.g. "npx -y @agentclientprotocol/claude-agent-acp", ` +
        `or an agent object such as { "id": "gemini" } (\`symposium-conductor registry list\` shows the ids)`,
    );
  }
  if (value.registryUrl !== undefined && typeof value.registryUrl !== "string") throw new ConfigError(`${file}: "registryUrl" must be a URL, or "" for none`);
  return {
    ...(typeof agent === "string" ? { agent } : { agent: "", agentConfig: agent }),
    agents: parseAgents(value.agents, file),
    ...(value.registryUrl === undefined ? {} : { registryUrl: value.registryUrl }),
    proxies: parseProxies(value.proxies, file),
    ...(value.mcpServers === undefined ? {} : { mcpServers: value.mcpServers }),
  };
}

function parseAgents(value: unknown, file: string): AgentConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${file}: "agents" must be a list of agent objects ({ "id", "distribution" })`);
  try {
    return value.map((entry, index) => parseAgentConfig(entry, `${file}: agents[${index}]`));
  } catch (error) {
    if (error instanceof AgentFormatError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * Sets `key` (a JSON path) in the config file to `value`, keeping its comments
 * and everything else; writes a new file (0600) when there is none. Whole or
 * not at all: a conductor starting meanwhile reads the old file or the new one.
 */
export function updateConfigFile(file: string, key: Array<string | number>, value: unknown): void {
  editConfigFile(file, (text) => applyEdits(text, modify(text, key, value, { formattingOptions: CONFIG_FORMAT })));
}

/** How an edit lays out what it adds: as the setup agent writes the file. */
export const CONFIG_FORMAT = { insertSpaces: true, tabSize: 2, eol: "\n" } as const;

/**
 * Replaces the config file's text with `edit`'s (jsonc-parser's modify and applyEdits, which keep
 * comments and layout), refusing an edit that would not parse; written whole or not at all.
 */
export function editConfigFile(file: string, edit: (text: string) => string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
    text = "{\n}\n";
  }
  const edited = edit(text);
  parseConfigShape(edited, file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, edited, { mode: 0o600 });
  try {
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** The edit must leave a file that parses (an "agent" may still be missing in a new one). */
function parseConfigShape(text: string, file: string): void {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) throw new ConfigError(`${file}: the edited file would not parse; it was left as it was`);
}

function parseProxies(value: unknown, file: string): ProxyEntry[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${file}: "proxies" must be a list of { "name", "enabled" } entries`);
  return value.map((entry, index) => {
    if (!isObject(entry) || typeof entry.name !== "string" || entry.name === "") {
      throw new ConfigError(`${file}: proxies[${index}] needs a "name"`);
    }
    if (entry.command !== undefined && typeof entry.command !== "string") {
      throw new ConfigError(`${file}: proxies[${index}].command must be a command line string`);
    }
    const env = parseProxyEnv(entry.env, `${file}: proxies[${index}].env`);
    return { name: entry.name, enabled: entry.enabled !== false, ...(entry.command ? { command: entry.command } : {}), ...(env ? { env } : {}) };
  });
}

function parseProxyEnv(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === "string")) {
    throw new ConfigError(`${where} must be an object of strings, such as { "LOG": "info" }`);
  }
  return value as Record<string, string>;
}

/** The components a config describes: enabled proxies in order, then the agent (`agent` when the config's is an AgentConfig, resolved by registry.ts). */
export function chainFromConfig(config: SymposiumConfig, file: string, agent?: ComponentSpec): ComponentSpec[] {
  const proxies = config.proxies
    .filter((entry) => entry.enabled)
    .map((entry) => {
      if (entry.command === undefined) throw new ConfigError(unrunnableProxy(entry.name, file));
      return { name: entry.name, command: splitCommandLine(entry.command, `proxy '${entry.name}'`), ...(entry.env ? { env: entry.env } : {}) };
    });
  if (config.agentConfig !== undefined && agent === undefined) throw new ConfigError(`${file}: the agent object must be resolved first`);
  return [...proxies, agent ?? { name: "agent", command: splitCommandLine(config.agent, "agent") }];
}

function unrunnableProxy(name: string, file: string): string {
  const builtin = (RUST_BUILTIN_PROXIES as readonly string[]).includes(name);
  const what = builtin
    ? `'${name}' is built into Symposium's Rust conductor (symposium-acp-agent), and this conductor cannot run it`
    : `this conductor does not know a proxy named '${name}'`;
  return (
    `${file}: ${what}. Either start without it (\`${disableCommand(name)}\`), give it a "command" that starts it as an ACP proxy, ` +
    `or run the Rust conductor instead (in VS Code: set symposium.acpAgentPath to symposium-acp-agent).`
  );
}

/** How a user starts without the extension `name` (extensions-cli.ts). */
export function disableCommand(name: string): string {
  return `symposium-conductor extensions disable ${joinCommandLine([name])}`;
}

/** Splits a command line into words by the platform's rules, refusing what only a shell could do. */
export function splitCommandLine(commandLine: string, what: string, platform: NodeJS.Platform = process.platform): string[] {
  const result = platform === "win32" ? splitWindowsWords(commandLine, what) : splitPosixWords(commandLine, what);
  if (result.length === 0) throw new ConfigError(`${what}: the command line is empty`);
  return result;
}

/** Words joined into a command line that splitCommandLine reads back as the same words on `platform`. */
export function joinCommandLine(words: readonly string[], platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? joinWindowsCommandLine(words) : words.map(posixWord).join(" ");
}

/** A word as a POSIX shell reads it back, quoted only when it must be (shown to users: no needless `\@`). */
function posixWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Windows: CommandLineToArgvW's words; `|`, `&`, `<` or `>` outside quotes would need cmd.exe, which is not run. */
function splitWindowsWords(commandLine: string, what: string): string[] {
  const unquoted = commandLine.replace(/"[^"]*"?/g, "");
  const operator = /[|&<>]/.exec(unquoted);
  if (operator) throw new ConfigError(shellSyntax(what, operator[0]));
  return splitWindowsCommandLine(commandLine);
}

function splitPosixWords(commandLine: string, what: string): string[] {
  const words = parseShellWords(commandLine, (name) => `$${name}`).map((entry) => {
    if (typeof entry === "string") return entry;
    if ("op" in entry && entry.op === "glob") return entry.pattern;
    if ("comment" in entry) return null;
    throw new ConfigError(shellSyntax(what, "op" in entry ? entry.op : "?"));
  });
  return words.filter((word): word is string => word !== null);
}

function shellSyntax(what: string, operator: string): string {
  return `${what}: '${operator}' is shell syntax; the command is run directly, without a shell. Wrap it in a script if you need pipes or redirection.`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function describeParseError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
