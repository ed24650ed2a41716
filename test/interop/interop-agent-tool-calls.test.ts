// The real agents' whole turns against the scripted model
// (test/fixtures/scripted-model/), where the model calls a tool that is not the
// agent's own: a user's MCP server given through the conductor
// (`symposium.mcpServers`, as $SYMPOSIUM_MCP_SERVERS; docs/extensions.md), and
// the editor's present_walkthrough answered by a window stand-in (the real
// channel server; docs/walkthroughs.md). What the model receives back is the
// tool's own answer. docs/agent-compatibility.md is written from what these observe.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it, type TestContext } from "node:test";
import * as esbuild from "esbuild";
import type { PresentWalkthroughResult } from "../../editor-tools/src/walkthrough-format.js";
import { describeTools, editorTool, type ModelStep, type OfferedTool, type RecordedRequest, type ScriptedRequest } from "../fixtures/scripted-model/index.js";
import { AGENT_ADAPTERS, adapterSetup, agentOwnedDir, giveToAgentUser } from "./adapters.js";
import { agentProject, describeRequests, runTurn, windowStandIn } from "./agent-turns.js";
import { agentTurnsDir } from "./scripted-agents.js";
import { failIfMissing, skipOutsideCi } from "./rust-peers.js";

const setup = adapterSetup();
const missing = "missing" in setup ? setup.missing : false;
const POSIX_ONLY = process.platform === "win32" ? "the agents run as another user through runuser and env: POSIX only" : false;
const TURN_MS = 240_000;

const USER_SERVER = "user-words";
/** What the fixture's lookup_word answers starts with (test/fixtures/user-mcp-server.ts). */
const USER_SERVER_MARKER = "user-mcp-server-answer";
const WORD = "symposion";

const state = (projectDir: string): Record<string, unknown> => ({
  activeFile: path.join(projectDir, "src", "main.ts"),
  languageId: "typescript",
  workspaceFolders: [projectDir],
});

/** The tool `tool` of the MCP server `server` as the agent offers it: `mcp__server__tool`, `server__tool`, or namespaced. */
function serverTool(request: ScriptedRequest, server: string, tool: string): OfferedTool {
  const prefix = server.replace(/[-_]/g, "[-_]");
  const found = request.tools.find((offered) =>
    offered.namespace === undefined
      ? new RegExp(`${prefix}_{1,2}${tool}$`).test(offered.name)
      : new RegExp(prefix).test(offered.namespace) && offered.name === tool,
  );
  if (found === undefined) throw new Error(`the request offers no tool ${tool} of ${server}; it offers ${describeTools(request)}`);
  return found;
}

/**
 * Calls one tool, then answers with `text`. A request that does not offer the tool is refused (the
 * script throws: a 400). Claude Code defers a user's server's tools behind ToolSearch (their names only,
 * in the system prompt), which the scripted model does not implement; after three refused requests it
 * asks again with every tool loaded (docs/agent-compatibility.md).
 */
const callsOnce =
  (call: (request: ScriptedRequest) => { tool: OfferedTool; input: Record<string, unknown> }, text: string) =>
  (request: ScriptedRequest): ModelStep =>
    request.results.length === 0 ? { calls: [call(request)] } : { text };

/** The tool answers the model last received (Claude Code asks the model again after the turn, with none). */
function answersReceived(requests: RecordedRequest[]): string[] {
  const withResults = requests.filter((request) => request.scripted && (request.read?.results.length ?? 0) > 0);
  assert.ok(withResults.length > 0, `the model received a tool's answer:\n${describeRequests(requests)}`);
  return withResults.at(-1)!.read!.results.map((result) => result.text);
}

let bundled: string | undefined;

/**
 * The fixture server, bundled with the MCP SDK into one file the agents' user can read:
 * they run it from a folder with no node_modules (adapters.ts, agentReadablePrograms).
 */
async function userServerProgram(): Promise<string> {
  if (bundled !== undefined || "missing" in setup) return bundled ?? "";
  const dir = agentOwnedDir("user-mcp-server-", agentTurnsDir(setup));
  const outfile = path.join(dir, "user-mcp-server.mjs");
  const entry = fileURLToPath(new URL("../fixtures/user-mcp-server.js", import.meta.url));
  await esbuild.build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile, logLevel: "error" });
  fs.chmodSync(outfile, 0o644);
  giveToAgentUser(outfile);
  bundled = outfile;
  return outfile;
}

describe("the real agents call tools that are not their own, against a scripted model", { skip: POSIX_ONLY || skipOutsideCi(missing) }, () => {
  after(() => {
    if (!("missing" in setup)) fs.rmSync(agentTurnsDir(setup), { recursive: true, force: true });
  });
  for (const adapter of AGENT_ADAPTERS) {
    describe(`${adapter.pkg}@${adapter.version}`, () => {
      it(
        `${adapter.shortName}: calls a tool of the user's MCP server (symposium.mcpServers): the server's answer reaches the model`,
        { timeout: TURN_MS },
        async (t) => {
          failIfMissing(missing);
          if ("missing" in setup) return;
          const projectDir = agentProject(setup);
          const servers = [{ name: USER_SERVER, command: process.execPath, args: [await userServerProgram()], env: [] }];
          const script = callsOnce((request) => ({ tool: serverTool(request, USER_SERVER, "lookup_word"), input: { word: WORD } }), "Looked it up.");
          const turn = await runTurn(t, setup, adapter, script, {
            prompt: "What does the word mean?",
            answer: "Looked it up.",
            projectDir,
            state: state(projectDir),
            conductorEnv: { SYMPOSIUM_MCP_SERVERS: JSON.stringify(servers) },
          });
          assert.equal(turn.stopReason, "end_turn", describeRequests(turn.model.requests));
          const [answer, ...more] = answersReceived(turn.model.requests);
          assert.equal(more.length, 0, describeRequests(turn.model.requests));
          // Codex hands the model the MCP result as JSON (quotes escaped): the marker and the word, each.
          assert.ok(answer!.includes(USER_SERVER_MARKER) && answer!.includes(WORD), `the user's server answered the model: ${answer}`);
        },
      );

      it(`${adapter.shortName}: calls present_walkthrough: the window gets the Markdown, the model gets what was shown`, { timeout: TURN_MS }, async (t) => {
        failIfMissing(missing);
        if ("missing" in setup) return;
        const projectDir = agentProject(setup);
        const window = await walkthroughWindow(t, projectDir);
        const script = callsOnce(
          (request) => ({ tool: editorTool(request, "present_walkthrough"), input: { markdown: WALKTHROUGH, baseFolder: projectDir } }),
          "Presented.",
        );
        const turn = await runTurn(t, setup, adapter, script, {
          prompt: "Show me around.",
          answer: "Presented.",
          projectDir,
          state: { ...state(projectDir), ...window.state },
        });
        assert.equal(turn.stopReason, "end_turn", describeRequests(turn.model.requests));
        assert.equal(window.calls.length, 1, `the window was asked once: ${JSON.stringify(window.calls)}`);
        assert.equal(window.calls[0]!.markdown, WALKTHROUGH);
        assert.equal(window.calls[0]!.baseFolder, projectDir);
        const [answer, ...more] = answersReceived(turn.model.requests);
        assert.equal(more.length, 0, describeRequests(turn.model.requests));
        // Codex hands the model the MCP result as JSON (quotes and newlines escaped): each part on its own.
        for (const part of ["Shown to the user:", SHOWN.title, "1 comment(s) placed"])
          assert.ok(answer!.includes(part), `the window's answer reached the model (${part}): ${answer}`);
        const unresolved = SHOWN.unresolved[0]!;
        assert.ok(answer!.includes(`comment 2 (${unresolved.location}): ${unresolved.reason}`), `with what did not resolve: ${answer}`);
      });
    });
  }
});

const WALKTHROUGH = [
  "# Where the answer lives",
  "",
  "The answer is defined in [main](src/main.ts:1).",
  "",
  "```comment",
  "location: src/main.ts:1",
  "This is the answer.",
  "```",
  "",
  "```comment",
  "location: src/missing.ts:3",
  "A file that is not there.",
  "```",
  "",
].join("\n");

/** What the window answers, as extension/src/walkthroughs/walkthrough-view.ts's summary() makes it. */
const SHOWN: PresentWalkthroughResult = {
  title: "Where the answer lives",
  diagrams: 0,
  actions: 0,
  gitdiffs: 0,
  placed: 1,
  ambiguous: [],
  unresolved: [{ comment: 2, location: "src/missing.ts:3", reason: "no such file: src/missing.ts" }],
};

/** The window, its present_walkthrough handler standing in for the view: records each call and answers as the view does. */
async function walkthroughWindow(t: TestContext, projectDir: string): Promise<{ state: Record<string, unknown>; calls: Array<Record<string, unknown>> }> {
  if ("missing" in setup) throw new Error(setup.missing);
  const calls: Array<Record<string, unknown>> = [];
  const present_walkthrough = async (params: Record<string, unknown>) => {
    calls.push(params);
    return SHOWN;
  };
  const { state } = await windowStandIn(t, setup, projectDir, { present_walkthrough });
  return { state, calls };
}
