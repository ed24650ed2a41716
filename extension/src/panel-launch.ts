// What a new panel host will run, decided from the settings: which frontend
// (frontend-finder.ts), which conductor, and the frontend's command line
// (frontend-command-line.ts). Errors a user can act on are PanelErrors.

import * as os from "node:os";
import * as path from "node:path";
import type { SymposiumConfig } from "./config.js";
import { conductorRunCommand, frontendArgs, shellOf, type ConductorInvocation } from "./frontend-command-line.js";
import { chooseFrontend, findProgram } from "./frontend-finder.js";
import type { HostRuntime } from "./panel-host-client.js";

/** An error shown in the panel as is, with optional detail (log lines). */
export class PanelError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface LaunchPlan {
  frontend: { program: string; args: string[] };
  cwd: string;
  /** For the log: what runs, in words. */
  describe: string;
}

export interface LaunchInputs {
  config: SymposiumConfig;
  runtime: HostRuntime;
  extensionPath: string;
  /** The first workspace folder (the project); none: the home directory. */
  cwd: string | undefined;
  noticeToadMissing: (why: string) => void;
}

export function planLaunch(inputs: LaunchInputs): LaunchPlan {
  const dist = path.join(inputs.extensionPath, "dist");
  const frontend = chooseFrontend({ toadCommand: inputs.config.toadCommand, runtime: inputs.runtime.program, builtinScript: path.join(dist, "symposium-webchat.mjs") });
  if (frontend.kind === "builtin" && frontend.toadMissing) inputs.noticeToadMissing(frontend.toadMissing);
  const conductor = conductorOf(inputs.config, inputs.runtime, path.join(dist, "symposium-conductor.mjs"));
  let run: string;
  try {
    run = conductorRunCommand(conductor, shellOf(process.platform));
  } catch (error) {
    throw new PanelError(`The conductor's path cannot be passed to the shell: ${(error as Error).message}`);
  }
  return {
    frontend: { program: frontend.program, args: [...frontend.args, ...frontendArgs(run)] },
    cwd: inputs.cwd ?? os.homedir(),
    describe: `${frontend.kind === "toad" ? `Toad (${frontend.program})` : "the built-in chat"} running ${run}`,
  };
}

function conductorOf(config: SymposiumConfig, runtime: HostRuntime, bundled: string): ConductorInvocation {
  if (!config.acpAgentPath) return { program: runtime.program, args: [bundled] };
  const found = findProgram(config.acpAgentPath, process.env, process.platform);
  if (!found) {
    throw new PanelError(`The conductor '${config.acpAgentPath}' (setting symposium.acpAgentPath) was not found. Fix the path, or clear the setting to use the conductor this extension carries.`);
  }
  return { program: found, args: [] };
}
