// The demo agent's commands that change the project, through the real conductor
// (`symposium-conductor agent "… demo-agent"`) with the SDK's client in front:
// offered as the chat's "/" commands; `/edit` changes its file through the
// client (fs/read_text_file, fs/write_text_file: what VS Code applies or
// reviews), `/write` writes its file to disk itself, as real agents' tools do,
// and the turn's checkpoint records it; each answer says what it shows.
// `/walkthrough` calls present_walkthrough on the editor's tools the session
// was offered (a window's real channel server standing in for VS Code), and
// says what to do when none were.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import type { PresentWalkthroughParams, PresentWalkthroughResult } from "../../../editor-tools/src/walkthrough-format.js";
import { CLIENT_ANSWERS, openSession, testClient } from "../../support/acp-client.js";
import { textOf } from "../../support/conductor-run.js";
import { endAll, openWindow } from "../../support/editor-window.js";
import { CONDUCTOR_CLI, eventually, scratchDirs, startNode, streamTo } from "../../support/processes.js";

const scratch = scratchDirs();
after(endAll);

/** The conductor running the demo agent, with this state file and config; the demo's reply to `/walkthrough` in `project`. */
async function walkthroughReply(project: string, env: { stateFile: string; config: string }): Promise<string> {
  const conductor = startNode(CONDUCTOR_CLI, ["agent", `${JSON.stringify(process.execPath)} ${JSON.stringify(CONDUCTOR_CLI)} demo-agent`], {
    SYMPOSIUM_EDITOR_STATE_FILE: env.stateFile,
    SYMPOSIUM_CONFIG: env.config,
    SYMPOSIUM_CHECKPOINTS_DIR: path.join(path.dirname(env.config), "checkpoints"),
  });
  after(() => conductor.child.kill());
  const peer = testClient(streamTo(conductor.child));
  let reply = "";
  await peer.run(async (agent) => {
    const sessionId = await openSession(agent, project);
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/walkthrough" }] });
    reply = textOf(peer.updates);
  });
  return reply;
}

describe("the demo agent's /edit and /write change the project", () => {
  it("offers both as commands; /edit writes through the client, /write to disk, recorded as the turn's change", async () => {
    const home = scratch("demo-cmd-home-");
    const project = scratch("demo-cmd-project-");
    const checkpoints = path.join(home, "checkpoints");
    const conductor = startNode(CONDUCTOR_CLI, ["agent", `${JSON.stringify(process.execPath)} ${JSON.stringify(CONDUCTOR_CLI)} demo-agent`], {
      SYMPOSIUM_EDITOR_STATE_FILE: path.join(home, "no-state.json"),
      SYMPOSIUM_CONFIG: path.join(home, "config.jsonc"),
      SYMPOSIUM_CHECKPOINTS_DIR: checkpoints,
    });
    after(() => conductor.child.kill());
    const peer = testClient(streamTo(conductor.child));
    await peer.run(async (agent) => {
      const sessionId = await openSession(agent, project);
      const prompt = async (text: string): Promise<string> => {
        peer.updates.length = 0;
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
        return textOf(peer.updates);
      };
      // Offered as the chat's "/" commands once the session is open.
      const offers = () => peer.updates.flatMap(({ update }) => (update.sessionUpdate === "available_commands_update" ? [update.availableCommands] : []));
      await eventually(() => offers().length > 0, 10_000, "the commands offered");
      assert.deepEqual(
        offers()[0]!.map((command) => command.name),
        ["edit", "write", "walkthrough"],
      );
      // Any other answer names them.
      assert.match(await prompt("hello"), /send \/edit .*demo-edit\.md.* or \/write .*demo-write\.md/);

      const edited = await prompt("/edit");
      const file = path.join(project, "demo-edit.md");
      assert.deepEqual(
        peer.agentRequests.map(([method, params]) => [method, (params as { path: string }).path]),
        [
          ["fs/read_text_file", file],
          ["fs/write_text_file", file],
        ],
        "the file read and written through the client",
      );
      const written = peer.agentRequests[1]![1] as { content: string };
      assert.equal(written.content, `${CLIENT_ANSWERS.read.content}\n- line 1, written through the editor\n`, "the client's text, a line added");
      assert.equal(fs.existsSync(file), false, "the agent itself wrote nothing: the client decides");
      assert.match(edited, /through the editor \(fs\/write_text_file\)[\s\S]*symposium\.chat\.agentEdits/);

      const wrote = await prompt("/write");
      assert.equal(
        fs.readFileSync(path.join(project, "demo-write.md"), "utf8"),
        "# demo-write.md\n\nLines the demo agent wrote to disk itself (/write):\n- line 1, written straight to disk\n",
      );
      assert.match(wrote, /straight to disk[\s\S]*Review[\s\S]*Undo turn/);
      await prompt("/write please"); // what follows the command is ignored
      assert.match(fs.readFileSync(path.join(project, "demo-write.md"), "utf8"), /- line 2, written straight to disk\n$/);
    });
    const store = await CheckpointStore.create({ ...DEFAULT_SETTINGS, directory: checkpoints, log: () => {} });
    const doneTurns = () => store!.list(project).records.filter((turn) => turn.state === "done");
    await eventually(() => doneTurns().length === 4, 10_000, "four turns recorded");
    const changed = doneTurns().map((turn) => turn.roots.flatMap((root) => root.files.map((each) => `${each.status} ${each.path}`)));
    assert.deepEqual(changed.flat().sort(), ["added demo-write.md", "modified demo-write.md"], "the disk writes are the recorded changes");
  });
});

describe("the demo agent's /walkthrough presents one through the editor's tools", () => {
  it("calls present_walkthrough on the offered editor server, on the sample's src/main.rs, and answers with the tool's answer", async () => {
    const shown: PresentWalkthroughResult = {
      title: "A tour of the demo project",
      diagrams: 1,
      actions: 0,
      gitdiffs: 0,
      placed: 1,
      ambiguous: [],
      unresolved: [],
    };
    const window = await openWindow({ present_walkthrough: () => Promise.resolve(shown) });
    fs.writeFileSync(path.join(window.workspace, "src", "main.rs"), 'fn main() {\n    let greeting = "hello";\n}\n');
    const reply = await walkthroughReply(window.workspace, { stateFile: window.stateFile, config: path.join(scratch("demo-walk-home-"), "config.jsonc") });
    assert.deepEqual(
      window.calls.map(([method]) => method),
      ["present_walkthrough"],
    );
    const params = window.calls[0]![1] as unknown as PresentWalkthroughParams;
    assert.equal(params.baseFolder, window.workspace);
    assert.match(params.markdown, /^# A tour of the demo project\n/);
    assert.match(params.markdown, /```comment\nlocation: src\/main\.rs:2\n/, "a comment on the sample's real line");
    assert.match(params.markdown, /```mermaid\nflowchart/, "a diagram");
    assert.match(reply, /Shown to the user: "A tour of the demo project" — 1 comment\(s\) placed/, "the tool's answer reaches the chat");
  });

  it("says how to get the editor's tools when the session was offered none", async () => {
    const home = scratch("demo-walk-off-");
    const config = path.join(home, "config.jsonc");
    fs.writeFileSync(config, JSON.stringify({ editorTools: false }));
    const reply = await walkthroughReply(scratch("demo-walk-project-"), { stateFile: path.join(home, "no-state.json"), config });
    assert.match(reply, /not offered the editor's tools[\s\S]*symposium\.editorTools\.enabled on/);
  });
});
