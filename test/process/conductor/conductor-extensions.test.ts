// `symposium-conductor extensions …` (docs/extensions.md): the config's
// proxies managed from the command line, the user's comments and layout kept;
// `run` honours their order and `enabled` (the chain it logs, and a
// conversation through it); an executable, an npx package (a local folder) and
// an extension JSON served on loopback added, then a conversation runs through
// each; a broken extension names itself and how to start without it; hostile
// specs and JSON refused, the config file left as it was.

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { openSession, testClient } from "../../support/acp-client.js";
import { node, run } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, PROXY_CLI, REPORTING_AGENT, streamTo, tempDir } from "../../support/processes.js";

const POSIX = process.platform !== "win32";
const CONFIG_TEXT = `{
  // my agent, chosen by hand
  "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)},
  "proxies": [
    // the first is closest to the editor
    { "name": "first", "enabled": true, "command": ${JSON.stringify(`${node} ${PROXY_CLI}`)} },
    { "name": "second", "enabled": true, "command": ${JSON.stringify(`${node} ${PROXY_CLI}`)} }, // mine
  ],
}
`;

function writeConfig(text = CONFIG_TEXT): string {
  const file = path.join(tempDir(), "config.jsonc");
  fs.writeFileSync(file, text);
  return file;
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function extensions(config: string, ...args: string[]): Promise<CliResult> {
  return extensionsWith({}, config, ...args);
}

async function extensionsWith(env: NodeJS.ProcessEnv, config: string, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(node, [CONDUCTOR_CLI, "extensions", ...args, "--config", config], {
      env: { ...process.env, SYMPOSIUM_LOG: "", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** One session and prompt through `run`; the chain it logged, and the error the client got, if any. */
async function converse(config: string): Promise<{ chain: string; error: string | null; stderr: string }> {
  const proc = run(config, [], { SYMPOSIUM_LOG: "debug" });
  let error: string | null = null;
  await testClient(streamTo(proc.child))
    .run(async (agent) => {
      const sessionId = await openSession(agent);
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    })
    .catch((failure: unknown) => (error = JSON.stringify(failure)))
    .finally(() => proc.child.stdin!.end());
  await proc.exited;
  // The user's chain, after the hand-over guard every chain but the setup agent's starts with.
  const chain = /chain: client → hand-over guard \(in process\) → (.*)/.exec(proc.stderr())?.[1] ?? "";
  return { chain, error, stderr: proc.stderr() };
}

/** A proxy program: the editor-context proxy started by a file of its own (a package's bin, an executable). */
function proxyProgram(dir: string): string {
  const file = path.join(dir, "cli.js");
  fs.writeFileSync(
    file,
    `#!/usr/bin/env node\nconst child = require("node:child_process").spawn(process.execPath, [${JSON.stringify(PROXY_CLI)}], { stdio: "inherit" });\n` +
      `child.on("exit", (code) => process.exit(code ?? 1));\n`,
  );
  fs.chmodSync(file, 0o755);
  return file;
}

function localPackage(folder = "my-ext"): string {
  const dir = path.join(tempDir("symposium-ext-pkg-"), folder);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "my-ext", version: "1.0.0", bin: { "my-ext": "cli.js" } }));
  proxyProgram(dir);
  return dir;
}

describe("extensions: the CLI over the config file", () => {
  it("lists, moves, disables, enables and removes, keeping comments; run honours the order and enabled", async () => {
    const config = writeConfig();
    assert.equal((await converse(config)).chain, "first → second → agent-errors (in process) → agent meta guard (in process) → agent");
    const listed = JSON.parse((await extensions(config, "list", "--json")).stdout) as Array<{ name: string; enabled: boolean }>;
    assert.deepEqual(
      listed.map(({ name, enabled }) => [name, enabled]),
      [
        ["first", true],
        ["second", true],
      ],
    );
    assert.match((await extensions(config, "move", "second", "up")).stderr, /'second' is now extension 1 .*next conversation/);
    assert.equal((await converse(config)).chain, "second → first → agent-errors (in process) → agent meta guard (in process) → agent");
    await extensions(config, "disable", "second");
    assert.equal((await converse(config)).chain, "first → agent-errors (in process) → agent meta guard (in process) → agent");
    await extensions(config, "enable", "second");
    await extensions(config, "remove", "first");
    const text = fs.readFileSync(config, "utf8");
    assert.match(text, /\/\/ my agent, chosen by hand/);
    assert.match(text, /\/\/ the first is closest to the editor/);
    assert.match(text, /"second", "enabled": true, .*\/\/ mine/, "the entry keeps its line and its comment");
    assert.equal((await converse(config)).chain, "second → agent-errors (in process) → agent meta guard (in process) → agent");
    const list = (await extensions(config, "list")).stdout;
    assert.match(list, /^1\. second \(enabled\): /m);
  });

  it("refuses what it cannot do, saying what there is, and changes nothing", async () => {
    const config = writeConfig();
    const cases: Array<[string[], RegExp]> = [
      [["disable", "nope"], /no extension named 'nope' .* there are: first, second/],
      [["move", "first", "9"], /cannot move to position 9: there are 2 extensions/],
      [["move", "first", "sideways"], /move takes up, down or a position/],
      [["add", "file:///etc/passwd"], /an extension's URL must be http:\/\/ or https:\/\//],
      [["add", "npx:-rf", "--name", "x"], /'-rf' is not a package name/],
      [["add", "./no/such/program"], /does not exist\. An extension is a built-in/],
      [["add", "sparkle", "--name", "other"], /'sparkle' is a built-in/],
      [["add", "npx:a", "--name", "first"], /an extension named 'first' is in .* already/],
    ];
    for (const [args, message] of cases) {
      const result = await extensions(config, ...args);
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.stderr, message, args.join(" "));
    }
    assert.equal(fs.readFileSync(config, "utf8"), CONFIG_TEXT);
  });

  it("adds a built-in by name; this conductor says it cannot run it and how to start without it", async () => {
    const config = writeConfig();
    await extensions(config, "add", "sparkle");
    assert.match(fs.readFileSync(config, "utf8"), /\{ "name": "sparkle", "enabled": true \}/);
    const proc = run(config);
    assert.equal(await proc.exited, 2);
    assert.match(proc.stderr(), /'sparkle' is built into Symposium's Rust conductor.*`symposium-conductor extensions disable sparkle`/s);
  });

  it(
    "adds an executable and an npx package, then a conversation runs through both",
    { skip: !POSIX && "an executable script needs a POSIX shebang" },
    async () => {
      const config = writeConfig(`{ "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)} }\n`);
      const program = proxyProgram(tempDir("symposium-ext-exe-"));
      assert.equal((await extensions(config, "add", program, "--name", "mine")).code, 0);
      assert.equal((await extensions(config, "add", `npx:${localPackage("packaged")}`)).code, 0, "named after its folder");
      const { chain, error } = await converse(config);
      assert.equal(error, null);
      assert.equal(chain, "mine → packaged → agent-errors (in process) → agent meta guard (in process) → agent");
    },
  );

  it("a broken extension names itself and how to start without it", { skip: !POSIX && "an executable script needs a POSIX shebang" }, async () => {
    const config = writeConfig(`{ "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)} }\n`);
    const dir = tempDir("symposium-ext-gone-");
    await extensions(config, "add", proxyProgram(dir), "--name", "flaky");
    fs.rmSync(dir, { recursive: true });
    const { error, stderr } = await converse(config);
    assert.match(error ?? "", /component 'flaky'.*To start without the extension 'flaky': symposium-conductor extensions disable flaky/);
    assert.match(stderr, /symposium-conductor extensions disable flaky/);
    await extensions(config, "disable", "flaky");
    assert.equal((await converse(config)).error, null, "without it, the agent answers");
  });
});

describe("extensions: an extension's JSON at a URL", () => {
  const pages = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const page = pages.get(request.url ?? "");
    response.writeHead(page === undefined ? 404 : 200, { "content-type": "application/json" });
    response.end(page ?? "");
  });
  const listening = new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  after(() => server.close());

  it(
    "adds one served on loopback (an npx package), then a conversation runs through it",
    { skip: !POSIX && "the package's bin needs a POSIX shebang" },
    async () => {
      const base = await listening;
      pages.set("/ext.json", JSON.stringify({ id: "served-ext", name: "Served", distribution: { npx: { package: localPackage() } } }));
      const config = writeConfig(`{ "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)} }\n`);
      const added = await extensions(config, "add", `${base}/ext.json`);
      assert.equal(added.code, 0, added.stderr);
      const { chain, error } = await converse(config);
      assert.equal(error, null);
      assert.equal(chain, "served-ext → agent-errors (in process) → agent meta guard (in process) → agent");
    },
  );

  it(
    "adds an ACP registry id (a registry served on loopback), then a conversation runs through it",
    { skip: !POSIX && "the package's bin needs a POSIX shebang" },
    async () => {
      const base = await listening;
      pages.set(
        "/registry.json",
        JSON.stringify({
          version: "1.0.0",
          agents: [{ id: "listed-ext", name: "Listed", version: "1.0.0", distribution: { npx: { package: localPackage() } } }],
        }),
      );
      const config = writeConfig(`{ "agent": ${JSON.stringify(`${node} ${REPORTING_AGENT}`)} }\n`);
      const env = { SYMPOSIUM_REGISTRY_URL: `${base}/registry.json` };
      const missing = await extensionsWith(env, config, "add", "acp:not-listed");
      assert.match(missing.stderr, /lists no 'not-listed'; `symposium-conductor registry list` shows what it has/);
      const added = await extensionsWith(env, config, "add", "acp:listed-ext");
      assert.equal(added.code, 0, added.stderr);
      assert.match(fs.readFileSync(config, "utf8"), /"source": "acp:listed-ext"/);
      const { chain, error } = await converse(config);
      assert.equal(error, null);
      assert.equal(chain, "listed-ext → agent-errors (in process) → agent meta guard (in process) → agent");
    },
  );

  it("refuses JSON that lies, a local program, a huge body, and what is not JSON; nothing is run or written", async () => {
    const base = await listening;
    const marker = path.join(tempDir(), "ran");
    pages.set("/local.json", JSON.stringify({ id: "sneaky", distribution: { local: { command: "/bin/sh", args: ["-c", `touch ${marker}`] } } }));
    pages.set("/huge.json", JSON.stringify({ id: "huge", description: "x".repeat(300 * 1024), distribution: { npx: { package: "x" } } }));
    pages.set("/html.json", "<html>not json</html>");
    pages.set("/bad-id.json", JSON.stringify({ id: "../../etc", distribution: { npx: { package: "x" } } }));
    const config = writeConfig();
    const cases: Array<[string, RegExp]> = [
      ["/local.json", /names a program on this machine \("local"\).*Nothing was run/],
      ["/huge.json", /more than 262144 bytes; refused, nothing installed/],
      ["/html.json", /is not JSON/],
      ["/bad-id.json", /must be letters, digits/],
      ["/missing.json", /cannot be read: HTTP 404/],
    ];
    for (const [page, message] of cases) {
      const result = await extensions(config, "add", `${base}${page}`);
      assert.equal(result.code, 2, page);
      assert.match(result.stderr, message, page);
    }
    assert.equal(fs.existsSync(marker), false);
    assert.equal(fs.readFileSync(config, "utf8"), CONFIG_TEXT);
  });
});
