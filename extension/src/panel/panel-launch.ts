// What a new panel host will run, decided from the settings: which frontend
// (frontend-finder.ts), which conductor, and the frontend's command line
// (frontend-command-line.ts: the conductor as a program and its arguments for
// the built-in chat, quoted once into a string for Toad). Errors a user can
// act on are PanelErrors.

import * as crypto from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import getPort from "get-port";
import { CHECKPOINT_ENV } from "../../../checkpoints/src/index.js";
import { STATE_FILE_ENV } from "../../../editor-state/src/index.js";
import type { ExtensionSettings } from "../config.js";
import { customAgentsEnvironment, mcpServersEnvironment } from "../agents/custom-agents.js";
import { builtinChatArgs, shellOf, toadArgs, type ConductorProgram } from "./frontend-command-line.js";
import { chooseFrontend, findProgram } from "./frontend-finder.js";
import { prepareLogFile, type HostRuntime } from "./panel-host-client.js";
import type { NewLaunch } from "./panel-lifecycle.js";
import { PanelError } from "./panel-error.js";

export interface LaunchPlan {
  frontend: { program: string; args: string[] };
  /** Toad starts a new app, and so a new conversation, for every page load; the built-in chat keeps its conversations. */
  kind: "toad" | "builtin";
  cwd: string;
  /** For the log: what runs, in words. */
  describe: string;
}

export interface LaunchInputs {
  config: ExtensionSettings;
  runtime: HostRuntime;
  extensionPath: string;
  /** The first workspace folder (the project); none: the home directory. */
  cwd: string | undefined;
  /** The workspace's other folders (multi-root): the built-in chat gets each as --add-dir; Toad has no such option. */
  additionalFolders?: string[];
  noticeToadMissing: (why: string) => void;
}

export function planLaunch(inputs: LaunchInputs): LaunchPlan {
  const dist = path.join(inputs.extensionPath, "dist");
  const project = inputs.cwd ?? os.homedir();
  const frontend = chooseFrontend({
    toadCommand: inputs.config.toadCommand,
    runtime: inputs.runtime.program,
    builtinScript: path.join(dist, "symposium-webchat.mjs"),
  });
  if (frontend.kind === "builtin" && frontend.toadMissing) inputs.noticeToadMissing(frontend.toadMissing);
  const conductor = conductorOf(inputs.config, inputs.runtime, dist);
  const chatArgs = frontend.kind === "toad" ? toadArguments(conductor) : builtinChatArgs(conductor, project);
  return {
    frontend: {
      program: frontend.program,
      args: [...frontend.args, ...chatArgs, ...builtinOnlyArgs(frontend.kind, inputs.config, inputs.additionalFolders)],
    },
    // Toad's serve mode takes the project only as its working directory; the built-in chat takes --project-dir,
    // so it runs from the home directory and never holds the project folder open (Windows cannot rename that).
    cwd: frontend.kind === "toad" ? project : os.homedir(),
    kind: frontend.kind,
    describe: `${frontend.kind === "toad" ? `Toad (${frontend.program})` : "the built-in chat"} running ${[conductor.program, ...conductor.args, "run"].join(" ")}`,
  };
}

/** Toad's `acp "<conductor> run"`: the one place the invocation becomes a string, since Toad runs its agent command with a shell. */
function toadArguments(conductor: ConductorProgram): string[] {
  try {
    return toadArgs(conductor, shellOf(process.platform));
  } catch (error) {
    throw new PanelError(`The conductor's path cannot be passed to Toad's shell: ${(error as Error).message}`);
  }
}

/** Flags only the built-in chat knows (Toad would refuse them). */
function builtinOnlyArgs(kind: "toad" | "builtin", config: ExtensionSettings, additionalFolders: string[] = []): string[] {
  if (kind !== "builtin") return [];
  return [
    ...(config.chatMaxConversations !== undefined ? ["--max-conversations", String(config.chatMaxConversations)] : []),
    ...additionalFolders.flatMap((folder) => ["--add-dir", folder]),
  ];
}

/**
 * The conductor the chat runs. Another conductor (symposium.acpAgentPath; Symposium's Rust
 * symposium-acp-agent, say) has no editor-context proxy of its own, so, while editor context is on,
 * it runs behind ours in wrap mode: `symposium-editor-context -- <conductor> run`. Exactly one block
 * whatever that conductor is: ours adds it first, and a proxy further on (our own conductor's hook
 * among them) leaves a prompt that already starts with one alone (injector.ts).
 */
function conductorOf(config: ExtensionSettings, runtime: HostRuntime, dist: string): ConductorProgram {
  // ELECTRON_RUN_AS_NODE rides in the command line, so only the conductor gets it, not the chat, Toad or the agent.
  if (!config.acpAgentPath) return { program: runtime.program, args: [path.join(dist, "symposium-conductor.mjs")], env: runtime.env };
  const found = findProgram(config.acpAgentPath, process.env, process.platform);
  if (!found) {
    throw new PanelError(
      `The conductor '${config.acpAgentPath}' (setting symposium.acpAgentPath) was not found. Fix the path, or clear the setting to use the conductor this extension carries.`,
    );
  }
  if (!config.editorContextEnabled) return { program: found, args: [] };
  return { program: runtime.program, args: [path.join(dist, "symposium-editor-context.mjs"), "--", found], env: runtime.env };
}

/** What every conductor the chat starts inherits from the settings: the checkpoint settings, symposium.agents and symposium.mcpServers. */
export function conductorEnvironment(config: ExtensionSettings): Record<string, string> {
  return { ...checkpointEnvironment(config), ...customAgentsEnvironment(config.customAgents), ...mcpServersEnvironment(config.userMcpServers) };
}

/** The checkpoint settings, as the conductor reads them (checkpoints/src/store.ts settingsFromEnvironment). */
export function checkpointEnvironment(config: ExtensionSettings): Record<string, string> {
  if (config.checkpointsEnabled === false) return { [CHECKPOINT_ENV.off]: "off" };
  return config.checkpointsMaxTurns === undefined ? {} : { [CHECKPOINT_ENV.maxTurns]: String(config.checkpointsMaxTurns) };
}

export interface NewLaunchInputs extends LaunchInputs {
  /** The state file the host's frontend is to name (undefined: editor context off). */
  stateFile: string | undefined;
  /** Where the host's log goes (the workspace's storage). */
  storageDir: string;
}

/** A new host's launch spec: a fresh launch id and secret, the port of the setting or a free one, the log file. */
export async function newLaunch(inputs: NewLaunchInputs): Promise<NewLaunch> {
  const plan = planLaunch(inputs);
  const { config, stateFile } = inputs;
  const port = config.toadPort || (await getPort({ host: "127.0.0.1" }));
  return {
    spec: {
      launchId: crypto.randomUUID(),
      secret: crypto.randomBytes(32).toString("base64url"),
      port,
      frontend: plan.frontend,
      cwd: plan.cwd,
      env: { ...inputs.runtime.env, ...(stateFile ? { [STATE_FILE_ENV]: stateFile } : {}), ...conductorEnvironment(config) },
      allowedOrigins: [],
      idleTimeoutMs: Number(process.env.SYMPOSIUM_PANEL_IDLE_MS) || 15 * 60_000,
      logFile: prepareLogFile(inputs.storageDir),
    },
    kind: plan.kind,
    describe: plan.describe,
    stateFile,
    portFromSetting: config.toadPort !== 0,
  };
}
