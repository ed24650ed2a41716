// The agent picker's server half (docs/webchat.md: choosing the agent). When
// the agent command is this project's conductor, given as a program and its
// arguments (`<runtime> …/symposium-conductor.mjs run`, as the extension
// passes it: never a command line to split again), the chat asks that same
// conductor, without a shell, for the agents to choose from (`registry list`:
// its one catalogue, the same the quick pick and the first-run menu show) and
// saves a choice with `registry use <id>`: the conductor owns the config's
// format, the registry and the file. The next conversation's `run` then
// starts the chosen agent. `registry list` marks the agent the config names
// (`current`): each conversation keeps the one it started with, so the header
// names the agent it runs even when that agent failed to say its name. Any
// other agent command, and any command line for the shell: no picker.

import * as fs from "node:fs";
import * as path from "node:path";
import { quote } from "shell-quote";
import { runForOutput } from "../../acp-wire/src/index.js";
import { samePath } from "../../acp-wire/src/run-as-node.js";
import { errorLine } from "../../loopback-auth/src/index.js";
import type { AgentChoice, ServerMessage } from "../page/protocol.js";
import type { AgentCommand } from "./agent-command.js";

/** How to run the conductor the chat runs, with other subcommands. */
export interface ConductorForSubcommands {
  program: string;
  /** Before the subcommand: the script, when a runtime runs it. */
  args: string[];
  /** Set for the conductor alone (ELECTRON_RUN_AS_NODE). */
  env: Record<string, string>;
  /** `--config FILE` when `run` was given one. */
  configArgs: string[];
}

/** The conductor's own name, as a script or a binary. */
const CONDUCTOR_NAME = /^symposium-conductor(\.mjs|\.cjs|\.js|\.exe)?$/i;
/** How long one `registry list` or `registry use` may take (the registry fetch has 5 s of it). */
const CONDUCTOR_TIMEOUT_MS = 30_000;
/** A listing is asked again after this long: the registry may have changed. */
const LIST_TTL_MS = 5 * 60_000;
/**
 * Set for the agents the chat runs when it shows the picker: the conductor's
 * errors and its demo agent then point at the picker, not at the config file
 * (conductor-hooks/src/agent-choices.ts: AGENT_PICKER_ENV, the same name).
 */
export const AGENT_PICKER_ENV = "SYMPOSIUM_AGENT_PICKER";
/** What the page is sent at most: the catalog is the conductor's answer, bounded all the same. */
const MAX_AGENTS = 500;
const MAX_TEXT = { id: 128, name: 120, version: 40, description: 300 } as const;

/**
 * The conductor in `command`, when it is ours: a program `<conductor> run
 * [--config FILE] …`, the conductor a program (`symposium-conductor`) or a
 * runtime and its script (`node …/symposium-conductor.mjs`). Anything else
 * (another conductor, a wrapper in front of ours, a command line for the
 * shell): undefined.
 */
export function ourConductor(command: AgentCommand): ConductorForSubcommands | undefined {
  return conductorRun(command)?.conductor;
}

/** Our conductor's `run` in a command, and what follows `run`. */
export interface ConductorRun {
  conductor: ConductorForSubcommands;
  runArgs: string[];
}

function conductorRun(command: AgentCommand): ConductorRun | undefined {
  if (command.kind !== "program") return undefined;
  const words = [command.program, ...command.args];
  const at = words.findIndex((word) => CONDUCTOR_NAME.test(path.win32.basename(word)));
  if (at < 0 || at > 1 || words[at + 1] !== "run") return undefined;
  const runArgs = words.slice(at + 2);
  return { conductor: { program: words[0]!, args: words.slice(1, at + 1), env: { ...command.env }, configArgs: configArgs(runArgs) }, runArgs };
}

/**
 * The command's `run`, when the chat can run it in its own process
 * (agent-process.ts): a runtime and the conductor's script shipped beside this
 * server's own (the same build: `dist/`). A conductor elsewhere may be another
 * version, and a conductor program (no script) another build: those run as processes.
 */
export function ourConductorRun(command: AgentCommand, serverScript: string | undefined = process.argv[1]): ConductorRun | undefined {
  const run = conductorRun(command);
  const script = run?.conductor.args.length === 1 ? run.conductor.args[0]! : undefined;
  if (!run || script === undefined || serverScript === undefined || !/\.m?js$/i.test(script)) return undefined;
  return sameFolder(script, serverScript) ? run : undefined;
}

function sameFolder(a: string, b: string): boolean {
  try {
    return samePath(path.dirname(fs.realpathSync(a)), path.dirname(fs.realpathSync(b)));
  } catch {
    return false; // one of them is not there: not ours to load
  }
}

function configArgs(runArgs: string[]): string[] {
  for (let index = 0; index < runArgs.length; index++) {
    const word = runArgs[index]!;
    if (word === "--config" && runArgs[index + 1] !== undefined) return ["--config", runArgs[index + 1]!];
    if (word.startsWith("--config=")) return ["--config", word.slice("--config=".length)];
  }
  return [];
}

export interface AgentCatalogOptions {
  /** The agents' environment (SYMPOSIUM_CONFIG reaches the conductor through it). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  log(line: string): void;
}

type Reply = (message: ServerMessage) => void;

/** The conductor's answer: the agents, and the id of the one the config names (when it is one of them). */
export interface AgentListing {
  agents: AgentChoice[];
  current?: string;
}

/** One per chat server: the listing is shared by its pages, one choice is saved at a time. */
export class AgentCatalog {
  private listing: { at: number; agents: Promise<AgentListing>; settled: boolean } | undefined;
  private choosing = false;

  constructor(
    private readonly conductor: ConductorForSubcommands,
    private readonly options: AgentCatalogOptions,
  ) {}

  /**
   * The agents and the configured one, for a conversation starting now: asked
   * again, since any way of choosing (the first-run menu, "Symposium: Choose
   * Agent", another window's chat) may have changed the config a moment ago;
   * conversations starting together share the one being asked. Rejects when
   * the conductor cannot list them (the caller logs it and shows no picker).
   */
  forNewConversation(): Promise<AgentListing> {
    if (this.listing?.settled) this.listing = undefined;
    return this.list();
  }

  /**
   * The agents and the configured one, asked anew now that the config has just changed outside
   * this catalog (the first-run menu's agent records a choice itself): a listing already on its
   * way may have read the config before the change, so it is not shared.
   */
  afterConfigChange(): Promise<AgentListing> {
    this.listing = undefined;
    return this.list();
  }

  /** The agents to choose from, the listing shared while it is fresh. */
  list(): Promise<AgentListing> {
    if (this.listing && Date.now() - this.listing.at < LIST_TTL_MS) return this.listing.agents;
    const agents = this.run(["registry", "list"]).then(parseListing);
    const listing = { at: Date.now(), agents, settled: false };
    this.listing = listing;
    agents.then(
      () => (listing.settled = true),
      () => this.listing === listing && (this.listing = undefined), // a failure is asked again next time
    );
    return agents;
  }

  /** Saves `id` as the agent new conversations run; the page then starts one. An id not in the listing is refused. */
  choose(id: unknown, reply: Reply): void {
    const refuse = (message: string): void => {
      this.options.log(`refused an agent choice: ${message}`);
      reply({ type: "agentChoice", ok: false, message });
    };
    if (typeof id !== "string") return refuse("the agent id must be a string");
    if (this.choosing) return refuse("another agent choice is being saved; try again in a moment");
    this.choosing = true;
    void this.save(id, refuse, reply).finally(() => (this.choosing = false));
  }

  /** The command line that starts agent `id` (`registry resolve <id>`: its env as `NAME=value` words first), quoted for a POSIX shell. */
  async commandLine(id: string): Promise<string> {
    const spec = JSON.parse(await this.run(["registry", "resolve", id])) as { command?: unknown; args?: unknown; env?: unknown };
    if (typeof spec.command !== "string" || !Array.isArray(spec.args)) throw new Error("`registry resolve` did not answer a command");
    const env = Array.isArray(spec.env)
      ? (spec.env as Array<{ name?: unknown; value?: unknown }>).map((each) => `${String(each.name)}=${String(each.value)}`)
      : [];
    return quote([...env, spec.command, ...spec.args.map(String)]);
  }

  private async save(id: string, refuse: (message: string) => void, reply: Reply): Promise<void> {
    let agents: AgentChoice[];
    try {
      agents = (await this.list()).agents;
    } catch (error) {
      return refuse(`the agent list could not be read: ${errorLine(error)}`);
    }
    const agent = agents.find((each) => each.id === id);
    if (!agent) return refuse(`no agent with the id ${JSON.stringify(id.slice(0, MAX_TEXT.id))} in the list; choose one the picker shows`);
    try {
      await this.run(["registry", "use", id]);
    } catch (error) {
      return refuse(`\`registry use ${id}\` failed: ${errorLine(error)}`);
    }
    this.listing = undefined; // the config names another agent now
    this.options.log(`new conversations run ${agent.name} (${id})`);
    reply({ type: "agentChoice", ok: true, id, name: agent.name });
  }

  /** The conductor with `args`, without a shell; resolves with its stdout, rejects with its stderr's last lines. */
  private run(args: string[]): Promise<string> {
    const { program, args: leading, env, configArgs } = this.conductor;
    return runForOutput(program, [...leading, ...args, ...configArgs], {
      cwd: this.options.cwd,
      env: { ...this.options.env, ...env },
      timeoutMs: CONDUCTOR_TIMEOUT_MS,
    });
  }
}

/** `registry list`'s JSON: `[{id, name, version?, description?, current?}]`, checked and bounded before it reaches a page. */
export function parseListing(stdout: string): AgentListing {
  const value: unknown = JSON.parse(stdout);
  if (!Array.isArray(value)) throw new Error("`registry list` did not answer a JSON list");
  const entries = value.slice(0, MAX_AGENTS) as Array<Record<string, unknown>>;
  const agents = entries.flatMap((entry) => {
    if (typeof entry?.id !== "string" || entry.id === "" || entry.id.length > MAX_TEXT.id) return [];
    const text = (field: keyof typeof MAX_TEXT): string | undefined => {
      const value = entry[field];
      return typeof value === "string" ? value.slice(0, MAX_TEXT[field]) : undefined;
    };
    const version = text("version");
    const description = text("description");
    return [{ id: entry.id, name: text("name") || entry.id, ...(version ? { version } : {}), ...(description ? { description } : {}) }];
  });
  const current = entries.find((entry) => entry?.current === true)?.id;
  return { agents, ...(typeof current === "string" && agents.some((agent) => agent.id === current) ? { current } : {}) };
}
