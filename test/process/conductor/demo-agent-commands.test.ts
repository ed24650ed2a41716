// The demo agent's commands that change the project, through the real conductor
// (`symposium-conductor agent "… demo-agent"`) with the SDK's client in front:
// offered as the chat's "/" commands; `/edit` changes its file through the
// client (fs/read_text_file, fs/write_text_file: what VS Code applies or
// reviews), `/write` writes its file to disk itself, as real agents' tools do,
// and the turn's checkpoint records it; each answer says what it shows.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { CheckpointStore, DEFAULT_SETTINGS } from "../../../checkpoints/src/index.js";
import { CLIENT_ANSWERS, openSession, testClient } from "../../support/acp-client.js";
import { textOf } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, eventually, scratchDirs, startNode, streamTo } from "../../support/processes.js";

const scratch = scratchDirs();

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
        ["edit", "write"],
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
