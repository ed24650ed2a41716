// The agents as VS Code language models (Symposium's Language Model Provider design; docs/lm-provider.md), when
// `symposium.enableExperimentalLM` is on and VS Code has the provider API
// (1.104+). A thin adapter: each agent the conductor lists (as Choose Agent
// shows them) is one model; its requests go to the VS Code-free core in
// lm-provider/ (history, ACP session through the conductor, tool bridge),
// whose parts come back through `progress`.

import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { STATE_FILE_ENV } from "../../../editor-state/src/index.js";
import {
  AGENT_ACTION_APPROVED,
  AGENT_ACTION_TOOL,
  LmConversation,
  estimateTokens,
  messageText,
  type AgentActionInput,
  type LmMessage,
  type LmPart,
  type LmTool,
} from "../../../lm-provider/src/index.js";
import { bundledScript, listAgents, type ListedAgent } from "../agents/agent-picker.js";
import { readCustomAgents, readExperimentalLm, readUserMcpServers, onSettingChange } from "../config.js";
import { customAgentsEnvironment, mcpServersEnvironment } from "../agents/custom-agents.js";
import { NOTICE_SENTENCE_MAX, noticeText } from "../notice-text.js";
import type { HostRuntime } from "../panel/panel-host-client.js";
import { privateStateDirectory } from "../tracker/state-file-location.js";

/** The vendor consumers select (`vscode.lm.selectChatModels({ vendor: "symposium" })`); package.json contributes it. */
export const LM_VENDOR = "symposium";
const FIRST_VSCODE_WITH_PROVIDERS = "1.104";
/** How long one agent list answers VS Code's questions (a changed symposium.agents shows within this). */
const AGENT_LIST_TTL_MS = 30_000;

export interface LmProviderDeps {
  log: vscode.LogOutputChannel;
  runtime: HostRuntime;
  /** This extension's version (the agent sees it in initialize). */
  version: string;
  /** The editor state file (undefined when editor context is off): the conductor's proxy reads it. */
  stateFile(): string | undefined;
}

/** Registers the provider while the setting is on; says once why nothing happens on a VS Code without the API. */
export function registerLmProvider(deps: LmProviderDeps): vscode.Disposable {
  let registered: { provider: SymposiumModels; registration: vscode.Disposable } | undefined;
  let toldTooOld = false;
  const apply = (): void => {
    if (!readExperimentalLm()) {
      if (registered) deps.log.info("language models: symposium.enableExperimentalLM is off; the agents are no longer offered as models");
      void registered?.provider.dispose();
      registered?.registration.dispose();
      registered = undefined;
      return;
    }
    if (registered) return;
    const provider = new SymposiumModels(deps);
    const registration = tryRegister(provider);
    if (typeof registration === "string") {
      const why = `symposium.enableExperimentalLM is on, but VS Code ${vscode.version} ${registration} (it came with VS Code ${FIRST_VSCODE_WITH_PROVIDERS}): the agents are not offered as models`;
      deps.log.warn(`language models: ${why}`);
      if (!toldTooOld) void vscode.window.showWarningMessage(`Symposium: ${noticeText(why, NOTICE_SENTENCE_MAX)}.`);
      toldTooOld = true;
      return;
    }
    registered = { provider, registration };
    deps.log.info("language models: the agents are offered as language models (vendor 'symposium')");
  };
  apply();
  const watcher = onSettingChange(["enableExperimentalLM"], apply);
  // A changed symposium.agents changes the models: VS Code keeps the list until told.
  const agentsWatcher = onSettingChange(["agents"], () => registered?.provider.agentsChanged());
  return new vscode.Disposable(() => {
    watcher.dispose();
    agentsWatcher.dispose();
    void registered?.provider.dispose();
    registered?.registration.dispose();
  });
}

/** The registration, or why there is none: this VS Code lacks the stable provider API (feature-detected, not by version). */
function tryRegister(provider: SymposiumModels): vscode.Disposable | string {
  const lm = vscode.lm as Partial<typeof vscode.lm>;
  if (typeof lm.registerLanguageModelChatProvider !== "function" || typeof lm.registerTool !== "function") return "has no language model provider API";
  try {
    const models = lm.registerLanguageModelChatProvider(LM_VENDOR, provider);
    return vscode.Disposable.from(models, lm.registerTool(AGENT_ACTION_TOOL, agentActionTool));
  } catch (error) {
    return `has no usable language model provider API (${(error as Error).message})`;
  }
}

/**
 * The agent's own actions (a command to run, a file to edit) reach the consumer as calls of this tool.
 * VS Code asks the user to confirm it before it runs; running it is the approval the provider waits for.
 * The agent's words are shown as text, never as markdown (an agent's title could carry links).
 */
const agentActionTool: vscode.LanguageModelTool<AgentActionInput> = {
  prepareInvocation: ({ input }) => {
    const message = new vscode.MarkdownString();
    message.appendText(`The agent asks to run: ${input.title}`);
    if (input.paths.length > 0) message.appendText(`\n\nFiles: ${input.paths.join(", ")}`);
    return { invocationMessage: `The agent's action: ${input.title}`, confirmationMessages: { title: "Allow the agent's action once?", message } };
  },
  invoke: () => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(AGENT_ACTION_APPROVED)]),
};

class SymposiumModels implements vscode.LanguageModelChatProvider {
  /** One conversation per model (agent): the ACP session its last consumer's history runs in. */
  private readonly conversations = new Map<string, LmConversation>();

  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(private readonly deps: LmProviderDeps) {}

  /** symposium.agents changed: the next list is asked afresh, and VS Code is told to ask. */
  agentsChanged(): void {
    this.agents = undefined;
    this.changed.fire();
  }

  /** The last agent list and when it was asked for: VS Code asks often, and each answer runs the conductor. */
  private agents: { list: Promise<ListedAgent[]>; at: number } | undefined;

  async provideLanguageModelChatInformation(): Promise<vscode.LanguageModelChatInformation[]> {
    if (this.agents === undefined || Date.now() - this.agents.at > AGENT_LIST_TTL_MS) this.agents = { list: listAgents(), at: Date.now() };
    try {
      return (await this.agents.list).map((agent) => ({
        id: agent.id,
        name: agent.name,
        family: LM_VENDOR,
        version: agent.version ?? "",
        tooltip: agent.description ?? `${agent.name} through Symposium`,
        detail: "Symposium",
        // The agent's model and limits are its own; these are only what VS Code needs to budget prompts.
        maxInputTokens: 200_000,
        maxOutputTokens: 64_000,
        capabilities: { toolCalling: true, imageInput: false },
      }));
    } catch (error) {
      this.agents = undefined;
      this.deps.log.error(`language models: the agent list failed: ${(error as Error).message}`);
      return [];
    }
  }

  async provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    try {
      await this.conversation(model).respond({
        messages: messages.map(toLmMessage),
        tools: (options.tools ?? []).map((tool): LmTool => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
        signal: abort.signal,
        sink: {
          text: (text) => progress.report(new vscode.LanguageModelTextPart(text)),
          toolCall: (callId, name, input) => progress.report(new vscode.LanguageModelToolCallPart(callId, name, asObject(input))),
        },
      });
    } catch (error) {
      this.deps.log.error(`language models: ${model.name}: ${(error as Error).message}`);
      throw new Error(`Symposium (${model.name}): ${(error as Error).message}`, { cause: error });
    } finally {
      cancelled.dispose();
    }
  }

  provideTokenCount(_model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    return Promise.resolve(estimateTokens(typeof text === "string" ? text : messageText(toLmMessage(text))));
  }

  async dispose(): Promise<void> {
    this.changed.dispose();
    const all = [...this.conversations.values()];
    this.conversations.clear();
    await Promise.all(all.map((conversation) => conversation.dispose()));
  }

  private conversation(model: vscode.LanguageModelChatInformation): LmConversation {
    let conversation = this.conversations.get(model.id);
    if (conversation === undefined) {
      conversation = this.createConversation(model);
      this.conversations.set(model.id, conversation);
    }
    return conversation;
  }

  private createConversation(model: vscode.LanguageModelChatInformation): LmConversation {
    const { runtime, log } = this.deps;
    return new LmConversation({
      launch: () => {
        const stateFile = this.deps.stateFile();
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          ...runtime.env,
          ...customAgentsEnvironment(readCustomAgents()),
          ...mcpServersEnvironment(readUserMcpServers()),
        };
        // Editor context: the conductor's proxy puts the block in front of each prompt, once (docs/lm-provider.md).
        if (stateFile) env[STATE_FILE_ENV] = stateFile;
        else delete env[STATE_FILE_ENV];
        const conductor = bundledScript(runtime, "symposium-conductor.mjs");
        return Promise.resolve({
          program: runtime.program,
          args: [conductor, "run", "--agent-id", model.id],
          env,
          cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir(),
          name: model.name,
          clientVersion: this.deps.version,
        });
      },
      relay: { command: runtime.program, args: [bundledScript(runtime, "symposium-lm-tools.mjs")], env: runtime.env },
      privateDir: this.privateDir(),
      log: (message) => log.info(`language models: ${message}`),
    });
  }

  /** Where the tool channel's socket goes: the state file's private directory, or a new private one. */
  private privateDir(): string {
    const stateFile = this.deps.stateFile();
    if (stateFile) return path.dirname(stateFile);
    const dir = privateStateDirectory((message) => this.deps.log.warn(message));
    if (dir === undefined) throw new Error("no private directory for the tool channel");
    return dir;
  }
}

/** VS Code's message as the core's; parts the core has no use for (images, data) are left out. */
function toLmMessage(message: vscode.LanguageModelChatRequestMessage): LmMessage {
  const role = message.role === vscode.LanguageModelChatMessageRole.Assistant ? "assistant" : "user";
  return { role, parts: message.content.flatMap(toLmPart) };
}

function toLmPart(part: unknown): LmPart[] {
  if (part instanceof vscode.LanguageModelTextPart) return [{ kind: "text", text: part.value }];
  if (part instanceof vscode.LanguageModelToolCallPart) return [{ kind: "toolCall", callId: part.callId, name: part.name, input: part.input }];
  if (part instanceof vscode.LanguageModelToolResultPart) {
    const text = part.content.map((each) => (each instanceof vscode.LanguageModelTextPart ? each.value : "")).join("");
    return [{ kind: "toolResult", callId: part.callId, text }];
  }
  return [];
}

function asObject(input: unknown): object {
  return typeof input === "object" && input !== null ? input : { value: input };
}
