// The ACP agent registry, and how a catalogue entry (catalogue.ts) becomes a
// program to spawn. The registry is fetched once per process (a conductor
// process is one session) with a short timeout; when it cannot be reached,
// the snapshot shipped in the package (registry-snapshot.json) stands in. A
// registry that answers with something malformed is refused, not replaced.

import * as path from "node:path";
import { isObject } from "../../acp-wire/src/index.js";
import snapshot from "../registry-snapshot.json" with { type: "json" };
import { loadConfig, updateConfigFile, type SymposiumConfig } from "./config.js";
import { AgentFormatError, parseRegistry, platformKey, type AgentConfig } from "./registry-format.js";

export const DEFAULT_REGISTRY_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";
export const REGISTRY_URL_ENV = "SYMPOSIUM_REGISTRY_URL";
/** A registry file larger than this is refused (today's is ~20 kB). */
export const MAX_REGISTRY_BYTES = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 5_000;

export class RegistryError extends Error {
  override name = "RegistryError";
}

export interface RegistryAgents {
  agents: AgentConfig[];
  /** The URL it came from, or "snapshot". */
  from: string;
}

/** What a resolved agent is started as: Symposium's McpServer-like object (its agent registry design). */
export interface SpawnSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface RegistryContext {
  configPath: string;
  config: SymposiumConfig | null;
  /** Custom agents from the editor's settings (the extension's symposium.agents: catalogue.ts customAgents). */
  extraAgents: AgentConfig[];
  /** How to start this conductor with other arguments (the built-in agents). */
  selfCommand: (args: string[]) => string[];
  log: (message: string) => void;
  env: NodeJS.ProcessEnv;
  /** Where the fetched registry is kept: one per run when several runs share a process (the built-in chat). */
  registryCache?: RegistryCache;
}

/** The registry once fetched, for one URL. */
export interface RegistryCache {
  fetched: { url: string; result: Promise<RegistryAgents> } | null;
}

/** One fetch per conductor process: one chat session. */
const processCache: RegistryCache = { fetched: null };

/** The registry URL: $SYMPOSIUM_REGISTRY_URL, the config's "registryUrl", else the ACP registry's; "" for none (snapshot only). */
export function registryUrl(config: SymposiumConfig | null, env: NodeJS.ProcessEnv): string {
  return env[REGISTRY_URL_ENV] ?? config?.registryUrl ?? DEFAULT_REGISTRY_URL;
}

/** The registry's agents: fetched on first use in this process (or `cache`), the shipped snapshot when it cannot be reached. */
export function registryAgents(url: string, log: (message: string) => void, cache: RegistryCache = processCache): Promise<RegistryAgents> {
  if (cache.fetched?.url !== url) cache.fetched = { url, result: fetchRegistry(url, log) };
  return cache.fetched.result;
}

export function snapshotAgents(): RegistryAgents {
  return { agents: parseRegistry(snapshot, "the shipped registry snapshot").agents, from: "snapshot" };
}

async function fetchRegistry(url: string, log: (message: string) => void): Promise<RegistryAgents> {
  if (url === "") return snapshotAgents();
  let text: string;
  try {
    text = await readLimited(url);
  } catch (error) {
    if (error instanceof RegistryError) throw error;
    log(`the agent registry ${url} cannot be reached (${describeCause(error)}): using the snapshot shipped with Symposium`);
    return snapshotAgents();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RegistryError(refused(url, `it is not JSON (${(error as Error).message})`));
  }
  try {
    return { agents: parseRegistry(value, "registry").agents, from: url };
  } catch (error) {
    if (error instanceof AgentFormatError) throw new RegistryError(refused(url, error.message));
    throw error;
  }
}

function refused(url: string, why: string): string {
  return `the agent registry ${url} was refused: ${why}. Nothing was installed. Set "registryUrl" in the config (or ${REGISTRY_URL_ENV}) to a registry that works, or "" to use the shipped snapshot.`;
}

/** The body of `url`, refusing more than `limit` bytes (default MAX_REGISTRY_BYTES) whatever the server claims; also an extension's JSON (extensions-add.ts). */
export async function readLimited(
  url: string,
  limit = MAX_REGISTRY_BYTES,
  tooLarge = (): Error => new RegistryError(refused(url, `it is larger than ${limit} bytes`)),
): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
  if (Number(response.headers.get("content-length") ?? 0) > limit) {
    await response.body.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function describeCause(error: unknown): string {
  return (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
}

/** The ready-to-spawn command for `agent`, installing its cargo crate or binary archive first when needed. */
export async function resolveAgent(agent: AgentConfig, context: RegistryContext): Promise<SpawnSpec> {
  const name = agent.name ?? agent.id;
  const { distribution: d } = agent;
  const spec = (command: string, args: string[], env: Record<string, string> = {}): SpawnSpec => ({ name, command, args, env });
  if (d.local) return spec(d.local.command, d.local.args ?? [], d.local.env);
  if (d.symposium) {
    const [command, ...args] = context.selfCommand([d.symposium.subcommand, ...(d.symposium.args ?? [])]);
    return spec(command!, args);
  }
  // "--" ends npx's own options: a package's arguments are never read as npm's.
  if (d.npx)
    return spec(
      "npx",
      d.npx.cmd ? ["-y", "--package", d.npx.package, "--", d.npx.cmd, ...(d.npx.args ?? [])] : ["-y", "--", d.npx.package, ...(d.npx.args ?? [])],
      d.npx.env,
    );
  if (d.pipx) return spec("pipx", ["run", ...(d.pipx.cmd ? ["--spec", d.pipx.package, d.pipx.cmd] : [d.pipx.package]), ...(d.pipx.args ?? [])], d.pipx.env);
  if (d.uvx) return spec("uvx", [...(d.uvx.cmd ? ["--from", d.uvx.package, d.uvx.cmd] : [d.uvx.package]), ...(d.uvx.args ?? [])], d.uvx.env);
  // Installs (tar, yauzl, downloads) are loaded only for an agent that needs one.
  const { cacheRoot, installBinary, installCargo } = await import("./registry-install.js");
  const root = cacheRoot(context.configPath);
  if (d.cargo) return spec(await installCargo(agent, d.cargo, root, context.log), d.cargo.args ?? []);
  const key = platformKey();
  const target = key === null ? undefined : d.binary?.[key];
  if (target !== undefined) {
    const folder = await installBinary(agent, target, root, context.log);
    return spec(path.join(folder, ...target.cmd.split("/")), target.args ?? [], target.env);
  }
  throw new RegistryError(noDistribution(agent, key));
}

function noDistribution(agent: AgentConfig, key: string | null): string {
  const platforms = Object.keys(agent.distribution.binary ?? {});
  const here = key ?? `${process.platform}-${process.arch}`;
  const has =
    platforms.length > 0
      ? `it has binaries for ${platforms.join(", ")} only`
      : "it names no distribution this conductor knows (local, npx, pipx, uvx, cargo, binary)";
  return `the agent '${agent.id}' has nothing that runs on this platform (${here}): ${has}. Choose another agent, or add a "local" distribution with the command that starts it.`;
}

/**
 * Brings the config's registry entries (`_source: "registry"`, as "agent" or
 * in "agents") up to date with a live registry; custom entries are never
 * touched, and entries the registry no longer has are left as they are. A
 * registry that cannot be reached or is refused changes nothing. Returns the
 * config as it is now. `run` calls it beside the session it starts, so an
 * update takes effect from the next run.
 */
export async function syncFromRegistry(config: SymposiumConfig, context: RegistryContext, configPath: string): Promise<SymposiumConfig> {
  const imported: Array<{ key: Array<string | number>; entry: unknown }> = [
    { key: ["agent"], entry: config.agentConfig },
    ...config.agents.map((entry, index) => ({ key: ["agents", index], entry })),
  ].filter(({ entry }) => isObject(entry) && entry._source === "registry");
  if (imported.length === 0) return config;
  let live: RegistryAgents;
  try {
    live = await registryAgents(registryUrl(config, context.env), context.log, context.registryCache);
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    context.log(`${error.message} The configured agents are kept as they are.`);
    return config;
  }
  if (live.from === "snapshot") return config;
  let changed = false;
  for (const { key, entry } of imported) {
    const current = live.agents.find((agent) => agent.id === (entry as AgentConfig).id);
    if (current === undefined) continue;
    const updated = { ...current, _source: "registry" };
    if (JSON.stringify(updated) === JSON.stringify(entry)) continue;
    updateConfigFile(configPath, key, updated);
    context.log(`updated ${current.id} from the registry: version ${String((entry as AgentConfig).version ?? "?")} → ${current.version ?? "?"}`);
    changed = true;
  }
  return changed ? (loadConfig(configPath) ?? config) : config;
}
