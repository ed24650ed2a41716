// One way to choose an agent, seen from its three surfaces, all real
// processes: "Symposium: Choose Agent" (the conductor's `registry list` and
// `registry use`, run as extension/src/agents/agent-picker.ts runs them, with
// symposium.agents in $SYMPOSIUM_AGENTS), the built-in chat's header (the
// `agents` message of the real chat server running the real conductor, given
// as a program and its arguments) and the first-run menu (the same chat's
// first conversation, with no config yet). They list the same agents, and a
// choice made in any one of them is what the others show and run next.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { runForOutput } from "../../../acp-wire/src/run-for-output.js";
import type { AgentChoice, ServerMessage } from "../../../webchat/page/protocol.js";
import { ChatPage } from "../../support/chat-page.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const NAMED_AGENT = path.join(OUT_DIR, "test", "fixtures", "named-agent.js");
/** symposium.agents: two custom agents that say who they are. */
const CUSTOM_AGENTS = ["Agent A", "Agent B"].map((name) => ({
  id: name.toLowerCase().replace(" ", "-"),
  name,
  distribution: { local: { command: process.execPath, args: [NAMED_AGENT, name] } },
}));

interface Listing {
  ids: string[];
  current: string | undefined;
}

/** A home with no config yet; the environment the extension gives every conductor it starts; the registry is the shipped snapshot. */
function newUser(): { config: string; env: NodeJS.ProcessEnv } {
  const home = tempDir("agent-surfaces-home-");
  const config = path.join(home, ".symposium", "config.jsonc");
  const env = {
    HOME: home,
    USERPROFILE: home,
    SYMPOSIUM_CONFIG: config,
    SYMPOSIUM_AGENTS: JSON.stringify(CUSTOM_AGENTS),
    SYMPOSIUM_REGISTRY_URL: "",
    SYMPOSIUM_EDITOR_STATE_FILE: "",
    SYMPOSIUM_AGENT: "",
    SYMPOSIUM_CHAT_GRACE_MS: "60000",
  };
  return { config, env };
}

/** The quick pick's conductor call (extension/src/agents/agent-picker.ts): stdout, or the error with its stderr. */
function quickPick(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return runForOutput(process.execPath, [CONDUCTOR_CLI, ...args], { env: { ...process.env, ...env }, timeoutMs: 60_000 });
}

async function quickPickListing(env: NodeJS.ProcessEnv): Promise<Listing> {
  const agents = JSON.parse(await quickPick(["registry", "list"], env)) as Array<{ id: string; current?: boolean }>;
  return { ids: agents.map((agent) => agent.id), current: agents.find((agent) => agent.current)?.id };
}

type AgentsMessage = Extract<ServerMessage, { type: "agents" }>;
const isAgents = (message: ServerMessage): message is AgentsMessage => message.type === "agents";

/** The chat header's list: the last `agents` message its page got, once it has one. */
async function headerListing(page: ChatPage): Promise<Listing> {
  await eventually(() => page.messages.some(isAgents), 30_000, "the agent list in the chat's header");
  const message = page.messages.filter(isAgents).at(-1)!;
  return { ids: message.agents.map((agent: AgentChoice) => agent.id), current: message.current };
}

/** The first-run menu's agents: its numbered built-ins by name and the rest by id, mapped to ids through the list. */
function menuIds(menu: string, names: Map<string, string>): string[] {
  const numbered = [...menu.matchAll(/^\d+\. (.+?)(?: \(offline: shows what it receives\))?$/gm)].map((match) => names.get(match[1]!) ?? `unknown:${match[1]}`);
  const byId = [...menu.matchAll(/^- ([^:\s]+):/gm)].map((match) => match[1]!);
  return [...numbered, ...byId];
}

describe("one way to choose an agent: the quick pick, the chat's header and the first-run menu", () => {
  const servers: ChatServer[] = [];
  const pages: ChatPage[] = [];
  after(async () => {
    await Promise.all(pages.map((page) => page.close()));
    await Promise.all(servers.map((server) => server.stop()));
  });

  async function open(server: ChatServer, conversation: string): Promise<ChatPage> {
    const page = new ChatPage(server, conversation);
    pages.push(page);
    await page.ready(30_000);
    return page;
  }

  it("list the same agents, symposium.agents among them; a choice in any one is the others' current agent and the next conversation's", async () => {
    const { config, env } = newUser();
    // The chat as the extension starts it: the conductor's `run` as a program and its arguments.
    const server = await startChatServer({ agent: [process.execPath, CONDUCTOR_CLI, "run"], env });
    servers.push(server);

    const listed = await quickPickListing(env);
    assert.deepEqual(listed.ids.slice(0, 2), ["agent-a", "agent-b"], "symposium.agents first");
    assert.ok(listed.ids.includes("demo") && listed.ids.length > 7, `built-ins and the registry's too: ${listed.ids.join(", ")}`);
    assert.equal(listed.current, undefined, "no choice yet");

    const first = await open(server, "first");
    assert.deepEqual(await headerListing(first), listed, "the chat's header lists what the quick pick lists");
    const menu = await first.ask("hello?", 30_000);
    assert.match(menu, /Welcome to Symposium!/);
    const agents = JSON.parse(await quickPick(["registry", "list"], env)) as Array<{ id: string; name: string }>;
    const names = new Map(agents.map((agent) => [agent.name, agent.id]));
    assert.deepEqual(menuIds(menu, names).sort(), [...listed.ids].sort(), "the first-run menu lists the same agents");

    // Chosen in the first-run menu: recorded as the others record a choice; as after the header's choice, the page
    // is told to open a new conversation, where the agent answers the first question.
    const answer = await first.ask("agent-b", 30_000);
    assert.match(answer, /^Saved: Agent B is your agent .*A new conversation with it starts now, and it answers what you asked first\.$/);
    const handedOver = first.messages.find((message) => message.type === "agentChoice");
    assert.deepEqual(handedOver, { type: "agentChoice", ok: true, id: "agent-b", name: "Agent B", firstQuestion: "hello?" });
    assert.equal((await quickPickListing(env)).current, "agent-b", "the quick pick marks the menu's choice");
    await eventually(() => first.messages.filter(isAgents).at(-1)?.current === "agent-b", 30_000, "the first conversation's header naming the choice");
    const second = await open(server, "second");
    assert.equal((await headerListing(second)).current, "agent-b", "so does the header of the next conversation");
    assert.match(await second.ask("hello?", 30_000), /^Agent B heard: hello\?/);

    // Chosen in the chat's header: the quick pick sees it.
    second.socket.send(JSON.stringify({ type: "chooseAgent", id: "agent-a" }));
    await eventually(
      () => second.messages.some((message) => message.type === "agentChoice" && message.ok && message.id === "agent-a"),
      30_000,
      "the header's choice saved",
    );
    assert.equal((await quickPickListing(env)).current, "agent-a", "the quick pick marks the header's choice");

    // Chosen in the quick pick: the next conversation's header shows it and runs it.
    await quickPick(["registry", "use", "demo"], env);
    const third = await open(server, "third");
    assert.equal((await headerListing(third)).current, "demo");
    assert.match(await third.ask("and now?", 30_000), /I am Symposium's built-in demo agent/);
    assert.match(fs.readFileSync(config, "utf8"), /"id": "demo"/);
  });
});
