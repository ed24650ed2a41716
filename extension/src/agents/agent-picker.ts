// "Symposium: Choose Agent": a quick pick of the agents the conductor this
// extension carries knows (built-in, the ACP registry's, the config's own and
// the symposium.agents setting's), from `symposium-conductor registry list`,
// the configured one marked; choosing one runs `registry use <id>`, which
// writes ~/.symposium/config.jsonc: the conversation open now keeps its agent,
// the next one (New chat, or Restart Chat, offered at once) runs the new one.
// The conductor owns the format, the registry and the file: this module only asks it.

import * as path from "node:path";
import * as vscode from "vscode";
import { runForOutput } from "../../../acp-wire/src/run-for-output.js";
import { readCustomAgents } from "../config.js";
import { customAgentsEnvironment } from "./custom-agents.js";
import { NOTICE_SENTENCE_MAX, noticeText } from "../notice-text.js";
import { hostRuntime, type HostRuntime } from "../panel/panel-host-client.js";

export const EXTENSION_ID = "symposium-dev.symposium-vscode";

export interface ListedAgent {
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
      listAgents(custom),
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
    if (picked.current) return void vscode.window.showInformationMessage(`Symposium: ${noticeText(picked.name)} is already the agent of new conversations.`);
    await runConductor(["registry", "use", picked.id], custom);
    deps.log.info(`chose the agent ${picked.id} (${picked.name}) for the next conversation`);
    const answer = await vscode.window.showInformationMessage(
      `Symposium: the next conversation runs ${noticeText(picked.name)} (New chat in the chat's header starts one); the conversation open now keeps its agent.`,
      START_NOW,
    );
    if (answer === START_NOW) await deps.restart();
  } catch (error) {
    deps.log.error(`Choose Agent: ${(error as Error).message}`);
    void vscode.window.showErrorMessage(`Symposium: ${noticeText((error as Error).message, NOTICE_SENTENCE_MAX)}`);
  }
}

/** The agents to choose from (built-in, registry, config, `symposium.agents`), as the conductor lists them. */
export async function listAgents(custom: unknown[] = readCustomAgents()): Promise<ListedAgent[]> {
  return JSON.parse(await runConductor(["registry", "list"], custom)) as ListedAgent[];
}

/** Runs this extension's conductor, `custom` its symposium.agents; resolves with its stdout, rejects with the last lines of its stderr. */
export function runConductor(args: string[], custom: unknown[] = readCustomAgents()): Promise<string> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (extension === undefined) return Promise.reject(new Error(`the extension ${EXTENSION_ID} is not installed`));
  const runtime = hostRuntime(extension.extensionUri);
  return runForOutput(runtime.program, [bundledScript(runtime, "symposium-conductor.mjs"), ...args], {
    env: { ...process.env, ...runtime.env, ...customAgentsEnvironment(custom) },
    timeoutMs: 10 * 60_000,
  });
}

/** One of this extension's bundled programs (dist/), beside the host's script. */
export function bundledScript(runtime: HostRuntime, name: string): string {
  return path.join(path.dirname(runtime.script), name);
}
