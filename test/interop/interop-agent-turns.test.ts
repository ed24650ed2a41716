// The real agents' own loops, whole turns, behind our conductor
// (symposium-conductor agent '<adapter>'), each pointed at the scripted model
// (test/fixtures/scripted-model/): what the model receives (one
// editor-context block; the editor's tools with their descriptions; the
// tools' answers from a live window stand-in, the real channel server), and
// what the agent does with its own tools (a write, allowed through the
// client, listed, diffed and undone by `symposium-conductor checkpoints`).
// docs/agent-compatibility.md is written from what these tests observe.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it, type TestContext } from "node:test";
import { editorTool, ownTool, type ModelStep, type RecordedRequest, type ScriptedRequest } from "../fixtures/scripted-model/index.js";
import { AGENT_ADAPTERS, adapterSetup, type AgentAdapter } from "./adapters.js";
import { agentProject, describeRequests, occurrences, runTurn, windowStandIn, type Turn } from "./agent-turns.js";
import { agentTurnsDir } from "./scripted-agents.js";
import { failIfMissing, skipOutsideCi } from "./rust-peers.js";

const setup = adapterSetup();
const missing = "missing" in setup ? setup.missing : false;
const POSIX_ONLY = process.platform === "win32" ? "the agents run as another user through runuser and env: POSIX only" : false;
const TURN_MS = 240_000;

/** Each agent's own tool that writes a new file, and its arguments for that tool. */
const OWN_WRITE: Record<
  AgentAdapter["shortName"],
  { tools: string[]; input: (tool: string, dir: string, file: string, text: string) => Record<string, unknown> | string }
> = {
  claude: { tools: ["Write"], input: (_tool, dir, file, text) => ({ file_path: path.join(dir, file), content: text }) },
  gemini: { tools: ["write_file"], input: (_tool, dir, file, text) => ({ file_path: path.join(dir, file), content: text }) },
  opencode: { tools: ["write"], input: (_tool, dir, file, text) => ({ filePath: path.join(dir, file), content: text }) },
  // Codex offers apply_patch only to models it knows: to the scripted model, its shell.
  codex: {
    tools: ["apply_patch", "exec_command"],
    input: (tool, _dir, file, text) =>
      tool === "apply_patch"
        ? `*** Begin Patch\n*** Add File: ${file}\n${text
            .replace(/\n$/, "")
            .split("\n")
            .map((line) => `+${line}`)
            .join("\n")}\n*** End Patch\n`
        : { cmd: `mkdir -p ${path.dirname(file)} && printf '%s\\n' '${text.trim()}' > ${file}` },
  },
};

/** What each agent was seen to do with a write (docs/agent-compatibility.md): whether it asks the client first. */
const ASKS_BEFORE_WRITING: Record<AgentAdapter["shortName"], boolean> = { claude: true, gemini: true, opencode: false, codex: false };

const SELECTION = "answer";
const STATE = (projectDir: string): Record<string, unknown> => ({
  activeFile: path.join(projectDir, "src", "main.ts"),
  languageId: "typescript",
  selection: { text: SELECTION, startLine: 1, endLine: 1 },
  workspaceFolders: [projectDir],
});

/** editor_state, then read_file on src/main.ts, then an answer. */
const readsTheFile =
  (projectDir: string) =>
  (request: ScriptedRequest): ModelStep => {
    if (request.results.length === 0) return { calls: [{ tool: editorTool(request, "editor_state"), input: {} }] };
    if (request.results.length === 1) return { calls: [{ tool: editorTool(request, "read_file"), input: { path: path.join(projectDir, "src", "main.ts") } }] };
    return { text: "The file says so." };
  };

/** A script that answers every turn with `text`. */
const saying = (text: string) => (): ModelStep => ({ text });

/**
 * The last request that carried tool results: the one the turn's answer was written from.
 * Claude Code can send one more request after the turn (with none), so the very last is not it.
 */
function lastWithResults(turn: Turn): NonNullable<RecordedRequest["read"]> {
  const withResults = scriptedRequests(turn).filter((request) => (request.read?.results.length ?? 0) > 0);
  assert.ok(withResults.length > 0, `the model received the tools' answers:\n${describeRequests(turn.model.requests)}`);
  return withResults.at(-1)!.read!;
}

function scriptedRequests(turn: Turn): RecordedRequest[] {
  const requests = turn.model.scripted();
  assert.ok(requests.length > 0, "the agent asked the model");
  return requests;
}

describe("the real agents' whole turns against a scripted model", { skip: POSIX_ONLY || skipOutsideCi(missing) }, () => {
  // The agents' homes, projects and state files, made for these tests (the conductors are stopped by then).
  after(() => {
    if (!("missing" in setup)) fs.rmSync(agentTurnsDir(setup), { recursive: true, force: true });
  });
  for (const adapter of AGENT_ADAPTERS) {
    describe(`${adapter.pkg}@${adapter.version}`, () => {
      it(
        `${adapter.shortName}: a plain turn: the model gets exactly one editor-context block; its answer reaches the client`,
        { timeout: TURN_MS },
        async (t) => {
          failIfMissing(missing);
          if ("missing" in setup) return;
          const projectDir = agentProject(setup);
          const turn = await runTurn(t, setup, adapter, saying("The scripted model's plain answer."), {
            prompt: "What does this do?",
            answer: "The scripted model's plain answer.",
            projectDir,
            state: STATE(projectDir),
          });
          assert.equal(turn.stopReason, "end_turn");
          assert.match(turn.answer, /The scripted model's plain answer\./);
          assert.deepEqual(turn.notices, [], "the agent started the editor's tools: no notice (Codex's lazy start included)");
          const [first] = scriptedRequests(turn);
          assert.equal(occurrences(first!, "<editor-context>"), 1, `one block in ${JSON.stringify(first!.read?.prompt)}`);
          assert.equal(occurrences(first!, "</editor-context>"), 1);
          assert.match(first!.read!.prompt, /What does this do\?/);
          assert.match(
            first!.read!.prompt,
            /<editor-context>\nActive file: src\/main\.ts \(typescript\)\n[^]*\nanswer\n/,
            "the block names the active file and the selection",
          );
        },
      );

      it(
        `${adapter.shortName}: calls editor_state then read_file: our tools offered with descriptions, answered by the live window, unsaved text included`,
        { timeout: TURN_MS },
        async (t) => {
          failIfMissing(missing);
          if ("missing" in setup) return;
          const projectDir = agentProject(setup);
          const window = await liveWindow(t, setup, projectDir);
          const turn = await runTurn(t, setup, adapter, readsTheFile(projectDir), {
            prompt: "What is in this file now?",
            answer: "The file says so.",
            projectDir,
            state: { ...STATE(projectDir), ...window.state },
          });
          assert.equal(turn.stopReason, "end_turn", describeRequests(turn.model.requests));
          assert.match(turn.answer, /The file says so\./);
          const requests = scriptedRequests(turn);
          const first = requests[0]!.read!;
          for (const name of ["editor_state", "read_file"]) {
            const offered = editorTool(first, name);
            assert.ok(offered.description.length > 60, `${offered.name} is offered with its description: ${JSON.stringify(offered.description)}`);
          }
          const last = lastWithResults(turn);
          assert.deepEqual(
            window.calls.map(([method]) => method),
            ["editor_state", "read_file"],
            `the window answered both; the model got: ${JSON.stringify(last.results)}`,
          );
          assert.equal(last.results.length, 2, describeRequests(turn.model.requests));
          assert.ok(last.results[0]!.text.includes(WINDOW_MARKER), `editor_state's answer reached the model: ${last.results[0]!.text}`);
          assert.ok(last.results[1]!.text.includes(UNSAVED_TEXT.trim()), `read_file's unsaved text reached the model: ${last.results[1]!.text}`);
        },
      );

      it(
        `${adapter.shortName}: calls editor_state then read_file with no window connected: answered from the state file and the disk, saying so`,
        { timeout: TURN_MS },
        async (t) => {
          failIfMissing(missing);
          if ("missing" in setup) return;
          const projectDir = agentProject(setup);
          const turn = await runTurn(t, setup, adapter, readsTheFile(projectDir), {
            prompt: "What is in this file?",
            answer: "The file says so.",
            projectDir,
            state: STATE(projectDir),
          });
          assert.equal(turn.stopReason, "end_turn", describeRequests(turn.model.requests));
          const last = lastWithResults(turn);
          assert.equal(last.results.length, 2, describeRequests(turn.model.requests));
          for (const result of last.results) assert.ok(result.text.includes("No live VS Code window is connected"), `said where it came from: ${result.text}`);
          assert.ok(last.results[0]!.text.includes("src/main.ts"), `editor_state names the active file: ${last.results[0]!.text}`);
          assert.ok(last.results[1]!.text.includes("export const answer = 42;"), `read_file's text from the disk: ${last.results[1]!.text}`);
        },
      );

      it(
        `${adapter.shortName}: writes a file with its own tool (allowed through the client); checkpoints list, diff and restore show and undo it`,
        { timeout: TURN_MS },
        async (t) => {
          failIfMissing(missing);
          if ("missing" in setup) return;
          const projectDir = agentProject(setup);
          const file = "notes/agent-wrote.md";
          const text = `Written by ${adapter.shortName}\n`;
          const own = OWN_WRITE[adapter.shortName];
          const script = (request: ScriptedRequest): ModelStep => {
            if (request.results.length > 0) return { text: "Wrote the notes." };
            const tool = ownTool(request, own.tools);
            return { calls: [{ tool, input: own.input(tool.name, projectDir, file, text) }] };
          };
          const turn = await runTurn(t, setup, adapter, script, {
            prompt: "Write the notes.",
            answer: "Wrote the notes.",
            projectDir,
            state: STATE(projectDir),
          });
          assert.equal(turn.stopReason, "end_turn", describeRequests(turn.model.requests));
          assert.equal(fs.readFileSync(path.join(projectDir, file), "utf8"), text);
          assert.equal(turn.permissions.length > 0, ASKS_BEFORE_WRITING[adapter.shortName], `permission requests: ${JSON.stringify(turn.permissions)}`);
          turn.conductor.child.stdin!.end();
          await turn.conductor.exited;

          const listed = await turn.checkpoints(["list"]);
          assert.equal(listed.status, 0, listed.stderr);
          const id = /^(\S+)\s+done\s+1 files? changed/m.exec(listed.stdout)?.[1];
          assert.ok(id !== undefined, `the turn is listed with its one file: ${listed.stdout}`);
          const diff = await turn.checkpoints(["diff", id]);
          assert.ok(diff.stdout.includes(`+${text.trim()}`), diff.stdout + diff.stderr);
          const restored = await turn.checkpoints(["restore", id]);
          assert.equal(restored.status, 0, restored.stdout + restored.stderr);
          assert.ok(!fs.existsSync(path.join(projectDir, file)), "restore removed the file the agent added");
          assert.equal(fs.readFileSync(path.join(projectDir, "src", "main.ts"), "utf8"), "export const answer = 42;\n");
        },
      );
    });
  }

  it(
    "gemini: in a folder it does not trust, it starts no MCP server; the first answer says so, with how to trust the folder",
    { timeout: TURN_MS },
    async (t) => {
      failIfMissing(missing);
      if ("missing" in setup) return;
      const gemini = AGENT_ADAPTERS.find((adapter) => adapter.shortName === "gemini")!;
      const projectDir = agentProject(setup);
      const turn = await runTurn(t, setup, gemini, saying("Plain answer."), {
        prompt: "Hello",
        answer: "Plain answer.",
        projectDir,
        state: STATE(projectDir),
        agentEnv: { GEMINI_CLI_TRUST_WORKSPACE: "false" },
      });
      assert.equal(turn.stopReason, "end_turn");
      const tools = scriptedRequests(turn)[0]!.read?.tools.map((tool) => tool.name) ?? [];
      assert.ok(!tools.some((name) => name.includes("symposium-editor")), `no editor tools in an untrusted folder: ${tools.join(", ")}`);
      assert.equal(turn.notices.length, 1, JSON.stringify(turn.notices));
      assert.match(String(turn.notices[0]), /^Gemini CLI did not start the editor's tools .*Trust this folder in Gemini CLI/s);
    },
  );
});

const WINDOW_MARKER = "live-window-stand-in";
const UNSAVED_TEXT = "export const answer = 43; // unsaved in the editor\n";

/** The window (agent-turns.ts), its handlers standing in for VS Code: editor_state and read_file (the file's unsaved text). */
async function liveWindow(
  t: TestContext,
  setup: { dir: string },
  projectDir: string,
): Promise<{ state: Record<string, unknown>; calls: Array<[string, Record<string, unknown>]> }> {
  const main = path.join(projectDir, "src", "main.ts");
  const calls: Array<[string, Record<string, unknown>]> = [];
  const handlers = {
    editor_state: async (params: Record<string, unknown>) => {
      calls.push(["editor_state", params]);
      return {
        window: WINDOW_MARKER,
        activeFile: main,
        languageId: "typescript",
        selections: [{ text: SELECTION, startLine: 1, endLine: 1 }],
        unsavedFiles: [main],
      };
    },
    read_file: async (params: Record<string, unknown>) => {
      calls.push(["read_file", params]);
      return { path: main, source: "editor", unsaved: true, startLine: 1, endLine: 1, totalLines: 1, text: UNSAVED_TEXT };
    },
  };
  const { state } = await windowStandIn(t, setup, projectDir, handlers);
  return { state, calls };
}
