// The Windows smoke run's driver (scripts/windows-smoke.sh): runs on Windows'
// Node under Wine and drives the bundled conductor over real pipes, the way
// the built-in chat and a config file start it on Windows. Writes PASS/FAIL
// lines to RESULT (Wine's own stdout is no pipe Node can use); exit status 1
// on any FAIL. Wine's cmd is more lenient than Windows' in quoting: the unit
// tests (test/*/platform-*.test.ts), not this run, decide quoting.
//
//   node.exe windows-smoke.mjs REPO_DIR WORK_DIR RESULT   (Windows paths)

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [repo, work, result] = process.argv.slice(2);
const lines = [];
let failed = false;
const log = (text) => {
  lines.push(text);
  fs.writeFileSync(result, `${lines.join("\n")}\n`);
};
const check = (name, pass, detail) => {
  failed ||= !pass;
  log(`${pass ? "PASS" : "FAIL"} ${name}${pass ? "" : `: ${detail}`}`);
};

const CONDUCTOR = path.join(repo, "dist", "symposium-conductor.mjs");
const NODE_WITH_SPACE = "C:\\Program Files\\Node Test\\node.exe";
const home = path.join(work, "home");
const symposium = path.join(home, ".symposium");
const env = (extra) => ({ ...process.env, SYMPOSIUM_EDITOR_STATE_FILE: "", SYMPOSIUM_AGENT: "", ...extra });

/** initialize, session/new, one prompt; the agent's reply text. */
function converse(child, prompt) {
  return new Promise((resolve) => {
    let buffer = "";
    let reply = "";
    let stderr = "";
    const timer = setTimeout(() => (child.kill(), resolve({ reply, stderr, timeout: true })), 60_000);
    const send = (id, method, params) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    child.stderr.on("data", (data) => (stderr += data));
    child.on("error", (error) => (clearTimeout(timer), resolve({ reply, stderr: `${stderr}${error}` })));
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.id === 1) send(2, "session/new", { cwd: work, mcpServers: [] });
        else if (message.id === 2) send(3, "session/prompt", { sessionId: message.result.sessionId, prompt: [{ type: "text", text: prompt }] });
        else if (message.id === 3) {
          clearTimeout(timer);
          child.stdin.end();
          resolve({ reply, stderr });
        } else if (message.method === "session/update" && message.params.update.sessionUpdate === "agent_message_chunk")
          reply += message.params.update.content.text ?? "";
      }
    });
    send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  });
}

const answered = (turn, prompt) => new RegExp(`built-in demo agent[\\s\\S]*${prompt}`).test(turn.reply);
const show = (turn) => JSON.stringify(turn).slice(0, 1000);

fs.rmSync(home, { recursive: true, force: true });
log(`node ${process.version} on ${process.platform}`);

let turn = await converse(
  spawn(process.execPath, [CONDUCTOR, "run"], { env: env({ SYMPOSIUM_CONFIG: path.join(symposium, "config.jsonc"), SYMPOSIUM_AGENT: "demo" }) }),
  "first",
);
check("run with SYMPOSIUM_AGENT=demo: the demo agent answers", answered(turn, "first"), show(turn));
const launcher = path.join(symposium, "bin", "symposium-conductor.cmd");
const agent = JSON.parse(/"agent": (".*")/.exec(fs.readFileSync(path.join(symposium, "config.jsonc"), "utf8"))?.[1] ?? '""');
check("the config names the .cmd launcher", agent === `${launcher} demo-agent`, agent);

turn = await converse(spawn(process.execPath, [CONDUCTOR, "run"], { env: env({ SYMPOSIUM_CONFIG: path.join(symposium, "config.jsonc") }) }), "second");
check("the next run starts the demo agent through the .cmd launcher", answered(turn, "second"), show(turn));

const windowsConfig = path.join(home, "windows-paths.jsonc");
fs.writeFileSync(windowsConfig, JSON.stringify({ agent: `"${NODE_WITH_SPACE}" ${CONDUCTOR} demo-agent` }));
turn = await converse(spawn(process.execPath, [CONDUCTOR, "run"], { env: env({ SYMPOSIUM_CONFIG: windowsConfig }) }), "third");
check("a config agent with backslashes and a space (split by Windows' rules)", answered(turn, "third"), show(turn));

const { conductorRunCommand } = await import(pathToFileURL(path.join(repo, "out", "extension", "src", "frontend-command-line.js")).href);
const line = conductorRunCommand({ program: NODE_WITH_SPACE, args: [CONDUCTOR], env: { ELECTRON_RUN_AS_NODE: "1" } }, "cmd");
log(`the run command line: ${line}`);
turn = await converse(spawn(line, [], { shell: true, env: env({ SYMPOSIUM_CONFIG: windowsConfig }) }), "fourth");
check("the run command line through cmd.exe /d /s /c, as the built-in chat runs it", answered(turn, "fourth"), show(turn));

const gone = path.join(home, "gone.cmd");
fs.writeFileSync(gone, fs.readFileSync(launcher, "utf8").replaceAll(CONDUCTOR, "C:\\nowhere\\symposium-conductor.mjs"));
const ended = spawnSync("cmd.exe", ["/d", "/s", "/c", `"${gone} demo-agent"`], { windowsVerbatimArguments: true, encoding: "utf8" });
check(
  "a launcher whose conductor is gone: status 127 and what to do",
  ended.status === 127 && ended.stderr.includes("is gone (an extension update, or a moved clone)"),
  show(ended),
);

log(failed ? "FAILED" : "all passed");
process.exit(failed ? 1 : 0);
