// ELECTRON_RUN_AS_NODE reaches exactly the processes that are VS Code's own
// executable running one of our scripts (the panel host, the built-in chat,
// the conductor), never Toad, the agents or the tools they run; and the host
// and the built-in chat run from the home directory, not the project's
// (Windows cannot rename a folder that is some process's working directory).
// Real processes: the bundled CLIs and panel host, and a recorder program
// that writes down what it was started with. Node ignores the variable, so
// node stands in for VS Code's executable here.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { RUN_AS_NODE } from "../../../acp-wire/src/run-as-node.js";
import { joinCommandLine } from "../../../conductor-hooks/src/config.js";
import { conductorRunCommand } from "../../../extension/src/panel/frontend-command-line.js";
import { spawnHost } from "../../../extension/src/panel/panel-host-client.js";
import { planLaunch } from "../../../extension/src/panel/panel-launch.js";
import { parseArgs } from "../../../webchat/src/args.js";
import { FAKE_TOAD, startTestHost } from "../../support/panel-host.js";
import { CONDUCTOR_CLI, PROXY_CLI, eventually, startNode, tempDir } from "../../support/processes.js";

interface Record {
  argv: string[];
  cwd: string;
  runAsNode: string | null;
}

const dir = tempDir("symposium-run-as-node-");
const RECORDER = path.join(dir, "recorder.cjs");
// Writes one line per start to $RECORD_FILE, then waits for its input to end (or exits at once with an argument).
fs.writeFileSync(
  RECORDER,
  `require("fs").appendFileSync(process.env.RECORD_FILE, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), runAsNode: process.env.${RUN_AS_NODE} ?? null }) + "\\n");
if (process.argv.includes("--exit")) process.exit(0);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`,
);
// A program that is not our runtime (Toad, an agent): a script that runs the recorder.
const OTHER_PROGRAM = path.join(dir, "toad");
fs.writeFileSync(OTHER_PROGRAM, `#!/bin/sh\nexec '${process.execPath}' '${RECORDER}' "$@"\n`, { mode: 0o755 });

function recordFile(): string {
  return path.join(dir, `record-${crypto.randomUUID()}.jsonl`);
}

function records(file: string): Record[] {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .slice(0, -1) // whole lines only: the recorder may be writing the last one now
        .map((line) => JSON.parse(line) as Record)
    : [];
}

async function firstRecord(file: string): Promise<Record> {
  await eventually(() => records(file).length > 0, 10_000, `a start recorded in ${file}`);
  return records(file)[0]!;
}

const POSIX_ONLY = process.platform === "win32" ? "runs POSIX shell scripts" : false;

describe("platform: ELECTRON_RUN_AS_NODE", { skip: POSIX_ONLY }, () => {
  const running: Array<{ kill(signal?: NodeJS.Signals): boolean }> = [];
  after(() => running.forEach((child) => child.kill("SIGKILL")));

  it("the conductor, run by the frontend's shell, gets it from its command line; its agent does not", async () => {
    const record = recordFile();
    const config = path.join(tempDir("symposium-home-"), "config.jsonc");
    fs.writeFileSync(config, JSON.stringify({ agent: joinCommandLine([process.execPath, RECORDER]) }));
    const line = conductorRunCommand({ program: process.execPath, args: [CONDUCTOR_CLI], env: { [RUN_AS_NODE]: "1" } }, "posix");
    assert.match(line, /^ELECTRON_RUN_AS_NODE=1 /);
    // As the built-in chat (itself run with the variable) starts it: through /bin/sh, the chat's environment inherited.
    const shell = spawn("/bin/sh", ["-c", line], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { ...process.env, [RUN_AS_NODE]: "1", RECORD_FILE: record, SYMPOSIUM_CONFIG: config, SYMPOSIUM_EDITOR_STATE_FILE: "" },
    });
    running.push(shell);
    const agent = await firstRecord(record);
    assert.equal(agent.runAsNode, null, "the agent (and every tool it runs) never sees ELECTRON_RUN_AS_NODE");
    if (fs.existsSync(`/proc/${shell.pid}/environ`)) {
      // sh runs the conductor in its own process: the environment it was started with.
      const started = fs.readFileSync(`/proc/${shell.pid}/environ`, "utf8").split("\0");
      assert.ok(started.includes(`${RUN_AS_NODE}=1`), "the conductor itself was started with it");
    }
    shell.stdin.end();
  });

  it("the editor-context proxy's agent does not get it either", async () => {
    const record = recordFile();
    const proxy = startNode(PROXY_CLI, ["--", process.execPath, RECORDER], { [RUN_AS_NODE]: "1", RECORD_FILE: record, SYMPOSIUM_EDITOR_STATE_FILE: "" });
    running.push(proxy.child);
    assert.equal((await firstRecord(record)).runAsNode, null);
    proxy.child.stdin!.end();
  });

  it("the panel host gives it to the built-in chat (its own executable), not to Toad", async () => {
    for (const [program, args, expected] of [
      [OTHER_PROGRAM, ["--exit"], null],
      [process.execPath, [RECORDER, "--exit"], "1"],
    ] as const) {
      const record = recordFile();
      // As the extension starts it: the variable in the host's environment and in the spec's.
      const host = await startTestHost({ frontend: { program, args: [...args] }, env: { [RUN_AS_NODE]: "1" } }, { [RUN_AS_NODE]: "1", RECORD_FILE: record });
      running.push(host.child);
      assert.equal((await firstRecord(record)).runAsNode, expected, `${path.basename(program)} as the frontend`);
      host.child.kill("SIGTERM");
      await host.exited;
    }
  });

  it("the panel host runs from the home directory, whatever the project", async () => {
    const record = recordFile();
    const project = tempDir("symposium-project-");
    const logDir = tempDir("symposium-log-");
    const child = spawnHost(
      { program: process.execPath, script: RECORDER, env: { RECORD_FILE: record } },
      {
        launchId: crypto.randomUUID(),
        secret: "s".repeat(32),
        port: 1,
        frontend: { program: FAKE_TOAD, args: [] },
        cwd: project,
        env: {},
        allowedOrigins: [],
        idleTimeoutMs: 1000,
        logFile: path.join(logDir, "host.log"),
      },
    );
    running.push(child);
    assert.equal((await firstRecord(record)).cwd, os.homedir());
    child.kill("SIGKILL");
  });

  it("the built-in chat runs from the home directory and gets the project as --project-dir; Toad gets it as its working directory", () => {
    const project = tempDir("symposium-project-");
    const inputs = {
      config: { toadCommand: "builtin", toadPort: 0, acpAgentPath: "", editorContextEnabled: true },
      runtime: { program: process.execPath, script: "/ext/dist/symposium-panel-host.mjs", env: { [RUN_AS_NODE]: "1" } },
      extensionPath: "/ext",
      cwd: project,
      noticeToadMissing: () => {},
    };
    const builtin = planLaunch(inputs);
    assert.equal(builtin.cwd, os.homedir());
    assert.deepEqual(builtin.frontend.args.slice(-2), ["--project-dir", project]);
    // The conductor as a program and its arguments, the variable for it alone: nothing for a shell to read.
    assert.deepEqual(parseArgs(builtin.frontend.args.slice(1)).command, {
      kind: "program",
      program: process.execPath,
      args: [path.join("/ext", "dist", "symposium-conductor.mjs"), "run"],
      env: { [RUN_AS_NODE]: "1" },
    });
    // A multi-root workspace: its other folders as --add-dir; Toad has no such option.
    const second = tempDir("symposium-second-");
    assert.deepEqual(planLaunch({ ...inputs, additionalFolders: [second] }).frontend.args.slice(-4), ["--project-dir", project, "--add-dir", second]);
    assert.ok(
      !planLaunch({ ...inputs, additionalFolders: [second], config: { ...inputs.config, toadCommand: OTHER_PROGRAM } }).frontend.args.includes("--add-dir"),
    );
    const toad = planLaunch({ ...inputs, config: { ...inputs.config, toadCommand: OTHER_PROGRAM } });
    assert.equal(toad.frontend.program, OTHER_PROGRAM);
    assert.equal(toad.cwd, project);
    assert.ok(!toad.frontend.args.includes("--project-dir"), "Toad's serve mode drops it; it takes the working directory");
  });
});
