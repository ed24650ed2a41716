// The published agent adapters scripts/install-agent-adapters.sh installs
// (pinned; keep in step with it), and how the tests start them: as an
// unprivileged user when the tests run as root (as real users run them; Claude
// Code refuses some options as root), with no credentials in the environment,
// in a project folder made for the test that this user can enter (never the
// clone, which may sit in a private folder).

import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { symposiumCache } from "./rust-peers.js";

export interface Adapter {
  /** The first-run menu's short name (conductor-hooks/src/agent-choices.ts). */
  shortName: "claude" | "codex" | "gemini";
  pkg: string;
  version: string;
  bin: string;
  args: string[];
}

/** The adapters the first-run menu offers. */
export const ADAPTERS: readonly Adapter[] = [
  { shortName: "claude", pkg: "@agentclientprotocol/claude-agent-acp", version: "0.101.0", bin: "claude-agent-acp", args: [] },
  { shortName: "codex", pkg: "@zed-industries/codex-acp", version: "0.16.0", bin: "codex-acp", args: [] },
  { shortName: "gemini", pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini", args: ["--acp"] },
];

/** An agent the tests run whole turns with (test/interop/agent-turns.test.ts): the menu's, and OpenCode. */
export interface AgentAdapter extends Omit<Adapter, "shortName"> {
  shortName: Adapter["shortName"] | "opencode";
}

export const OPENCODE: AgentAdapter = { shortName: "opencode", pkg: "opencode-ai", version: "1.1.53", bin: "opencode", args: ["acp"] };

/** Every adapter scripts/install-agent-adapters.sh installs. */
export const AGENT_ADAPTERS: readonly AgentAdapter[] = [...ADAPTERS, OPENCODE];

/** The adapters' initialize answers to the chat's client capabilities, recorded (test/unit/webchat/webchat-client-capabilities.test.ts reads them). */
export const RECORDED_INITIALIZE = JSON.parse(
  fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "test", "interop", "adapter-initialize.json"), "utf8"),
) as Record<Adapter["shortName"], InitializeResponse>;

/** `{a: {b: {}, c: true}}` → ["a.b", "a.c"]: the capabilities an answer names, two levels deep (its `_meta` aside). */
export function capabilityPaths(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [prefix];
  const entries = Object.entries(value).filter(([key]) => key !== "_meta");
  if (entries.length === 0 || prefix.split(".").length >= 2) return prefix === "" ? [] : [prefix];
  return entries.flatMap(([key, inner]) => capabilityPaths(inner, prefix === "" ? key : `${prefix}.${key}`)).sort();
}

export const AGENT_USER = process.env.SYMPOSIUM_AGENT_USER || "symposium-agent";

/** Keys a developer's environment may hold: the agents must start logged out. */
const CREDENTIAL_VARIABLES = ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "CODEX_API_KEY"];

export const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0;

function agentUserHome(): string | null {
  try {
    return execFileSync("getent", ["passwd", AGENT_USER], { encoding: "utf8" }).split(":")[5] ?? null;
  } catch {
    return null;
  }
}

/** Where the adapters are, and the words in front of an adapter's command (runuser … env …). */
export function adapterSetup(): { dir: string; prefix: string[] } | { missing: string } {
  const home = isRoot() ? agentUserHome() : os.homedir();
  if (home === null) return { missing: `no user ${AGENT_USER} to run the agents as (run scripts/install-agent-adapters.sh as root)` };
  const dir = process.env.SYMPOSIUM_ADAPTERS_DIR || (isRoot() ? path.join(home, ".cache", "symposium", "adapters") : path.join(symposiumCache(), "adapters"));
  const absent = AGENT_ADAPTERS.filter((adapter) => !fs.existsSync(path.join(dir, "node_modules", ".bin", adapter.bin)));
  if (absent.length > 0)
    return {
      missing: `${absent.map((adapter) => `${adapter.pkg}@${adapter.version}`).join(", ")} not installed in ${dir} (run scripts/install-agent-adapters.sh)`,
    };
  // No `env` on Windows: there the tests expect a machine without the variables.
  const env = process.platform === "win32" ? [] : ["env", ...CREDENTIAL_VARIABLES.flatMap((name) => ["-u", name]), `HOME=${home}`];
  return { dir, prefix: isRoot() ? ["runuser", "-u", AGENT_USER, "--", ...env] : env };
}

/** `assignments` (NAME=value) go after the prefix's, so they win over it (HOME) and over the credentials it unsets. */
export function adapterCommand(setup: { dir: string; prefix: string[] }, adapter: AgentAdapter, assignments: string[] = []): string[] {
  const env = assignments.length === 0 ? [] : setup.prefix.includes("env") ? assignments : ["env", ...assignments];
  return [...setup.prefix, ...env, path.join(setup.dir, "node_modules", ".bin", adapter.bin), ...adapter.args];
}

/**
 * A project folder for agents run as AGENT_USER: a fixture of its own under the
 * system's temporary folder, readable by others, never the clone (a clone in a
 * private folder, as `mktemp -d` makes and many homes are, is closed to that
 * user, and Gemini CLI exits at start in a folder it cannot read). Checked
 * before any agent starts: throws saying which folder is in the way and what to do.
 */
export function agentProjectDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "symposium-agent-project-"));
  const readme = path.join(dir, "README.md");
  fs.writeFileSync(readme, "A project folder for the agent adapters' tests.\n");
  // Whatever the umask: mkdtemp makes the folder 0700.
  fs.chmodSync(readme, 0o644);
  fs.chmodSync(dir, 0o755);
  const problem = whyAgentUserCannotEnter(dir);
  if (problem !== null) throw new Error(problem);
  return dir;
}

/** Null when the agents' user can list and enter `dir` (always, when the agents run as us); else what stands in the way. */
export function whyAgentUserCannotEnter(dir: string): string | null {
  if (!isRoot()) return null;
  if (asAgentUser("test", "-r", dir, "-a", "-x", dir)) return null;
  const blocking = [...ancestors(dir), dir].find((folder) => !asAgentUser("test", "-x", folder)) ?? dir;
  const stat = fs.statSync(blocking);
  const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0");
  return (
    `the agents run as the user ${AGENT_USER}, who cannot enter the project folder ${dir}: ` +
    `${blocking} is mode ${mode}, owner uid ${stat.uid}. Give the tests a temporary folder others may enter ` +
    `(TMPDIR, now ${os.tmpdir()}), or let others through ${blocking} (chmod o+x)`
  );
}

/** Runs `command` as the agents' user; true when it succeeds. */
function asAgentUser(command: string, ...args: string[]): boolean {
  return spawnSync("runuser", ["-u", AGENT_USER, "--", command, ...args], { stdio: "ignore" }).status === 0;
}

/** `/a/b/c` → `/`, `/a`, `/a/b`. */
function ancestors(dir: string): string[] {
  const folders: string[] = [];
  for (let folder = path.dirname(dir); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (path.dirname(folder) === folder) return folders;
  }
}

/**
 * A folder (of the system's temporary folder, by default) that the agents' user owns (their
 * HOME for a test, a project they write to). When the agents run as us it is ours.
 */
export function agentOwnedDir(prefix: string, parent = os.tmpdir()): string {
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  fs.chmodSync(dir, 0o755);
  const problem = whyAgentUserCannotEnter(dir);
  if (problem !== null) throw new Error(problem);
  giveToAgentUser(dir);
  return dir;
}

/** Makes `target` (and, for a folder, all in it) the agents' user's: a no-op unless we are root. */
export function giveToAgentUser(target: string): void {
  if (!isRoot()) return;
  const fields = execFileSync("getent", ["passwd", AGENT_USER], { encoding: "utf8" }).split(":");
  const [uid, gid] = [Number(fields[2]), Number(fields[3])];
  const own = (entry: string): void => {
    fs.lchownSync(entry, uid, gid);
    if (fs.lstatSync(entry).isDirectory()) for (const name of fs.readdirSync(entry)) own(path.join(entry, name));
  };
  own(target);
}

export interface AgentReadablePrograms {
  /** dist/symposium-conductor.mjs, copied: the editor's MCP server it names is the copy beside it. */
  conductor: string;
  /** dist/symposium-editor-tools.mjs, copied. */
  editorTools: string;
  /** A compiled test fixture (out/test/fixtures/<name>.js, self-contained), copied. */
  fixture(name: string): string;
}

let readablePrograms: AgentReadablePrograms | undefined;

/**
 * The programs an agent is asked to start, where the agents' user can read them. Every MCP
 * server the proxy names is the one beside the conductor's bundle (dist/), and a clone in a
 * private folder (as `mktemp -d` makes it, as many homes are) is closed to that user: so when
 * the agents run as another user, dist/'s bundles are copied once to a folder of the system's
 * temporary folder that others may read, and checked from that user's side before any agent
 * starts (throws saying what is in the way and what to do). Run as ourselves: the originals.
 */
export function agentReadablePrograms(): AgentReadablePrograms {
  readablePrograms ??= isRoot() ? copyForAgentUser() : originals();
  return readablePrograms;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function originals(): AgentReadablePrograms {
  return {
    conductor: path.join(REPO, "dist", "symposium-conductor.mjs"),
    editorTools: path.join(REPO, "dist", "symposium-editor-tools.mjs"),
    fixture: (name) => path.join(REPO, "out", "test", "fixtures", `${name}.js`),
  };
}

function copyForAgentUser(): AgentReadablePrograms {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "symposium-agent-programs-"));
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  for (const folder of ["", "chunks"]) {
    fs.mkdirSync(path.join(dir, "dist", folder), { recursive: true });
    for (const name of fs.readdirSync(path.join(REPO, "dist", folder)).filter((file) => file.endsWith(".mjs")))
      fs.copyFileSync(path.join(REPO, "dist", folder, name), path.join(dir, "dist", folder, name));
  }
  fs.mkdirSync(path.join(dir, "fixtures"));
  const copied: AgentReadablePrograms = {
    conductor: path.join(dir, "dist", "symposium-conductor.mjs"),
    editorTools: path.join(dir, "dist", "symposium-editor-tools.mjs"),
    fixture: (name) => {
      const target = path.join(dir, "fixtures", `${name}.js`);
      if (!fs.existsSync(target)) {
        fs.copyFileSync(originals().fixture(name), target);
        fs.chmodSync(target, 0o644);
      }
      return target;
    },
  };
  // Whatever the umask: mkdtemp makes the folder 0700.
  for (const entry of [dir, path.join(dir, "dist"), path.join(dir, "dist", "chunks"), path.join(dir, "fixtures")]) fs.chmodSync(entry, 0o755);
  for (const folder of ["dist", path.join("dist", "chunks")])
    for (const name of fs.readdirSync(path.join(dir, folder))) if (name.endsWith(".mjs")) fs.chmodSync(path.join(dir, folder, name), 0o644);
  const problem =
    whyAgentUserCannotEnter(dir) ?? (asAgentUser("test", "-r", copied.editorTools) ? null : `the agents' user ${AGENT_USER} cannot read ${copied.editorTools}`);
  if (problem !== null) throw new Error(`${problem} (the programs the agents start: the editor's MCP server and the conductor beside it)`);
  return copied;
}
