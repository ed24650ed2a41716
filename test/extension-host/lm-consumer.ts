// A consumer of VS Code's Language Model API: the extension test/fixtures/lm-consumer,
// packaged and installed into code-server by test/e2e/language-models.test.ts (this
// file, bundled, is its extension.cjs). It selects the
// models of the vendor "symposium" and talks to the fixture agent
// (test/fixtures/lm-agent.ts) through them, then prints what it saw as one
// JSON line for the test to check. Types: VS Code 1.104's consumer API, as far
// as used here (@types/vscode is older: engines.vscode).

import * as fs from "node:fs";
import * as vscode from "vscode";

export const LM_SUMMARY_PREFIX = "symposium-lm-consumer:";
const FIXTURE_MODEL = "lm-fixture";

interface Part {
  value?: unknown;
}
interface ChatModel {
  id: string;
  name: string;
  vendor: string;
  sendRequest(messages: unknown[], options?: { tools?: Tool[] }, token?: vscode.CancellationToken): Thenable<{ stream: AsyncIterable<Part> }>;
  countTokens(text: string): Thenable<number>;
}
interface Tool {
  name: string;
  description: string;
  inputSchema?: object;
}
interface Api {
  lm: {
    selectChatModels(selector: { vendor: string }): Thenable<ChatModel[]>;
    invokeTool(name: string, options: { input: object; toolInvocationToken: undefined }): Thenable<{ content: Part[] }>;
  };
  LanguageModelChatMessage: { User(this: void, content: string | unknown[]): unknown; Assistant(this: void, content: string | unknown[]): unknown };
  LanguageModelTextPart: new (value: string) => unknown;
  LanguageModelToolCallPart: new (callId: string, name: string, input: object) => { callId: string; name: string; input: object };
  LanguageModelToolResultPart: new (callId: string, content: unknown[]) => unknown;
}
const api = vscode as unknown as Api;
const { User, Assistant } = api.LanguageModelChatMessage;

/** What one request streamed: its text parts, tool calls, the error that ended it. */
interface Reply {
  texts: string[];
  calls: Array<{ callId: string; name: string; input: object }>;
  error?: string;
}

async function send(
  model: ChatModel,
  messages: unknown[],
  options: { tools?: Tool[] } = {},
  onPart?: (reply: Reply) => void,
  token?: vscode.CancellationToken,
): Promise<Reply> {
  const reply: Reply = { texts: [], calls: [] };
  try {
    const response = await model.sendRequest(messages, options, token);
    for await (const part of response.stream) {
      if (part instanceof api.LanguageModelToolCallPart) reply.calls.push({ callId: part.callId, name: part.name, input: part.input });
      else if (typeof part.value === "string") reply.texts.push(part.value);
      onPart?.(reply);
    }
  } catch (error) {
    reply.error = (error as Error).message;
  }
  return reply;
}

const text = (reply: Reply) => reply.texts.join("");

/** A progress line in the workbench's console: where a hanging run stopped. */
const step = (name: string) => {
  console.log(`symposium-lm-consumer-step: ${name}`);
  const file = process.env[SUMMARY_FILE_ENV];
  if (file) fs.writeFileSync(`${file}.step`, name);
};

async function fixtureModel(): Promise<{ model: ChatModel; all: ChatModel[] }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const all = await api.lm.selectChatModels({ vendor: "symposium" });
    const model = all.find((each) => each.id === FIXTURE_MODEL);
    if (model) return { model, all };
    if (Date.now() > deadline) throw new Error(`no model ${FIXTURE_MODEL}; the vendor's models: ${all.map((each) => each.id).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function scenarios(): Promise<Record<string, unknown>> {
  const folder = vscode.workspace.workspaceFolders![0]!.uri;
  await vscode.window.showTextDocument(vscode.Uri.joinPath(folder, "src", "main.rs"));
  step("selecting the models");
  const { model, all } = await fixtureModel();
  const out: Record<string, unknown> = { models: all.map((each) => ({ id: each.id, name: each.name })) };

  step("streaming");
  const first = await send(model, [User("hello stream:5")]);
  const second = await send(model, [User("hello stream:5"), Assistant(text(first)), User("and again")]);
  out.stream = { parts: first.texts.length, text: text(first), error: first.error };
  out.continued = { text: text(second), error: second.error };
  out.tokens = await model.countTokens("twelve chars");

  step("replacing");
  // A request replacing one still streaming: the agent is cancelled, a new session answers.
  let streaming!: () => void;
  const started = new Promise<void>((resolve) => (streaming = resolve));
  const slow = send(model, [User("hello stream:5"), Assistant(text(first)), User("and again"), Assistant(text(second)), User("go slow")], {}, (reply) => {
    if (text(reply).includes("tick-1")) streaming();
  });
  await Promise.race([started, slow]); // a slow request that fails before streaming: reported below, not waited for
  const replacing = await send(model, [User("hello stream:5"), Assistant("an answer the consumer rewrote"), User("edited")]);
  const slowReply = await slow;
  out.replaced = { slow: text(slowReply), slowError: slowReply.error, text: text(replacing), error: replacing.error };

  step("cancelling");
  // The consumer's cancellation mid-stream.
  const cancel = new vscode.CancellationTokenSource();
  const cancelled = await send(model, [User("slow")], {}, (reply) => text(reply).includes("tick-1") && cancel.cancel(), cancel.token);
  out.cancelled = { text: text(cancelled), error: cancelled.error };

  step("tools");
  // A tool round trip: the agent's MCP call comes back as a tool-call part; our result answers it.
  const tools: Tool[] = [{ name: "echo", description: "Echoes its input", inputSchema: { type: "object", properties: { x: { type: "number" } } } }];
  const ask = User('please tool:echo:{"x":1}');
  const asked = await send(model, [ask], { tools });
  const call = asked.calls[0];
  out.toolCall = { calls: asked.calls, text: text(asked), error: asked.error };
  if (call) {
    const answered = await send(
      model,
      [
        ask,
        Assistant([new api.LanguageModelTextPart(text(asked)), new api.LanguageModelToolCallPart(call.callId, call.name, call.input)]),
        User([new api.LanguageModelToolResultPart(call.callId, [new api.LanguageModelTextPart("pong from the consumer")])]),
      ],
      { tools },
    );
    out.toolResult = { text: text(answered), error: answered.error };
  }

  step("agent action");
  // The agent asks before its own action: a call of Symposium's agent-action tool, run like any tool; its result allows it.
  const please = User("please ask");
  const asking = await send(model, [please]);
  const action = asking.calls[0];
  out.agentAction = { calls: asking.calls, text: text(asking), error: asking.error };
  if (action) {
    const result = await api.lm.invokeTool(action.name, { input: action.input, toolInvocationToken: undefined });
    const allowed = await send(model, [
      please,
      Assistant([new api.LanguageModelTextPart(text(asking)), new api.LanguageModelToolCallPart(action.callId, action.name, action.input)]),
      User([new api.LanguageModelToolResultPart(action.callId, result.content)]),
    ]);
    out.agentActionResult = { text: text(allowed), error: allowed.error };
  }

  step("bad input");
  const refused = await send(model, [User("hi")], { tools: [{ name: "reject-me", description: "a tool the agent refuses" }] });
  out.refusedTool = { text: text(refused), error: refused.error };
  const died = await send(model, [User("die")]);
  out.died = { text: text(died), error: died.error };
  const long = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? User(`question ${i}`) : Assistant(`answer ${i}`)));
  const longReply = await send(model, [...long, User("the end")]);
  out.longHistory = { text: text(longReply), error: longReply.error };
  return out;
}

/** Where the summary goes: the file $LM_CONSUMER_SUMMARY names (code-server's environment reaches its extension host). */
export const SUMMARY_FILE_ENV = "LM_CONSUMER_SUMMARY";

/** Runs the scenarios once; never throws: the summary says everything. */
export async function run(): Promise<void> {
  let summary: Record<string, unknown>;
  try {
    summary = await scenarios();
  } catch (error) {
    summary = { failed: (error as Error).stack ?? String(error) };
  }
  const file = process.env[SUMMARY_FILE_ENV];
  // Whole or not at all: the test waits for the file to exist, then reads it.
  if (file) {
    fs.writeFileSync(`${file}.partial`, JSON.stringify(summary));
    fs.renameSync(`${file}.partial`, file);
  }
  console.log(`${LM_SUMMARY_PREFIX} ${JSON.stringify(summary)}`);
}

/** The consumer extension's activation (onStartupFinished): the scenarios, beside the workbench. */
export function activate(): void {
  void run();
}
