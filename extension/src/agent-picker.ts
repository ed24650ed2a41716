// "Symposium: Choose Agent": a quick pick of the agents the conductor this
// extension carries knows (built-in, the ACP registry's, the config's own and
// the symposium.agents setting's), from `symposium-conductor registry list`,
// the configured one marked; choosing one runs `registry use <id>`, which
// writes ~/.symposium/config.jsonc: the conversation open now keeps its agent,
// the next one (New chat, or Restart Chat, offered at once) runs the new one.
// The conductor owns the format, the registry and the file: this module only asks it.

import * as path from "node:path";
import * as vscode from "vscode";
import { runForOutput } from "../../acp-wire/src/run-for-output.js";
import { readCustomAgents } from "./config.js";
import { hostRuntime } from "./panel-host-client.js";

export const EXTENSION_ID = "symposium-dev.symposium-vscode";

interface ListedAgent {
  id: string;
  name: string;
  version?: string;
  description?: string;
  /** The agent the config names now (`registry list` marks it). */
  current?: boolean;
}

export interface AgentPickerDeps {
  log: vscode.LogOutputChannel;
  /** Starts a new conversation (the chat's restart): only when the user asks for it after choosing. */
  restart(): Promise<void>;
}

const START_NOW = "Restart Chat now";

/** Shows the pick; on a choice, saves it for the next conversation and offers to start one now. Errors are shown, never thrown. */
export async function chooseAgent(deps: AgentPickerDeps): Promise<void> {
  try {
    const custom = readCustomAgents();
    const agents = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Symposium: reading the agent list" }, () =>
      runConductor(["registry", "list", ...agentsArg(custom)]).then((stdout) => JSON.parse(stdout) as ListedAgent[]),
    );
    const fromSettings = new Set(custom.map((agent) => (agent as { id?: unknown })?.id));
    const picked = await vscode.window.showQuickPick(
      agents.map((agent) => ({
        // The configured agent is marked, and a check says so without reading the description.
        label: agent.current ? `$(check) ${agent.name}` : agent.name,
        description: [agent.current ? "current ·" : undefined, agent.id, agent.version, fromSettings.has(agent.id) ? "(symposium.agents)" : undefined]
          .filter(Boolean)
          .join(" "),
        detail: agent.description,
        id: agent.id,
        name: agent.name,
        current: agent.current === true,
      })),
      {
        title: "Symposium: Choose Agent",
        placeHolder: "The agent of your next conversation (New chat); the conversation open now keeps its agent",
        matchOnDescription: true,
        matchOnDetail: true,
      },
    );
    if (picked === undefined) return;
    if (picked.current) return void vscode.window.showInformationMessage(`Symposium: ${picked.name} is already the agent of new conversations.`);
    await runConductor(["registry", "use", picked.id, ...agentsArg(custom)]);
    deps.log.info(`chose the agent ${picked.id} (${picked.name}) for the next conversation`);
    const answer = await vscode.window.showInformationMessage(
      `Symposium: the next conversation runs ${picked.name} (New chat in the chat's header starts one); the conversation open now keeps its agent.`,
      START_NOW,
    );
    if (answer === START_NOW) await deps.restart();
  } catch (error) {
    deps.log.error(`Choose Agent: ${(error as Error).message}`);
    void vscode.window.showErrorMessage(`Symposium: ${(error as Error).message}`);
  }
}

function agentsArg(custom: unknown[]): string[] {
  return custom.length === 0 ? [] : ["--agents", JSON.stringify(custom)];
}

/** Runs this extension's conductor; resolves with its stdout, rejects with the last lines of its stderr. */
function runConductor(args: string[]): Promise<string> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (extension === undefined) return Promise.reject(new Error(`the extension ${EXTENSION_ID} is not installed`));
  const runtime = hostRuntime(extension.extensionUri);
  const script = path.join(path.dirname(runtime.script), "symposium-conductor.mjs");
  return runForOutput(runtime.program, [script, ...args], { env: { ...process.env, ...runtime.env }, timeoutMs: 10 * 60_000 });
}
