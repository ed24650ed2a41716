// Symposium's AgentConfig (its design's "Agent Registry" chapter) and the ACP agent registry's
// file (agentclientprotocol/registry FORMAT.md), checked field by field. What
// a registry or a config says ends up as directory names, URLs to download
// and programs to run, so every string that becomes a path is held to a
// narrow pattern here, before anything is fetched or written.

import { isObject } from "../../acp-wire/src/index.js";

export interface LocalDistribution {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}
export interface SymposiumDistribution {
  subcommand: string;
  args?: string[];
}
/** npx, pipx and the registry's uvx: a package, optionally the command inside it to run. */
export interface PackageDistribution {
  package: string;
  cmd?: string;
  args?: string[];
  env?: Record<string, string>;
}
export interface CargoDistribution {
  crate: string;
  version?: string;
  binary?: string;
  args?: string[];
}
export interface BinaryTarget {
  archive: string;
  cmd: string;
  args?: string[];
  env?: Record<string, string>;
  /** Hex SHA-256 of the archive, when the registry gives one. */
  sha256?: string;
}
export interface Distribution {
  local?: LocalDistribution;
  symposium?: SymposiumDistribution;
  npx?: PackageDistribution;
  pipx?: PackageDistribution;
  uvx?: PackageDistribution;
  cargo?: CargoDistribution;
  binary?: Record<string, BinaryTarget>;
}

export interface AgentConfig {
  id: string;
  name?: string;
  version?: string;
  description?: string;
  distribution: Distribution;
  /** Imported from the registry (updated on sync) or written by the user (never touched); "custom" if omitted. */
  _source?: "registry" | "custom";
  [other: string]: unknown;
}

export interface RegistryFile {
  agents: AgentConfig[];
}

export class AgentFormatError extends Error {
  override name = "AgentFormatError";
}

/** The registry's platform keys (FORMAT.md, and the table of Symposium's agent registry design); null where it has none. */
export function platformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | null {
  const os = { darwin: "darwin", linux: "linux", win32: "windows" }[platform as string];
  const cpu = { arm64: "aarch64", x64: "x86_64" }[arch];
  return os && cpu ? `${os}-${cpu}` : null;
}

/** The binary target this platform would install, when a binary is what resolution picks (no earlier distribution). */
export function binaryTargetHere(agent: AgentConfig): BinaryTarget | undefined {
  const d = agent.distribution;
  if (d.local || d.symposium || d.npx || d.pipx || d.uvx || d.cargo) return undefined;
  const key = platformKey();
  return key === null ? undefined : d.binary?.[key];
}

/** Said to the user wherever an agent is offered whose download here has no checksum to check. */
export const UNVERIFIED_DOWNLOAD = "download not verified: the registry gives no SHA-256";

/** An agent's description as pickers show it: with UNVERIFIED_DOWNLOAD first when that applies. */
export function pickerDescription(agent: AgentConfig): string | undefined {
  const target = binaryTargetHere(agent);
  if (target === undefined || target.sha256 !== undefined) return agent.description;
  const note = UNVERIFIED_DOWNLOAD[0]!.toUpperCase() + UNVERIFIED_DOWNLOAD.slice(1);
  return agent.description === undefined ? note : `${note} · ${agent.description}`;
}

const MAX_AGENTS = 1_000;
const MAX_STRING = 4_096;
const MAX_ARGS = 256;
/** Ids and versions become directory names in the cache: no separators, no "..", no leading dot. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A program inside a package (npx's `cmd`: npm 10 runs it through a shell), or a cargo binary: a plain name. */
const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const BINARY_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SHA256 = /^[0-9a-fA-F]{64}$/;
const PLATFORM = /^[a-z0-9]+-[a-z0-9_]+$/;

export function parseRegistry(value: unknown, where: string): RegistryFile {
  if (!isObject(value) || !Array.isArray(value.agents)) throw new AgentFormatError(`${where}: expected an object with an "agents" list`);
  if (value.agents.length > MAX_AGENTS) throw new AgentFormatError(`${where}: ${value.agents.length} agents is more than the ${MAX_AGENTS} accepted`);
  const agents = value.agents.map((entry, index) => parseAgentConfig(entry, `${where}: agents[${index}]`));
  const seen = new Set<string>();
  for (const agent of agents) {
    if (seen.has(agent.id)) throw new AgentFormatError(`${where}: the id '${agent.id}' appears twice`);
    seen.add(agent.id);
    // A registry names packages and downloads; a program already on this machine is the user's to name.
    if (agent.distribution.local || agent.distribution.symposium) {
      throw new AgentFormatError(
        `${where}: '${agent.id}' names a local command; a registry may only name packages and downloads (npx, pipx, uvx, cargo, binary)`,
      );
    }
    checkRegistryEnv(agent, `${where} ('${agent.id}')`);
  }
  return { agents };
}

/** An AgentConfig, checked; unknown fields are kept as they are (the registry's icon, authors…). */
export function parseAgentConfig(value: unknown, where: string): AgentConfig {
  if (!isObject(value)) throw new AgentFormatError(`${where}: an agent must be an object with "id" and "distribution"`);
  const id = text(value.id, `${where}.id`);
  if (!ID.test(id)) throw new AgentFormatError(`${where}.id: '${id}' must be letters, digits, '.', '_' or '-' (it names a folder)`);
  const at = `${where} ('${id}')`;
  for (const field of ["name", "description"] as const) if (value[field] !== undefined) text(value[field], `${at}.${field}`);
  const version = value.version === undefined ? undefined : text(value.version, `${at}.version`);
  if (version !== undefined && !VERSION.test(version)) {
    throw new AgentFormatError(`${at}.version: '${version}' must be letters, digits, '.', '_', '+' or '-' (it names a folder)`);
  }
  if (value._source !== undefined && value._source !== "registry" && value._source !== "custom") {
    throw new AgentFormatError(`${at}._source: must be "registry" or "custom"`);
  }
  const agent: AgentConfig = { ...value, id, distribution: parseDistribution(value.distribution, `${at}.distribution`) };
  // An entry imported from a registry (saved by an older build, say) is held to the registry's rules.
  if (agent._source === "registry") checkRegistryEnv(agent, at, ` To set it yourself, make the entry your own ("_source": "custom").`);
  return agent;
}

/**
 * Variables that choose which program runs, what it loads, or where its tools
 * fetch from: a registry names a package, never these (a user's own "local"
 * entry may). Compared in upper case: Windows' variables ignore case.
 */
const RESERVED_ENV = new Set([
  "PATH",
  "PATHEXT",
  "COMSPEC",
  "SHELL",
  "HOME",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "TMPDIR",
  "TMP",
  "TEMP",
  "BASH_ENV",
  "ENV",
  "ZDOTDIR",
  "IFS",
  "PS4",
  "PROMPT_COMMAND",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "NODE_TLS_REJECT_UNAUTHORIZED",
  "ELECTRON_RUN_AS_NODE",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONSTARTUP",
  "PYTHONUSERBASE",
  "PERL5LIB",
  "PERL5OPT",
  "PERLLIB",
  "RUBYLIB",
  "RUBYOPT",
  "GEM_HOME",
  "GEM_PATH",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "DOTNET_STARTUP_HOOKS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
]);
const RESERVED_ENV_PREFIXES = [
  "LD_",
  "DYLD_",
  "NPM_CONFIG_",
  "YARN_",
  "PNPM_",
  "COREPACK_",
  "PIP_",
  "PIPX_",
  "UV_",
  "CARGO_",
  "RUSTUP_",
  "RUSTC",
  "GIT_",
  "XDG_",
  "SYMPOSIUM_",
];

function checkRegistryEnv(agent: AgentConfig, where: string, hint = ""): void {
  for (const { field, env } of distributionEnvs(agent.distribution)) {
    for (const name of Object.keys(env)) {
      const upper = name.toUpperCase();
      if (RESERVED_ENV.has(upper) || RESERVED_ENV_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
        throw new AgentFormatError(
          `${where}.distribution.${field}.env: a registry may not set ${name} (it would change which program runs or what it loads).${hint}`,
        );
      }
    }
  }
}

function distributionEnvs(d: Distribution): Array<{ field: string; env: Record<string, string> }> {
  const found: Array<{ field: string; env: Record<string, string> }> = [];
  for (const kind of ["local", "npx", "pipx", "uvx"] as const) {
    const env = d[kind]?.env;
    if (env) found.push({ field: kind, env });
  }
  for (const [platform, target] of Object.entries(d.binary ?? {})) if (target.env) found.push({ field: `binary.${platform}`, env: target.env });
  return found;
}

function parseDistribution(value: unknown, where: string): Distribution {
  if (!isObject(value)) throw new AgentFormatError(`${where}: must be an object such as { "npx": { "package": "…" } }`);
  const result: Distribution = {};
  if (value.local !== undefined) result.local = parseLocal(value.local, `${where}.local`);
  if (value.symposium !== undefined) result.symposium = parseSymposium(value.symposium, `${where}.symposium`);
  for (const kind of ["npx", "pipx", "uvx"] as const) {
    if (value[kind] !== undefined) result[kind] = parsePackage(value[kind], `${where}.${kind}`);
  }
  if (value.cargo !== undefined) result.cargo = parseCargo(value.cargo, `${where}.cargo`);
  if (value.binary !== undefined) result.binary = parseBinary(value.binary, `${where}.binary`);
  return result;
}

function parseLocal(value: unknown, where: string): LocalDistribution {
  const entry = object(value, where);
  return { command: text(entry.command, `${where}.command`), ...argsAndEnv(entry, where) };
}

function parseSymposium(value: unknown, where: string): SymposiumDistribution {
  const entry = object(value, where);
  const subcommand = text(entry.subcommand, `${where}.subcommand`);
  if (!/^[a-z][a-z0-9-]*$/.test(subcommand)) throw new AgentFormatError(`${where}.subcommand: '${subcommand}' is not a subcommand name`);
  return { subcommand, ...argsAndEnv(entry, where) };
}

function parsePackage(value: unknown, where: string): PackageDistribution {
  const entry = object(value, where);
  const name = text(entry.package, `${where}.package`);
  // A package spec starting with "-" would be read as an option by npx/pipx/uvx.
  if (name.startsWith("-")) throw new AgentFormatError(`${where}.package: '${name}' is not a package name`);
  const cmd = entry.cmd === undefined ? undefined : text(entry.cmd, `${where}.cmd`);
  if (cmd !== undefined && !PROGRAM_NAME.test(cmd)) {
    throw new AgentFormatError(`${where}.cmd: '${cmd}' is not a program name (letters, digits, '.', '_' and '-')`);
  }
  return { package: name, ...(cmd === undefined ? {} : { cmd }), ...argsAndEnv(entry, where) };
}

function parseCargo(value: unknown, where: string): CargoDistribution {
  const entry = object(value, where);
  const crate = text(entry.crate, `${where}.crate`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(crate)) throw new AgentFormatError(`${where}.crate: '${crate}' is not a crate name`);
  const result: CargoDistribution = { crate, ...argsAndEnv(entry, where) };
  if (entry.version !== undefined) result.version = checkedVersion(text(entry.version, `${where}.version`), `${where}.version`);
  if (entry.binary !== undefined) result.binary = checkedBinaryName(text(entry.binary, `${where}.binary`), `${where}.binary`);
  delete (result as { env?: unknown }).env;
  return result;
}

/** A crate version as a folder name (the registry's, or crates.io's `max_stable_version`). */
export function checkedVersion(version: string, where: string): string {
  if (!VERSION.test(version)) throw new AgentFormatError(`${where}: '${version}' is not a version`);
  return version;
}

/** A cargo binary's name as a file name (the registry's, or crates.io's `bin_names`). */
export function checkedBinaryName(binary: string, where: string): string {
  if (!BINARY_NAME.test(binary)) throw new AgentFormatError(`${where}: '${binary}' is not a binary name`);
  return binary;
}

function parseBinary(value: unknown, where: string): Record<string, BinaryTarget> {
  const targets = object(value, where);
  const result: Record<string, BinaryTarget> = {};
  for (const [platform, target] of Object.entries(targets)) {
    if (!PLATFORM.test(platform)) throw new AgentFormatError(`${where}: '${platform}' is not a platform key such as linux-x86_64`);
    result[platform] = parseBinaryTarget(target, `${where}.${platform}`);
  }
  return result;
}

function parseBinaryTarget(value: unknown, where: string): BinaryTarget {
  const entry = object(value, where);
  const archive = text(entry.archive, `${where}.archive`);
  let url: URL;
  try {
    url = new URL(archive);
  } catch {
    throw new AgentFormatError(`${where}.archive: '${archive}' is not a URL`);
  }
  const problem = archiveUrlProblem(url);
  if (problem !== null) throw new AgentFormatError(`${where}.archive: ${problem}`);
  const cmd = safeRelativePath(text(entry.cmd, `${where}.cmd`), `${where}.cmd`);
  const result: BinaryTarget = { archive, cmd, ...argsAndEnv(entry, where) };
  if (entry.sha256 !== undefined) {
    const sha256 = text(entry.sha256, `${where}.sha256`);
    if (!SHA256.test(sha256)) throw new AgentFormatError(`${where}.sha256: must be 64 hex digits`);
    result.sha256 = sha256.toLowerCase();
  }
  return result;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Why an archive (or a redirect on its way) may not be downloaded from `url`,
 * or null: HTTPS only, so what arrives is what its host serves; plain http
 * only from this machine (a local mirror, the tests), where no network lies between.
 */
export function archiveUrlProblem(url: URL): string | null {
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `'${url.href}': only https downloads are accepted (plain http only from this machine), not ${url.protocol}`;
}

/** A path inside an unpacked archive: relative, no "..", no drive or root. */
export function safeRelativePath(value: string, where: string): string {
  const parts = value
    .replace(/\\/g, "/")
    .split("/")
    .filter((part) => part !== "" && part !== ".");
  if (/^([A-Za-z]:|[\\/])/.test(value) || parts.length === 0 || parts.some((part) => part === "..")) {
    throw new AgentFormatError(`${where}: '${value}' must be a path inside the archive (relative, without '..')`);
  }
  return parts.join("/");
}

function argsAndEnv(entry: Record<string, unknown>, where: string): { args?: string[]; env?: Record<string, string> } {
  const result: { args?: string[]; env?: Record<string, string> } = {};
  if (entry.args !== undefined) {
    if (!Array.isArray(entry.args) || entry.args.length > MAX_ARGS) throw new AgentFormatError(`${where}.args: must be a list of at most ${MAX_ARGS} strings`);
    result.args = entry.args.map((arg, index) => text(arg, `${where}.args[${index}]`, true));
  }
  if (entry.env !== undefined) {
    const env = object(entry.env, `${where}.env`);
    result.env = {};
    for (const [name, envValue] of Object.entries(env)) {
      if (!ENV_NAME.test(name)) throw new AgentFormatError(`${where}.env: '${name}' is not a variable name`);
      result.env[name] = text(envValue, `${where}.env.${name}`, true);
    }
  }
  return result;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw new AgentFormatError(`${where}: must be an object`);
  return value;
}

function text(value: unknown, where: string, emptyOk = false): string {
  if (typeof value !== "string") throw new AgentFormatError(`${where}: must be a string`);
  if ((!emptyOk && value.trim() === "") || value.length > MAX_STRING || value.includes("\0")) {
    throw new AgentFormatError(`${where}: must be a non-empty string of at most ${MAX_STRING} characters`);
  }
  return value;
}
