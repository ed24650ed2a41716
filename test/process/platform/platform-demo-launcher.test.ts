// Choosing the demo agent saves a command that survives an extension update
// and a moved clone, and runs from a terminal: the launcher beside the config
// (conductor-hooks/src/launcher.ts), rewritten by each `run`. Real processes:
// the bundled conductor, a copy of it somewhere else, and the launcher itself.

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parseConfig } from "../../../conductor-hooks/src/config.js";
import { launcherPath, launcherText } from "../../../conductor-hooks/src/launcher.js";
import { converse, node, POSIX, QUESTION } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, startNode, startProcess, tempDir } from "../../support/processes.js";

const skip = !POSIX && "the launcher run here is the POSIX sh one (the batch file's text is checked below)";

function runFrom(script: string, config: string, env: NodeJS.ProcessEnv = {}) {
  return startNode(script, ["run"], { SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "", ...env });
}

describe("platform: the demo agent's saved command", { skip }, () => {
  it("names the launcher beside the config, which starts the demo agent from a terminal", async () => {
    const config = path.join(tempDir("symposium-home-"), ".symposium", "config.jsonc");
    const first = await converse(runFrom(CONDUCTOR_CLI, config, { SYMPOSIUM_AGENT: "demo" }), [QUESTION]);
    assert.match(first.turns[0]!.reply, /I am Symposium's built-in demo agent/);
    const launcher = launcherPath(config);
    const agent = parseConfig(fs.readFileSync(config, "utf8"), config).agentConfig;
    assert.deepEqual(agent?.distribution, { local: { command: launcher, args: ["demo-agent"] } });
    assert.ok(!JSON.stringify(agent).includes(CONDUCTOR_CLI), "no versioned or clone path in the config");
    assert.equal(fs.statSync(launcher).mode & 0o777, 0o755);
    const { turns } = await converse(startProcess(launcher, ["demo-agent"]), ["hi"]);
    assert.match(turns[0]!.reply, /I am Symposium's built-in demo agent[\s\S]*hi/);
  });

  it("follows the conductor when it moves, and says what to do when it is gone", async () => {
    const config = path.join(tempDir("symposium-home-"), ".symposium", "config.jsonc");
    await converse(runFrom(CONDUCTOR_CLI, config, { SYMPOSIUM_AGENT: "demo" }), [QUESTION]);
    const saved = fs.readFileSync(config, "utf8");
    // An extension update (a new versioned folder) or a moved clone: the conductor now runs from elsewhere.
    const moved = path.join(tempDir("symposium-moved-"), "symposium-vscode-0.2.0", "dist", "symposium-conductor.mjs");
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.copyFileSync(CONDUCTOR_CLI, moved);
    // The bundle's chunks move with it (scripts/bundle.mjs: what a run does not need is loaded from them when used).
    fs.cpSync(path.join(path.dirname(CONDUCTOR_CLI), "chunks"), path.join(path.dirname(moved), "chunks"), { recursive: true });
    const { turns } = await converse(runFrom(moved, config), ["after the update"]);
    assert.match(turns[0]!.reply, /I am Symposium's built-in demo agent[\s\S]*after the update/);
    assert.equal(fs.readFileSync(config, "utf8"), saved, "the config is left as it was");
    assert.match(fs.readFileSync(launcherPath(config), "utf8"), new RegExp(moved.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    fs.rmSync(path.dirname(path.dirname(moved)), { recursive: true });
    const gone = spawnSync(launcherPath(config), ["demo-agent"], { encoding: "utf8", input: "" });
    assert.equal(gone.status, 127);
    assert.match(gone.stderr, /the conductor this launcher starts is gone .* start the conductor once from where it is now/);
  });

  it("sets ELECTRON_RUN_AS_NODE for VS Code's executable alone, so a terminal never opens a window", () => {
    const dir = tempDir("symposium-launcher-");
    // Stands in for Code.exe: says what it was given.
    const runtime = path.join(dir, "Code Helper");
    fs.writeFileSync(runtime, `#!/bin/sh\necho "ELECTRON_RUN_AS_NODE=$ELECTRON_RUN_AS_NODE" "$@"\n`, { mode: 0o755 });
    const script = path.join(dir, "it's here", "symposium-conductor.mjs");
    fs.mkdirSync(path.dirname(script));
    fs.writeFileSync(script, "");
    const launcher = path.join(dir, "symposium-conductor");
    fs.writeFileSync(launcher, launcherText({ runtime, script, env: { ELECTRON_RUN_AS_NODE: "1" } }, "linux"), { mode: 0o755 });
    const out = spawnSync(launcher, ["demo-agent", "two words"], { encoding: "utf8", env: { PATH: process.env.PATH } });
    assert.equal(out.stdout, `ELECTRON_RUN_AS_NODE=1 ${script} demo-agent two words\n`);
  });
});

describe("platform: the launcher on Windows (its text; nothing runs cmd here)", () => {
  it("is a batch file: setlocal, the variable, the quoted runtime and script, %* passed on, % doubled", () => {
    const text = launcherText(
      {
        runtime: "C:\\Users\\me\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe",
        script: "C:\\Users\\me\\100%\\dist\\symposium-conductor.mjs",
        env: { ELECTRON_RUN_AS_NODE: "1" },
      },
      "win32",
    );
    const lines = text.split("\r\n");
    assert.equal(lines[0], "@echo off");
    assert.ok(lines.includes("setlocal"), "the variable does not outlive the launcher in an interactive cmd");
    assert.ok(lines.includes('set "ELECTRON_RUN_AS_NODE=1"'));
    assert.ok(
      lines.includes('"C:\\Users\\me\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe" "C:\\Users\\me\\100%%\\dist\\symposium-conductor.mjs" %*'),
    );
    assert.ok(lines.includes('if exist "C:\\Users\\me\\100%%\\dist\\symposium-conductor.mjs" goto run'));
    const message = lines.find((line) => line.startsWith("echo "))!;
    assert.doesNotMatch(message.replace(/ 1>&2$/, ""), /[&|<>^%]/, "nothing in the message that cmd would read as an operator");
    assert.equal(
      launcherPath("C:\\Users\\me\\.symposium\\config.jsonc".replace(/\\/g, path.sep), "win32").endsWith(`bin${path.sep}symposium-conductor.cmd`),
      true,
    );
  });

  it("writes nothing for plain Node but the runtime and the script", () => {
    assert.doesNotMatch(launcherText({ runtime: node, script: CONDUCTOR_CLI, env: {} }, "linux"), /ELECTRON_RUN_AS_NODE/);
  });
});
