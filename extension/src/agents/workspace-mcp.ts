// A workspace's `.vscode/mcp.json` (VS Code's own format: `servers` by name,
// each `type` stdio or http/sse, and `inputs` asked of the user), read as ACP
// McpServer entries for the agent (docs/extensions.md). The file is the
// project's, so it is checked harder than the user's own settings: a command
// with shell syntax, a list past MAX_WORKSPACE_SERVERS, an address that is not
// http(s), a variable other than ${workspaceFolder} and ${input:…} are refused
// with what to fix, and nothing of a refused server reaches the agent. Without
// `vscode`, so it is tested directly; workspace-mcp-consent.ts asks the user.

import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";

/** The file, relative to a workspace folder. */
export const WORKSPACE_MCP_FILE = ".vscode/mcp.json";
/** More servers than this in one file: none of them is used. */
export const MAX_WORKSPACE_SERVERS = 64;
/** A bigger file is not read. */
export const MAX_WORKSPACE_MCP_BYTES = 256 * 1024;
const MAX_NAME = 200;
const MAX_ARGS = 256;
const MAX_TEXT = 8192;

/** An `inputs` entry: a value asked once (promptString), kept in VS Code's secret storage. */
export interface McpInput {
  id: string;
  description: string;
  password: boolean;
}

/** One server as the file gives it, checked; strings may still hold ${input:…} and ${workspaceFolder}. */
export type WorkspaceServer =
  | { name: string; type: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: "http" | "sse"; url: string; headers: Record<string, string> };

export interface WorkspaceMcp {
  servers: WorkspaceServer[];
  inputs: McpInput[];
  /** What was refused, each a sentence naming the server and what to fix. */
  refused: string[];
}

/** An ACP McpServer, as the conductor takes it (conductor-hooks/src/mcp-servers.ts). */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { type: "http" | "sse"; name: string; url: string; headers: Array<{ name: string; value: string }> };

const INPUT_ID = /^[A-Za-z0-9_.-]{1,100}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,199}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/;
/** What a shell would read as more than a program's name; no shell runs it, but a project that writes it means harm or a mistake. */
const SHELL_SYNTAX = /[;&|`<>\n\r]|\$\(/;
/** The ${…} variables of VS Code's format; only these two are known here. */
const VARIABLE = /\$\{([^}]*)\}/g;
const isOneLine = (text: string): boolean => [...text].every((char) => char >= " " && char !== "\u007f");
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

class Refused extends Error {}

/** The file's text, parsed and checked; `file` names it in the messages. */
export function parseWorkspaceMcp(text: string, file: string): WorkspaceMcp {
  const none = (reason: string): WorkspaceMcp => ({ servers: [], inputs: [], refused: [`${file}: ${reason}`] });
  if (text.length > MAX_WORKSPACE_MCP_BYTES) return none(`larger than ${MAX_WORKSPACE_MCP_BYTES / 1024} KiB; not read`);
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  const [error] = errors;
  if (error) return none(`not JSON (${printParseErrorCode(error.error)} at offset ${error.offset}); fix the file`);
  if (!isObject(value)) return none('not a JSON object; VS Code\'s format is { "servers": { … } }');
  const servers = value.servers ?? {};
  if (!isObject(servers)) return none('"servers" must be an object of servers by name');
  const names = Object.keys(servers);
  if (names.length > MAX_WORKSPACE_SERVERS) return none(`${names.length} servers, more than ${MAX_WORKSPACE_SERVERS}; none is used`);
  const inputs = checkInputs(value.inputs, file);
  const known = new Set(inputs.inputs.map((input) => input.id));
  const result: WorkspaceMcp = { servers: [], inputs: inputs.inputs, refused: inputs.refused };
  for (const name of names) {
    try {
      result.servers.push(checkServer(name, servers[name], known));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      result.refused.push(`${file}: server '${shownName(name)}' refused: ${error.message}`);
    }
  }
  return result;
}

function shownName(name: string): string {
  return [...name].slice(0, 80).join("");
}

function checkInputs(value: unknown, file: string): { inputs: McpInput[]; refused: string[] } {
  if (value === undefined) return { inputs: [], refused: [] };
  if (!Array.isArray(value)) return { inputs: [], refused: [`${file}: "inputs" must be a list; no input is asked`] };
  const inputs: McpInput[] = [];
  const refused: string[] = [];
  for (const [index, entry] of value.slice(0, MAX_WORKSPACE_SERVERS).entries()) {
    const { id, type, description, password } = isObject(entry) ? entry : {};
    if (typeof id !== "string" || !INPUT_ID.test(id)) {
      refused.push(`${file}: inputs[${index}]: "id" must be letters, digits, '_', '.' or '-'`);
    } else if (type !== "promptString") {
      refused.push(`${file}: input '${id}': only "promptString" inputs are asked; the servers that use it are refused`);
    } else {
      inputs.push({ id, description: typeof description === "string" ? description : id, password: password === true });
    }
  }
  return { inputs, refused };
}

function checkServer(name: string, value: unknown, inputs: ReadonlySet<string>): WorkspaceServer {
  if (name.length === 0 || name.length > MAX_NAME || !isOneLine(name)) throw new Refused(`a name must be one line of 1 to ${MAX_NAME} characters`);
  if (!isObject(value)) throw new Refused("not an object");
  const type = value.type ?? (value.url !== undefined ? "http" : "stdio");
  if (type === "stdio") return checkProgram(name, value, inputs);
  if (type === "http" || type === "sse") return checkRemote(name, type, value, inputs);
  throw new Refused(`"type" must be "stdio", "http" or "sse", not ${JSON.stringify(type).slice(0, 40)}`);
}

function checkProgram(name: string, value: Record<string, unknown>, inputs: ReadonlySet<string>): WorkspaceServer {
  if (value.envFile !== undefined) throw new Refused('"envFile" is not read; put the values in "env"');
  const command = text(value.command, '"command"', inputs);
  if (command.trim().length === 0) throw new Refused('"command" must be a program\'s name or path');
  if (command.includes("${input:")) throw new Refused('"command" may not come from an input; name the program in the file');
  if (SHELL_SYNTAX.test(command)) throw new Refused('"command" holds shell syntax (; & | ` < > $( or a line break); name one program, its arguments in "args"');
  const args = value.args ?? [];
  if (!Array.isArray(args) || args.length > MAX_ARGS) throw new Refused(`"args" must be a list of at most ${MAX_ARGS} strings`);
  return {
    name,
    type: "stdio",
    command,
    args: args.map((arg, index) => text(arg, `args[${index}]`, inputs)),
    env: pairs(value.env, '"env"', ENV_NAME, inputs),
  };
}

function checkRemote(name: string, type: "http" | "sse", value: Record<string, unknown>, inputs: ReadonlySet<string>): WorkspaceServer {
  const url = text(value.url, '"url"', inputs);
  if (url.includes("${")) throw new Refused('"url" may not hold variables');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Refused(`"url" is not an address: '${shownName(url)}'`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Refused(`"url" must be http:// or https://, not '${parsed.protocol}'`);
  const headers = pairs(value.headers, '"headers"', HEADER_NAME, inputs);
  if (Object.values(headers).some((header) => /[\r\n]/.test(header))) throw new Refused("a header value holds a line break");
  return { name, type, url, headers };
}

/** A string of at most MAX_TEXT characters, no NUL, whose variables are ${workspaceFolder} or a declared ${input:…}. */
function text(value: unknown, what: string, inputs: ReadonlySet<string>): string {
  if (typeof value !== "string") throw new Refused(`${what} must be a string`);
  if (value.length > MAX_TEXT || value.includes("\0")) throw new Refused(`${what} is longer than ${MAX_TEXT} characters or holds a NUL`);
  for (const [, variable = ""] of value.matchAll(VARIABLE)) {
    if (variable === "workspaceFolder") continue;
    const input = /^input:(.+)$/.exec(variable)?.[1];
    if (input === undefined) throw new Refused(`${what}: only \${workspaceFolder} and \${input:…} are known, not \${${shownName(variable)}}`);
    if (!inputs.has(input)) throw new Refused(`${what}: \${input:${shownName(input)}} is not among the file's "inputs" (promptString)`);
  }
  return value;
}

function pairs(value: unknown, what: string, names: RegExp, inputs: ReadonlySet<string>): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || Object.keys(value).length > MAX_ARGS) throw new Refused(`${what} must be an object of at most ${MAX_ARGS} names and string values`);
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => {
      if (!names.test(key)) throw new Refused(`${what}: '${shownName(key)}' is not a valid name`);
      return [key, text(entry, `${what}.${key}`, inputs)];
    }),
  );
}

/** The input ids a server's strings name, so only those are asked. */
export function inputsUsed(server: WorkspaceServer): string[] {
  const strings = server.type === "stdio" ? [server.command, ...server.args, ...Object.values(server.env)] : [server.url, ...Object.values(server.headers)];
  const ids = strings.flatMap((value) => [...value.matchAll(/\$\{input:([^}]+)\}/g)].flatMap((match) => match[1] ?? []));
  return [...new Set(ids)];
}

/** The server with its variables replaced, as ACP's McpServer: `values` must hold every input it uses. */
export function toAcpServer(server: WorkspaceServer, folder: string, values: ReadonlyMap<string, string>): AcpMcpServer {
  const fill = (value: string): string =>
    value.replace(VARIABLE, (_whole, variable: string) => (variable === "workspaceFolder" ? folder : (values.get(variable.slice("input:".length)) ?? "")));
  const list = (record: Record<string, string>): Array<{ name: string; value: string }> =>
    Object.entries(record).map(([name, value]) => ({ name, value: fill(value) }));
  if (server.type === "stdio") return { name: server.name, command: fill(server.command), args: server.args.map(fill), env: list(server.env) };
  return { type: server.type, name: server.name, url: server.url, headers: list(server.headers) };
}

/** How a server is named in the consent question: its name and what would run or be reached (no input's value). */
export function describeServer(server: WorkspaceServer): string {
  return server.type === "stdio" ? `${server.name}: ${[server.command, ...server.args].join(" ")}` : `${server.name}: ${server.url}`;
}
