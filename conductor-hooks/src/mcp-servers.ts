// The user's own MCP servers for every agent (docs/extensions.md): the config
// file's `mcpServers` and the editor's `symposium.mcpServers` (as
// $SYMPOSIUM_MCP_SERVERS), both lists of ACP McpServer entries, checked here
// and added by an in-process component just in front of the agent to every
// session/new, session/load and session/resume, after what the client and the
// editor put there. An http (or sse) server goes only to an agent whose
// initialize answer advertises mcpCapabilities.http (.sse). The session's answer
// says in its `_meta` which servers the agent was given and which were
// withheld, and why, so a chat can show them. Nothing here runs a program: the
// agent starts its stdio servers itself.

import {
  INITIALIZE,
  SESSION_LOAD,
  SESSION_NEW,
  SESSION_RESUME,
  describeError,
  idJson,
  isObject,
  isRequest,
  type Logger,
  type WireMessage,
} from "../../acp-wire/src/index.js";
import { RUN_CONFIG_ENV, loadConfig } from "./config.js";
import type { InProcessComponent } from "./router.js";

/** The editor's `symposium.mcpServers`, as JSON (extension/src/config.ts sets it). */
export const MCP_SERVERS_ENV = "SYMPOSIUM_MCP_SERVERS";
/** The `_meta` key of a session's answer that lists what the agent was given and what was withheld. */
export const MCP_SERVERS_META = "symposium/mcpServers";
export const MCP_SERVERS_COMPONENT = "mcp-servers";
/** At most this many of the user's servers go to an agent; the rest are refused. */
export const MAX_MCP_SERVERS = 64;
/** At most this many bytes of JSON per entry. */
export const MAX_MCP_SERVER_BYTES = 64 * 1024;

const SETUP_METHODS: ReadonlySet<string> = new Set([SESSION_NEW, SESSION_LOAD, SESSION_RESUME]);
/** An RFC 9110 header name (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Characters no name, command, argument or header value may hold: NUL, and line breaks in a header. */
const hasNul = (text: string): boolean => text.includes("\0");
const hasLineBreak = (text: string): boolean => text.includes("\r") || text.includes("\n");
/** A name of one line, printable: no character below a space. */
const isOneLine = (text: string): boolean => [...text].every((char) => char >= " ");

type Transport = "stdio" | "http" | "sse";

/** A checked entry: the user's object as given (args/env/headers filled in when absent, as ACP requires them). */
export interface UserMcpServer {
  name: string;
  transport: Transport;
  entry: Record<string, unknown>;
}

export interface Refusal {
  name: string;
  reason: string;
}

export interface CheckedMcpServers {
  servers: UserMcpServer[];
  refused: Refusal[];
}

/** What a session's answer says in `_meta["symposium/mcpServers"]`. */
export interface McpServersReport {
  given: string[];
  withheld: Refusal[];
}

/**
 * `lists`, each [value, where it came from], checked in order: a bad entry is
 * refused with what to fix and the others still go; a name given again, and
 * anything past MAX_MCP_SERVERS, is refused.
 */
export function checkMcpServers(lists: Array<[unknown, string]>): CheckedMcpServers {
  const servers: UserMcpServer[] = [];
  const refused: Refusal[] = [];
  for (const [value, where] of lists) {
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      refused.push({
        name: where,
        reason: `${where} must be a list of MCP servers ({ "name", "command", "args", "env" } or { "type": "http", "name", "url", "headers" })`,
      });
      continue;
    }
    value.forEach((entry: unknown, index) => {
      const label = `${where}[${index}]`;
      const checked = checkEntry(entry, label);
      if (typeof checked === "string") return void refused.push({ name: nameOf(entry, label), reason: checked });
      if (servers.some((server) => server.name === checked.name)) {
        return void refused.push({ name: checked.name, reason: `${label}: another server is named '${checked.name}' already; give each a name of its own` });
      }
      if (servers.length >= MAX_MCP_SERVERS) {
        return void refused.push({
          name: checked.name,
          reason: `${label}: more than ${MAX_MCP_SERVERS} MCP servers; only the first ${MAX_MCP_SERVERS} are given`,
        });
      }
      servers.push(checked);
    });
  }
  return { servers, refused };
}

function nameOf(entry: unknown, label: string): string {
  return isObject(entry) && typeof entry.name === "string" && entry.name !== "" && entry.name.length <= 200 ? entry.name : label;
}

/** The entry checked, or what is wrong with it. */
function checkEntry(entry: unknown, label: string): UserMcpServer | string {
  if (!isObject(entry)) return `${label}: an MCP server is an object such as { "name": "github", "command": "github-mcp", "args": [], "env": [] }`;
  const name = entry.name;
  if (typeof name !== "string" || name.trim() === "" || name.length > 200 || !isOneLine(name)) {
    return `${label}: "name" must be a short name of one line, such as "github"`;
  }
  const size = Buffer.byteLength(JSON.stringify(entry));
  if (size > MAX_MCP_SERVER_BYTES) return `${label} (${name}): ${size} bytes of JSON, more than ${MAX_MCP_SERVER_BYTES}; shorten it`;
  const type = entry.type ?? "stdio";
  if (type === "stdio") return checkStdio(entry, name, label);
  if (type === "http" || type === "sse") return checkRemote(entry, name, type, label);
  return `${label} (${name}): "type" must be "http", "sse", or absent for a program (stdio), not ${JSON.stringify(type)}`;
}

function checkStdio(entry: Record<string, unknown>, name: string, label: string): UserMcpServer | string {
  const what = `${label} (${name})`;
  if (typeof entry.command !== "string" || entry.command.trim() === "" || hasNul(entry.command)) {
    return `${what}: "command" must be the program to run (a path or a name on PATH; it is run directly, never through a shell)`;
  }
  const args = entry.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string" && !hasNul(arg))) return `${what}: "args" must be a list of strings`;
  const env = checkPairs(
    entry.env,
    `${what}: "env"`,
    (key) => key !== "" && !key.includes("=") && !hasNul(key),
    (value) => !hasNul(value),
  );
  if (typeof env === "string") return env;
  return { name, transport: "stdio", entry: { ...entry, args, env } };
}

function checkRemote(entry: Record<string, unknown>, name: string, type: "http" | "sse", label: string): UserMcpServer | string {
  const what = `${label} (${name})`;
  const url = typeof entry.url === "string" ? parseUrl(entry.url) : null;
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return `${what}: "url" must be an http:// or https:// address${typeof entry.url === "string" ? `, not '${entry.url.slice(0, 100)}'` : ""}`;
  }
  const headers = checkPairs(
    entry.headers,
    `${what}: "headers"`,
    (key) => HEADER_NAME.test(key),
    (value) => !hasNul(value) && !hasLineBreak(value),
  );
  if (typeof headers === "string") return headers;
  return { name, transport: type, entry: { ...entry, headers } };
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** ACP's `[{ name, value }]` lists (env, headers); absent is none. */
function checkPairs(
  value: unknown,
  what: string,
  nameOk: (name: string) => boolean,
  valueOk: (value: string) => boolean,
): Array<{ name: string; value: string }> | string {
  if (value === undefined) return [];
  const fix = `${what} must be a list of { "name", "value" } strings`;
  if (!Array.isArray(value)) return fix;
  for (const [index, pair] of value.entries()) {
    if (!isObject(pair) || typeof pair.name !== "string" || typeof pair.value !== "string") return `${fix} (entry ${index} is not)`;
    if (!nameOk(pair.name) || !valueOk(pair.value)) return `${what}[${index}]: the name or value '${pair.name.slice(0, 100)}' has characters it cannot hold`;
  }
  return value as Array<{ name: string; value: string }>;
}

/** The user's servers for this chain: the config file's (the one `run` chose) first, then the editor's setting. */
export function userMcpServers(env: NodeJS.ProcessEnv, log: Logger): CheckedMcpServers {
  const lists: Array<[unknown, string]> = [];
  const configPath = env[RUN_CONFIG_ENV];
  if (configPath) {
    try {
      lists.push([loadConfig(configPath)?.mcpServers, `${configPath}: mcpServers`]);
    } catch (error) {
      log(`the MCP servers of ${configPath} are not given to the agent: ${describeError(error)}`);
    }
  }
  const setting = env[MCP_SERVERS_ENV];
  if (setting) lists.push([parseSetting(setting), `symposium.mcpServers ($${MCP_SERVERS_ENV})`]);
  return checkMcpServers(lists);
}

function parseSetting(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return "not JSON";
  }
}

/** The component in front of the agent, or null when the user has no servers and nothing was refused. */
export function mcpServersComponent(env: NodeJS.ProcessEnv, log: Logger): InProcessComponent | null {
  const checked = userMcpServers(env, log);
  if (checked.servers.length === 0 && checked.refused.length === 0) return null;
  for (const refusal of checked.refused) log(`MCP server '${refusal.name}' refused: ${refusal.reason}`);
  return new McpServersInjector(checked, log);
}

/** Adds the servers to each session the agent opens, and says in its answer what the agent was given. */
class McpServersInjector implements InProcessComponent {
  readonly name = MCP_SERVERS_COMPONENT;
  readonly rewrites = SETUP_METHODS;
  readonly observes: ReadonlySet<string> = new Set([INITIALIZE]);
  /** What the agent's initialize answer said it takes; none until it has answered. */
  private takes: ReadonlySet<Transport> = new Set(["stdio"]);
  private initializeId: string | null = null;
  /** Per request id (as the agent has it): the report for its answer. */
  private readonly reports = new Map<string, McpServersReport>();
  private readonly logged = new Set<string>();

  constructor(
    private readonly checked: CheckedMcpServers,
    private readonly log: Logger,
  ) {}

  observe(request: WireMessage): null {
    if (request.method === INITIALIZE && isRequest(request)) this.initializeId = idJson(request.id);
    return null;
  }

  rewriteDownstream(message: WireMessage): WireMessage | null {
    if (!isRequest(message) || !isObject(message.params)) return null;
    const params = message.params;
    if (params.mcpServers !== undefined && !Array.isArray(params.mcpServers)) return null; // malformed: the agent's to refuse
    const theirs: unknown[] = Array.isArray(params.mcpServers) ? params.mcpServers : [];
    const names = new Set(theirs.flatMap((server) => (isObject(server) && typeof server.name === "string" ? [server.name] : [])));
    const withheld: Refusal[] = this.checked.refused.map((refusal) => ({ ...refusal }));
    const added: Array<Record<string, unknown>> = [];
    for (const server of this.checked.servers) {
      const reason = names.has(server.name) ? "the client gave a server of that name; the client's is kept" : this.unsupported(server);
      if (reason === null) added.push(server.entry);
      else withheld.push({ name: server.name, reason });
    }
    this.reports.set(idJson(message.id), { given: [...names, ...added.map((entry) => entry.name as string)], withheld });
    return added.length === 0 ? null : { ...message, params: { ...params, mcpServers: [...theirs, ...added] } };
  }

  /** Why the agent cannot take `server`, or null when it can. */
  private unsupported(server: UserMcpServer): string | null {
    if (this.takes.has(server.transport)) return null;
    const reason = `the agent does not take ${server.transport} MCP servers (its initialize answer has no agentCapabilities.mcpCapabilities.${server.transport})`;
    if (!this.logged.has(server.name)) {
      this.logged.add(server.name);
      this.log(`MCP server '${server.name}' withheld: ${reason}`);
    }
    return reason;
  }

  reviseAnswer(answer: WireMessage): WireMessage | null {
    const id = idJson(answer.id);
    if (id === this.initializeId) {
      this.initializeId = null;
      this.takes = transportsOf(answer);
      return null;
    }
    const report = this.reports.get(id);
    if (report === undefined) return null;
    this.reports.delete(id);
    if (!("result" in answer) || !isObject(answer.result)) return null;
    const meta = isObject(answer.result._meta) ? answer.result._meta : {};
    return { ...answer, result: { ...answer.result, _meta: { ...meta, [MCP_SERVERS_META]: report } } };
  }
}

/** The transports an initialize answer says the agent takes: stdio always (ACP requires it), http and sse when advertised. */
export function transportsOf(answer: WireMessage): ReadonlySet<Transport> {
  const result = "result" in answer && isObject(answer.result) ? answer.result : {};
  const capabilities = isObject(result.agentCapabilities) && isObject(result.agentCapabilities.mcpCapabilities) ? result.agentCapabilities.mcpCapabilities : {};
  return new Set<Transport>(["stdio", ...(capabilities.http === true ? ["http" as const] : []), ...(capabilities.sse === true ? ["sse" as const] : [])]);
}
