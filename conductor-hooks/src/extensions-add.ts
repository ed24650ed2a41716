// What `extensions add <spec>` writes into the config's `proxies`: a built-in's
// name (run by Symposium's Rust conductor), or a command line this conductor
// runs, found or installed now through the agent registry's own path
// (registry.ts resolveAgent: npx, pipx, cargo installs into the cache, binary
// downloads, each checked by registry-format.ts as an agent's would be). The
// command is resolved once, here, so a conversation starts it without
// installing anything; `source` records what was asked for.

import * as fs from "node:fs";
import * as path from "node:path";
import type { Logger } from "../../acp-wire/src/index.js";
import { ConfigError, RUST_BUILTIN_PROXIES, joinCommandLine, loadConfig } from "./config.js";
import { EXTENSION_NAME } from "./extensions-config.js";
import { AgentFormatError, parseAgentConfig, type AgentConfig, type Distribution } from "./registry-format.js";
import type { RegistryContext } from "./registry.js";

/** An extension's JSON at a URL is small: more is refused unread. */
export const MAX_EXTENSION_JSON_BYTES = 256 * 1024;

export const ADD_KINDS =
  "a built-in (sparkle, ferris, cargo), npx:<package>, pipx:<package>, cargo:<crate>[@<version>], acp:<registry id>, " +
  "an http(s) URL of an extension's JSON, or the path of an executable";

export interface AddContext {
  configPath: string;
  /** Where a relative executable path is resolved from. */
  cwd: string;
  log: Logger;
  env: NodeJS.ProcessEnv;
  selfCommand: (args: string[]) => string[];
}

/** The proxies entry for `spec`; `name` overrides the one derived from it. */
export async function extensionEntry(spec: string, name: string | undefined, context: AddContext): Promise<Record<string, unknown> & { name: string }> {
  if ((RUST_BUILTIN_PROXIES as readonly string[]).includes(spec)) {
    if (name !== undefined && name !== spec) throw new ConfigError(`'${spec}' is a built-in: its name is '${spec}'`);
    return { name: spec, enabled: true };
  }
  const kind = /^(npx|pipx|cargo|acp):(.*)$/s.exec(spec);
  if (kind !== null) return packaged(kind[1] as PackageKind, kind[2]!, spec, name, context);
  if (/^https?:\/\//i.test(spec)) return fromUrl(spec, name, context);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw new ConfigError(`'${spec}': an extension's URL must be http:// or https://`);
  return executable(spec, name, context);
}

type PackageKind = "npx" | "pipx" | "cargo" | "acp";

async function packaged(kind: PackageKind, what: string, spec: string, name: string | undefined, context: AddContext) {
  if (what.trim() === "")
    throw new ConfigError(`'${spec}': name the ${kind === "acp" ? "registry id" : kind === "cargo" ? "crate" : "package"} after '${kind}:'`);
  if (kind === "acp") return fromAgent(await registryAgent(what, context), spec, name, context);
  const distribution: Distribution = kind === "cargo" ? { cargo: crateOf(what) } : { [kind]: { package: what } };
  const id = checkedName(name ?? defaultName(kind, what), spec);
  return fromAgent(checkedAgent({ id, distribution }, spec), spec, id, context);
}

function crateOf(what: string): { crate: string; version?: string } {
  const at = what.indexOf("@");
  return at < 0 ? { crate: what } : { crate: what.slice(0, at), version: what.slice(at + 1) };
}

/** npx:@scope/tool@1.2 → tool; pipx:tool==1.0 → tool; cargo:tool@1 → tool; a local folder → its name. */
function defaultName(kind: Exclude<PackageKind, "acp">, what: string): string {
  if (kind === "cargo") return crateOf(what).crate;
  if (kind === "pipx") return path.basename(what.split(/[<>=!~\s[;]/)[0]!);
  const bare = what.startsWith("@") ? what.slice(what.indexOf("/") + 1) : path.basename(what);
  return bare.split("@")[0]!;
}

function checkedName(name: string, spec: string): string {
  if (EXTENSION_NAME.test(name)) return name;
  throw new ConfigError(`'${spec}': '${name}' cannot be an extension's name (letters, digits, '.', '_' or '-'); give one with --name`);
}

/** The AgentConfig checked as the registry's and the config's agents are: a package name that is an option, a bad crate, are refused. */
function checkedAgent(value: unknown, spec: string): AgentConfig {
  try {
    return parseAgentConfig(value, `'${spec}'`);
  } catch (error) {
    if (error instanceof AgentFormatError) throw new ConfigError(error.message);
    throw error;
  }
}

/** The entry that starts `agent` (installing it now when it is a crate or a download). */
async function fromAgent(agent: AgentConfig, spec: string, name: string | undefined, context: AddContext) {
  const id = checkedName(name ?? agent.id, spec);
  const { resolveAgent } = await import("./registry.js");
  const spawn = await resolveAgent({ ...agent, id }, registryContext(context));
  const env = Object.keys(spawn.env).length > 0 ? { env: spawn.env } : {};
  return { name: id, enabled: true, command: joinCommandLine([spawn.command, ...spawn.args]), ...env, source: spec };
}

function registryContext(context: AddContext): RegistryContext {
  return {
    configPath: context.configPath,
    config: loadConfig(context.configPath),
    extraAgents: [],
    selfCommand: context.selfCommand,
    log: context.log,
    env: context.env,
  };
}

/** An id the ACP registry lists (the live one, else the shipped snapshot). */
async function registryAgent(id: string, context: AddContext): Promise<AgentConfig> {
  const { registryAgents, registryUrl } = await import("./registry.js");
  const registry = await registryAgents(registryUrl(loadConfig(context.configPath), context.env), context.log);
  const agent = registry.agents.find((entry) => entry.id === id);
  if (agent === undefined)
    throw new ConfigError(`the ACP registry (${registry.from}) lists no '${id}'; \`symposium-conductor registry list\` shows what it has`);
  return agent;
}

/**
 * An extension's JSON (an AgentConfig: id, distribution) at an http(s) URL, read up to
 * MAX_EXTENSION_JSON_BYTES. Like a registry, it may name packages and downloads only, never a
 * program already on this machine.
 */
async function fromUrl(url: string, name: string | undefined, context: AddContext) {
  const { readLimited } = await import("./registry.js");
  let text: string;
  try {
    text = await readLimited(
      url,
      MAX_EXTENSION_JSON_BYTES,
      () => new ConfigError(`${url}: more than ${MAX_EXTENSION_JSON_BYTES} bytes; refused, nothing installed`),
    );
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${url} cannot be read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`${url} is not JSON: an extension's JSON is an object with "id" and "distribution"`);
  }
  const agent = checkedAgent(value, url);
  if (agent.distribution.local || agent.distribution.symposium) {
    throw new ConfigError(`${url} names a program on this machine ("local"); an extension's JSON may only name packages and downloads. Nothing was run`);
  }
  return fromAgent(agent, url, name, context);
}

/** The path of a program that speaks ACP as a proxy: it must be there, a file, and executable. */
function executable(spec: string, name: string | undefined, context: AddContext) {
  const program = path.resolve(context.cwd, spec);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(program);
  } catch {
    throw new ConfigError(`'${spec}' is neither an extension kind nor a program: ${program} does not exist. An extension is ${ADD_KINDS}`);
  }
  if (!stat.isFile()) throw new ConfigError(`${program} is not a file: give the path of the extension's program`);
  if (process.platform !== "win32") {
    try {
      fs.accessSync(program, fs.constants.X_OK);
    } catch {
      throw new ConfigError(`${program} is not executable: make it so (chmod +x), or add it as a command in the config file`);
    }
  }
  const id = checkedName(name ?? path.basename(program).replace(/\.(exe|cmd|bat|sh|js|mjs|py)$/i, ""), spec);
  return { name: id, enabled: true, command: joinCommandLine([program]), source: spec };
}
