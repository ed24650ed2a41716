// The setup agent: with no config file, `run` starts this instead of an AI
// agent. It lists the catalogue's agents (catalogue.ts: the same list as
// "Symposium: Choose Agent" and the chat's header); a number, a name or an id
// records the choice as they do (record-choice.ts; never over a file that
// appeared meanwhile), then starts the agent the file now names, as `run`
// would, in the same session, and answers with it the question the user asked
// first. From then on it relays the session (chosen-agent.ts): the client goes
// on as if the agent had been configured from the start. A client that opens a
// new conversation for the choice (the built-in chat; setup-handoff.ts) gets
// the choice in the turn's answer instead, and starts the agent itself.
//
// Every message is handled raw (the SDK's "*" handlers): what is relayed
// reaches the other side as it was sent, except `sessionId`, which the client
// knows by the setup agent's name and the agent by its own.

import { agent, RequestError, type AgentApp, type AgentContext, type ContentBlock } from "@agentclientprotocol/sdk";
import { exitStatus, isObject, onStopSignal, type Logger } from "../../acp-wire/src/index.js";
import { AGENT_CHOICE_ENV, agentChoices, describeChoiceNames, KNOWN_AGENTS } from "./agent-choices.js";
import { catalog, configuredAgent, findChoice, type CatalogEntry } from "./catalogue.js";
import { ChosenAgent } from "./chosen-agent.js";
import * as fs from "node:fs";
import { loadConfig, splitCommandLine } from "./config.js";
import { recordFirstChoice } from "./record-choice.js";
import { AGENT_CHOSEN, opensNewConversation, SETUP_AGENT_TITLE, withoutHandOver, type AgentChosen } from "./setup-handoff.js";
import { pickerDescription } from "./registry-format.js";
import { RegistryError, resolveAgent, type RegistryContext } from "./registry.js";
import { PROTOCOL_VERSION, serveOnStdio, streamText, userText } from "./stdio-agent.js";

export interface ConfigurationAgentOptions {
  configPath: string;
  /** Program and arguments that start this package's demo agent. */
  demoAgentCommand: string[];
  /** What the catalogue is read with (catalogue.ts): the custom agents, the registry's address, how to start this conductor. */
  catalogue: RegistryContext;
  version: string;
  log?: Logger;
}

type Params = Record<string, unknown>;

/** The agents on the menu, the catalogue's, once read. */
interface Menu {
  configPath: string;
  entries: CatalogEntry[];
}

/** The agent chosen: its catalogue id and name, and how to log it in when it is a built-in. */
interface Chosen {
  id: string;
  name: string;
  login?: string;
}

interface SetupSession {
  /** The client's session/new params, replayed to the chosen agent. */
  newParams: unknown;
  /** The first thing the user asked while the menu was shown: the chosen agent answers it. */
  firstQuestion: ContentBlock[] | null;
  /** The chosen agent's id for this session, and which start of the agent it belongs to. */
  agentSession: { id: string; agent: ChosenAgent } | null;
}

/** A menu line for an agent chosen by its id: id, name, version, description. */
function idLine({ agent }: CatalogEntry): string {
  const description = pickerDescription(agent);
  return `- ${agent.id}: ${agent.name ?? agent.id}${agent.version ? ` ${agent.version}` : ""}${description ? ` — ${description}` : ""}`;
}

/** `newConversation`: the client opens a new conversation with the chosen agent (setup-handoff.ts). */
export function menu({ configPath, entries }: Menu, firstQuestion: string | null = null, newConversation = false): string {
  const builtins = entries.filter(({ source }) => source === "builtin");
  const own = entries.filter(({ source }) => source === "config" || source === "custom");
  const registry = entries.filter(({ source }) => source === "registry");
  const question = firstQuestion ? ` and it will answer what you asked first ("${abbreviate(firstQuestion)}")` : "";
  const names = describeChoiceNames(agentChoices([]));
  return [
    "Welcome to Symposium!",
    `No configuration found at ${configPath}. Let's set up your AI agent.`,
    "",
    "Which agent would you like to use?",
    ...builtins.map(({ agent }, index) => `${index + 1}. ${agent.name ?? agent.id}${agent.id === "demo" ? " (offline: shows what it receives)" : ""}`),
    ...(own.length === 0 ? [] : ["", "Or one of your own, by its id:", ...own.map(idLine)]),
    ...(registry.length === 0 ? [] : ["", "Or one from the ACP agent registry, by its id:", ...registry.map(idLine)]),
    "",
    `Type a number (1-${builtins.length}) or a name (${names})${own.length + registry.length === 0 ? "" : ", or another agent's id"}. Your choice is saved in that file, the agent starts in ${newConversation ? "a new conversation" : "this session"}${question}.`,
    newConversation
      ? "Changed your mind later, or the agent does not start? Choose another agent in the chat's header."
      : `Changed your mind, or the agent does not start? Type ${CHOOSE_AGAIN} in this chat to see this menu again.`,
    "",
    `Where nobody can answer this menu (for example \`acpx exec\`, one prompt per session), name the agent instead: ` +
      `${AGENT_CHOICE_ENV}=demo in the environment, or \`symposium-conductor run --agent-choice demo\`.`,
  ].join("\n");
}

/** What a user types, in the chat with the setup agent, to undo the choice and see the menu again. */
export const CHOOSE_AGAIN = "/agent";

/** How the way back to the menu is said in an agent's errors. */
const CHOOSE_AGAIN_HINT = `type ${CHOOSE_AGAIN} here to choose another agent`;

function isChooseAgain(prompt: unknown): boolean {
  return (
    Array.isArray(prompt) &&
    userText(prompt as ContentBlock[])
      .trim()
      .toLowerCase() === CHOOSE_AGAIN
  );
}

function abbreviate(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

class SetupAgent {
  private client: AgentContext | null = null;
  private initializeParams: unknown = { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} };
  private readonly sessions = new Map<string, SetupSession>();
  private lastSession = 0;
  private chosen: Chosen | null = null;
  /** The catalogue, read once from the start (the registry fetched meanwhile): `initialize` never waits, only the first menu may. */
  private readonly entries: Promise<CatalogEntry[]>;
  /** The config file's text as this agent wrote it: only that is removed when the choice is undone. */
  private savedText: string | null = null;
  /** The chosen agent, started and initialized; null until chosen and after it died. */
  private agent: Promise<ChosenAgent> | null = null;
  private stopped: Promise<void> | null = null;
  private readonly log: Logger;

  constructor(private readonly options: ConfigurationAgentOptions) {
    // The conductor already prefixes each line of this process's stderr with "[setup] ".
    this.log = options.log ?? ((message) => void process.stderr.write(`${message}\n`));
    this.entries = this.readCatalogue();
    this.entries.catch(() => {}); // said by the menu that needs it
  }

  connected(client: AgentContext): void {
    this.client = client;
  }

  async request(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (method === "initialize") return this.initialize(params);
    if (method === "session/prompt" && isObject(params) && isChooseAgain(params.prompt)) return this.chooseAgain(params);
    if (method === "session/new" && this.chosen === null) return this.newSetupSession(params);
    if (method === "session/prompt" && this.chosen === null) return this.menuPrompt(params as Params, signal);
    if (this.chosen === null) throw RequestError.methodNotFound(method);
    // The hand-over is this agent's own word: the chosen agent's answers, relayed, never carry one.
    const result = await this.relay(method, params, signal);
    return withoutHandOver(result) ?? result;
  }

  /** After the choice: the chosen agent's session (a new one, or the menu's, named as the agent knows it). */
  private async relay(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (method === "session/new") {
      const started = await this.startedAgent();
      const result = await started.request<{ sessionId: string }>(method, params, signal);
      this.sessions.set(result.sessionId, { newParams: params, firstQuestion: null, agentSession: { id: result.sessionId, agent: started } });
      return result;
    }
    const started = await this.startedAgent();
    return started.request(method, await this.toAgent(params, started, signal), signal);
  }

  notification(method: string, params: unknown): void {
    void this.agent
      ?.then(async (started) => {
        const session = this.sessionOf(params);
        if (session !== undefined && session.agentSession?.agent !== started) return; // nothing there to cancel
        started.notify(method, await this.toAgent(params, started));
      })
      .catch(() => {}); // the agent's failure is reported by the requests
  }

  /** Ends the chosen agent; the same promise however often it is asked (end of input, then SIGTERM). */
  stop(): Promise<void> {
    this.stopped ??=
      this.agent?.then(
        (started) => started.stop(),
        () => {},
      ) ?? Promise.resolve();
    this.agent = null;
    return this.stopped;
  }

  private initialize(params: unknown): unknown {
    this.initializeParams = params;
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {},
      agentInfo: { name: "symposium-configuration", title: SETUP_AGENT_TITLE, version: this.options.version },
      authMethods: [],
    };
  }

  private newSetupSession(params: unknown): unknown {
    const sessionId = `setup-${++this.lastSession}`;
    this.sessions.set(sessionId, { newParams: params, firstQuestion: null, agentSession: null });
    return { sessionId };
  }

  private async menuPrompt(params: Params, signal: AbortSignal): Promise<unknown> {
    const session = this.sessions.get(String(params.sessionId));
    if (session === undefined) throw RequestError.invalidParams(undefined, `unknown session '${String(params.sessionId)}'`);
    const prompt = Array.isArray(params.prompt) ? (params.prompt as ContentBlock[]) : [];
    const typed = userText(prompt);
    const options = await this.menu();
    const entry = findChoice(typed, options.entries);
    if (entry === null) {
      if (session.firstQuestion === null && typed !== "") session.firstQuestion = prompt;
      await this.say(params.sessionId, menu(options, session.firstQuestion && userText(session.firstQuestion), this.opensNewConversation()));
      return { stopReason: "end_turn" };
    }
    if (!recordFirstChoice(entry.agent, { ...this.options.catalogue, log: this.log })) {
      await this.say(
        params.sessionId,
        `A configuration file appeared at ${this.options.configPath} meanwhile; it was left as it is. Start a new session to use it.`,
      );
      return { stopReason: "end_turn" };
    }
    const choice = chosenOf(entry);
    this.chosen = choice;
    this.savedText = readText(this.options.configPath);
    this.log(`saved ${choice.name} as the agent in ${this.options.configPath}`);
    if (this.opensNewConversation()) return this.handOver(params.sessionId, choice, session);
    await this.say(params.sessionId, `Saved: ${choice.name} is your agent (${this.options.configPath}). Starting it…\n\n`);
    let started: ChosenAgent | null = null;
    try {
      started = await this.startedAgent();
      await this.sessionAtAgent(session, started, signal);
    } catch (error) {
      // Started but refused (not logged in, say): the choice stands, its error says what to do and how to switch.
      if (started?.running) throw error;
      await this.notStarted(params.sessionId, choice, error, options, session);
      throw error;
    }
    const question = session.firstQuestion;
    session.firstQuestion = null;
    if (question === null) {
      await this.say(params.sessionId, `${choice.name} is ready: ask away.`);
      return { stopReason: "end_turn" };
    }
    return this.request("session/prompt", { ...params, prompt: question }, signal);
  }

  /**
   * The client opens a new conversation with the chosen agent and asks the
   * first question there: the agent starts with its own `initialize`, so the
   * client sees its capabilities, modes and sign-in, as after any other choice.
   */
  private async handOver(sessionId: unknown, choice: Chosen, session: SetupSession): Promise<unknown> {
    const question = session.firstQuestion && userText(session.firstQuestion);
    session.firstQuestion = null;
    const answers = question ? ", and it answers what you asked first" : "";
    await this.say(sessionId, `Saved: ${choice.name} is your agent (${this.options.configPath}). A new conversation with it starts now${answers}.`);
    const chosen: AgentChosen = { id: choice.id, name: choice.name, ...(question ? { firstQuestion: question } : {}) };
    return { stopReason: "end_turn", _meta: { [AGENT_CHOSEN]: chosen } };
  }

  private opensNewConversation(): boolean {
    return opensNewConversation(this.initializeParams);
  }

  /**
   * The chosen agent did not start: the choice is undone (its config file
   * removed) and the chat says why, then shows the menu again, so the next
   * prompt can choose another. The error itself is the turn's answer.
   */
  private async notStarted(sessionId: unknown, choice: Chosen, error: unknown, options: Menu, session: SetupSession): Promise<void> {
    const file = await this.forgetChoice();
    const details =
      error instanceof RequestError && isObject(error.data) && typeof error.data.details === "string" ? error.data.details : (error as Error).message;
    this.log(`${choice.name} did not start; ${file}`);
    const text = [
      `${choice.name} did not start.`,
      "",
      details,
      "",
      `${file}. Fix it and choose it again, or choose another agent.`,
      "",
      menu(options, session.firstQuestion && userText(session.firstQuestion), this.opensNewConversation()),
    ];
    await this.say(sessionId, text.join("\n"));
  }

  /** `/agent`: ends the chosen agent, undoes the choice and shows the menu again. */
  private async chooseAgain(params: Params): Promise<unknown> {
    const session = this.sessions.get(String(params.sessionId));
    if (session === undefined) throw RequestError.invalidParams(undefined, `unknown session '${String(params.sessionId)}'`);
    const previous = this.chosen;
    const file = await this.forgetChoice();
    if (previous !== null) this.log(`${previous.name} is no longer the agent; ${file}`);
    const options = await this.menu();
    const undone = previous === null ? "" : `${previous.name} is no longer your agent: ${file}.\n\n`;
    await this.say(params.sessionId, `${undone}${menu(options, session.firstQuestion && userText(session.firstQuestion), this.opensNewConversation())}`);
    return { stopReason: "end_turn" };
  }

  /** Ends the chosen agent and removes the config file written for it, unless it changed since; says what became of the file. */
  private async forgetChoice(): Promise<string> {
    const agent = this.agent;
    this.agent = null;
    this.chosen = null;
    for (const session of this.sessions.values()) session.agentSession = null;
    await agent?.then(
      (started) => started.stop(),
      () => {},
    );
    const saved = this.savedText;
    this.savedText = null;
    const { configPath } = this.options;
    if (saved === null) return `${configPath} was not written`;
    const now = readText(configPath);
    if (now === null) return `${configPath} is gone already`;
    if (now !== saved) return `${configPath} changed since it was written, so it was left as it is (delete it to choose in this menu)`;
    fs.rmSync(configPath, { force: true });
    return `${configPath} was removed again`;
  }

  /** The menu: the catalogue's agents. */
  private async menu(): Promise<Menu> {
    return { configPath: this.options.configPath, entries: await this.entries };
  }

  /** The catalogue; without the registry's agents when the registry was refused (said in the log). */
  private readCatalogue(): Promise<CatalogEntry[]> {
    const context = { ...this.options.catalogue, log: this.log };
    return catalog(context).catch((error: unknown) => {
      if (!(error instanceof RegistryError)) throw error;
      this.log(error.message);
      return catalog(context, false);
    });
  }

  /** The chosen agent's program, arguments and variables: what the file names now, resolved (and installed) as `run` would. */
  private async agentCommand(): Promise<{ command: string[]; env: Record<string, string> }> {
    const config = loadConfig(this.options.configPath);
    if (config === null) throw new Error(`${this.options.configPath} is gone: choose an agent again`);
    if (config.agentConfig === undefined) return { command: splitCommandLine(config.agent, "agent"), env: {} };
    const context: RegistryContext = { ...this.options.catalogue, config, log: this.log };
    const spawn = await resolveAgent(await configuredAgent(config.agentConfig, context), context);
    return { command: [spawn.command, ...spawn.args], env: spawn.env };
  }

  /** The chosen agent, starting it (again, after it died) with the client's initialize. */
  private startedAgent(): Promise<ChosenAgent> {
    if (this.stopped !== null) return Promise.reject(new Error("the setup agent is stopping"));
    if (this.agent === null) {
      const starting = this.startAgent();
      this.agent = starting;
      starting.catch(() => {
        if (this.agent === starting) this.agent = null;
      });
      return starting;
    }
    return this.agent.then((started) => {
      if (started.running) return started;
      this.agent = null;
      void started.stop();
      return this.startedAgent();
    });
  }

  private async startAgent(): Promise<ChosenAgent> {
    // The file, not the menu's entry: a user who fixed "agent" there after a failure gets the fix.
    const { command, env } = await this.agentCommand();
    const started = new ChosenAgent({
      name: this.chosen!.name,
      command,
      env,
      configPath: this.options.configPath,
      demoCommand: agentChoices(this.options.demoAgentCommand).at(-1)!.command,
      ...(this.chosen!.login ? { login: this.chosen!.login } : {}),
      alsoTry: CHOOSE_AGAIN_HINT,
      menuHint: `${CHOOSE_AGAIN} shows it again`,
      upstream: {
        request: async (method, params, signal) => this.upstream().request(method, this.toClient(params), { cancellationSignal: signal }),
        notify: async (method, params) => this.upstream().notify(method, this.toClient(params)),
      },
      log: this.log,
    });
    try {
      await started.request("initialize", this.initializeParams);
    } catch (error) {
      void started.stop();
      throw error;
    }
    return started;
  }

  /** The agent's session for a setup session, created there on first use (again after a restart). */
  private async sessionAtAgent(session: SetupSession, started: ChosenAgent, signal?: AbortSignal): Promise<string> {
    if (session.agentSession?.agent === started) return session.agentSession.id;
    const result = await started.request<{ sessionId: string }>("session/new", session.newParams, signal);
    session.agentSession = { id: result.sessionId, agent: started };
    return result.sessionId;
  }

  /** Params from the client with the session named as the agent knows it. */
  private async toAgent(params: unknown, started: ChosenAgent, signal?: AbortSignal): Promise<unknown> {
    const session = this.sessionOf(params);
    if (session === undefined || !isObject(params)) return params;
    return { ...params, sessionId: await this.sessionAtAgent(session, started, signal) };
  }

  /** Params from the agent with the session named as the client knows it. */
  private toClient(params: unknown): unknown {
    if (!isObject(params) || typeof params.sessionId !== "string") return params;
    for (const [clientId, session] of this.sessions) {
      if (session.agentSession?.id === params.sessionId) return clientId === params.sessionId ? params : { ...params, sessionId: clientId };
    }
    return params;
  }

  private sessionOf(params: unknown): SetupSession | undefined {
    return isObject(params) && typeof params.sessionId === "string" ? this.sessions.get(params.sessionId) : undefined;
  }

  private upstream(): AgentContext {
    if (this.client === null) throw new Error("no client connection");
    return this.client;
  }

  private say(sessionId: unknown, text: string): Promise<void> {
    return streamText(this.upstream(), String(sessionId), text);
  }
}

export function configurationAgent(options: ConfigurationAgentOptions): { app: AgentApp; stop: () => Promise<void> } {
  const setup = new SetupAgent(options);
  const app = agent({ name: "symposium-setup" })
    .onConnect((connection) => setup.connected(connection.client))
    .onRequest("*", ({ method, params, signal }) => setup.request(method, params, signal))
    .onNotification("*", ({ method, params }) => setup.notification(method, params));
  return { app, stop: () => setup.stop() };
}

/** Serves the setup agent on stdio; ends the chosen agent (and what it started) when the client leaves. */
export async function runConfigurationAgent(options: ConfigurationAgentOptions): Promise<void> {
  const { app, stop } = configurationAgent(options);
  onStopSignal((signal) => void stop().then(() => process.exit(exitStatus(null, signal))));
  await serveOnStdio(app);
  await stop();
}

function chosenOf({ agent }: CatalogEntry): Chosen {
  const login = KNOWN_AGENTS.find((known) => known.shortName === agent.id)?.login;
  return { id: agent.id, name: agent.name ?? agent.id, ...(login ? { login } : {}) };
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
