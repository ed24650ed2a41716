// Choosing agents as a user does, with the real conductor CLI: `registry
// list`, `registry use <id>`, then `run` talks to the chosen agent over ACP.
// The recording agent (the reporting agent behind a script that says how it
// was started) is installed through each distribution kind that can run
// here: local (a custom entry in the config), binary (a tar.gz served by a
// registry on 127.0.0.1), npx (a package packed into a temporary folder).
// Cargo runs a stand-in `cargo` on PATH: a real `cargo install` needs
// crates.io's API (not reachable here), minutes of compiling, and a crate
// that carries this agent, which none does.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { platformKey } from "../../../conductor-hooks/src/registry-format.js";
import { openSession, testClient } from "../../support/acp-client.js";
import { escapeRegExp, promptEach } from "../../support/conductor-run.js";
import { CONDUCTOR_CLI, REPORTING_AGENT, eventually, startNode, streamTo, tempDir } from "../../support/processes.js";
import {
  recordingNpmPackage,
  recordingScript,
  recordingTarball,
  startRegistryServer,
  tarballOf,
  tarballWithEntry,
  zipWith,
  type RegistryServer,
} from "../../support/registry-server.js";

const PLATFORM = platformKey()!;
let server: RegistryServer;

interface Home {
  config: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh ~/.symposium whose registry is the local server's /registry.json. */
function home(extraConfig?: object): Home {
  const config = path.join(tempDir("registry-home-"), "config.jsonc");
  if (extraConfig) fs.writeFileSync(config, JSON.stringify(extraConfig, null, 2));
  return {
    config,
    env: {
      SYMPOSIUM_CONFIG: config,
      SYMPOSIUM_EDITOR_STATE_FILE: "",
      SYMPOSIUM_AGENT: "",
      SYMPOSIUM_REGISTRY_URL: server.url("/registry.json"),
      npm_config_cache: path.join(path.dirname(config), "npm-cache"),
      npm_config_update_notifier: "false",
    },
  };
}

/**
 * Runs the CLI to its end (asynchronously: the registry server lives in this process).
 * After `timeoutMs` it is killed and its code is -1 (a CLI that hangs fails the test, not the run).
 */
function cli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONDUCTOR_CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill();
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? -1 : (code ?? 1), stdout, stderr });
    });
  });
}

/** `run`, one prompt: what the agent answered, and the conductor's stderr (the agent's lines prefixed "[agent] "). */
async function converse(env: NodeJS.ProcessEnv, text = "hello"): Promise<{ reply: string; stderr: string; code: number }> {
  const { replies, stderr, code } = await conversation(env, [text]);
  return { reply: replies[0]!, stderr, code };
}

/** `run`, one session, each text a prompt in turn: the reply to each. `whileOpen` runs once the session is open. */
async function conversation(
  env: NodeJS.ProcessEnv,
  texts: string[],
  whileOpen?: () => Promise<void>,
): Promise<{ replies: string[]; stderr: string; code: number }> {
  const proc = startNode(CONDUCTOR_CLI, ["run"], env);
  const peer = testClient(streamTo(proc.child));
  const replies = await peer
    .run(async (agent) => {
      const sessionId = await openSession(agent);
      await whileOpen?.();
      return promptEach(agent, peer, sessionId, texts);
    })
    .finally(() => proc.child.stdin!.end());
  return { replies, stderr: proc.stderr(), code: await proc.exited };
}

function binaryEntry(id: string, version: string, archive: string, extra: object = {}): object {
  return {
    id,
    name: `Recording agent (${id})`,
    version,
    description: "the recording agent as a binary archive",
    distribution: { binary: { [PLATFORM]: { archive: server.url(archive), cmd: "./bin/recording-agent", ...extra } } },
  };
}

function serveRegistry(agents: object[]): void {
  server.files.set("/registry.json", JSON.stringify({ version: "1.0.0", agents }));
}

function localCustom(id: string): object {
  const script = path.join(tempDir("registry-local-"), "agent.mjs");
  fs.writeFileSync(script, recordingScript("local"));
  return {
    id,
    name: "My local agent",
    description: "custom, from the config",
    distribution: { local: { command: process.execPath, args: [script, "--from-config"], env: { RECORDED_BY: "local-env" } } },
  };
}

before(async () => {
  server = await startRegistryServer();
});
after(() => server.close());

describe("registry list and resolve", () => {
  it("lists the built-in agents, the config's custom ones and the registry's, as one JSON array on stdout", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/rec-1.tar.gz", tarball.bytes);
    serveRegistry([binaryEntry("rec-binary", "1.0.0", "/rec-1.tar.gz")]);
    const { config, env } = home({ agent: "echo unused", agents: [localCustom("my-agent")] });
    const listed = await cli(["registry", "list"], env);
    assert.equal(listed.code, 0, listed.stderr);
    const agents = JSON.parse(listed.stdout) as Array<{ id: string; name: string; version?: string; description?: string }>;
    assert.deepEqual(
      agents.slice(0, 2).map((agent) => agent.id),
      ["my-agent", "claude"],
    );
    assert.ok(agents.some((agent) => agent.id === "demo"));
    assert.deepEqual(
      agents.find((agent) => agent.id === "rec-binary"),
      {
        id: "rec-binary",
        name: "Recording agent (rec-binary)",
        version: "1.0.0",
        description: "Download not verified: the registry gives no SHA-256 · the recording agent as a binary archive",
      },
    );
    for (const agent of agents)
      assert.deepEqual(
        Object.keys(agent).filter((key) => !["id", "name", "version", "description"].includes(key)),
        [],
      );
    assert.equal(listed.stdout.trim().split("\n").length, 1, "stdout is the JSON alone");
    // Nothing was installed by listing.
    assert.equal(fs.existsSync(path.join(path.dirname(config), "cache")), false);
  });

  it("resolves an id to a ready-to-spawn {name, command, args, env}, installing a binary first", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/rec-2.tar.gz", tarball.bytes);
    serveRegistry([binaryEntry("rec-resolve", "2.0.0", "/rec-2.tar.gz", { sha256: tarball.sha256, args: ["--acp"] })]);
    const { config, env } = home();
    const resolved = await cli(["registry", "resolve", "rec-resolve"], env);
    assert.equal(resolved.code, 0, resolved.stderr);
    const spec = JSON.parse(resolved.stdout) as { name: string; command: string; args: string[]; env: unknown[] };
    assert.deepEqual(spec, {
      name: "Recording agent (rec-resolve)",
      command: path.join(path.dirname(config), "cache", "agents", "rec-resolve", "2.0.0", "bin", "recording-agent"),
      args: ["--acp"],
      env: [],
    });
    assert.ok(fs.statSync(spec.command).mode & 0o100, "the command is executable");
    const local = await cli(["registry", "resolve", "my-agent"], home({ agent: "x", agents: [localCustom("my-agent")] }).env);
    const localSpec: unknown = JSON.parse(local.stdout);
    assert.ok(typeof localSpec === "object" && localSpec !== null && "env" in localSpec, local.stdout);
    assert.deepEqual(localSpec.env, [{ name: "RECORDED_BY", value: "local-env" }]);
  });

  it("says which id is unknown, and where to look", async () => {
    serveRegistry([]);
    const result = await cli(["registry", "resolve", "nobody"], home().env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no agent with the id 'nobody'; `symposium-conductor registry list` shows them/);
    assert.equal(result.stdout, "");
  });
});

describe("choosing an agent, then running it", () => {
  it("runs the chosen agent from each distribution (local, binary, npx), and switches between them", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/rec-3.tar.gz", tarball.bytes);
    const npmPackage = recordingNpmPackage();
    serveRegistry([binaryEntry("rec-binary", "3.0.0", "/rec-3.tar.gz", { sha256: tarball.sha256 })]);
    const npxAgent = { id: "rec-npx", name: "Recording agent (npx)", distribution: { npx: { package: `file:${npmPackage}`, args: ["--from-npx"] } } };
    // "file:": npx runs a bare path that exists as a program instead of installing it as a package.
    const { config, env } = home({ agent: `${process.execPath} ${REPORTING_AGENT}`, agents: [localCustom("my-agent"), npxAgent] });

    // The first format, a command line, keeps working.
    const legacy = await converse(env);
    assert.match(legacy.reply, /"received"/);
    assert.doesNotMatch(legacy.stderr, /recording-agent via/);

    for (const [id, kind, args] of [
      ["my-agent", "local", ["--from-config"]],
      ["rec-binary", "binary", []],
      ["rec-npx", "npx", ["--from-npx"]],
      ["my-agent", "local", ["--from-config"]],
    ] as const) {
      const used = await cli(["registry", "use", id], env);
      assert.equal(used.code, 0, used.stderr);
      assert.match(used.stderr, /is now the agent in/);
      const { reply, stderr, code } = await converse(env, `hello ${kind}`);
      assert.equal(code, 0, stderr);
      assert.match(reply, new RegExp(`hello ${kind}`), stderr);
      assert.match(stderr, new RegExp(`\\[agent\\] recording-agent via ${kind} args=${escapeRegExp(JSON.stringify(args))}`));
    }
    // The config keeps its other settings and comments; the agent is the whole entry.
    const written = fs.readFileSync(config, "utf8");
    assert.match(written, /"agents"/);
    assert.match(written, /"id": "my-agent"/);
  });

  it("a registry agent is kept up to date on run: checked beside the session, the next run installs the new version and removes the old; custom entries are untouched", async () => {
    const first = await recordingTarball("binary");
    const second = await recordingTarball("binary");
    server.files.set("/sync-1.tar.gz", first.bytes);
    server.files.set("/sync-2.tar.gz", second.bytes);
    const registryNamesake = { id: "my-agent", description: "the registry's, not mine", distribution: { npx: { package: "someone-elses-agent" } } };
    serveRegistry([binaryEntry("rec-sync", "1.0.0", "/sync-1.tar.gz"), registryNamesake]);
    const custom = localCustom("my-agent");
    const { config, env } = home({ agent: "x", agents: [custom] });
    assert.equal((await cli(["registry", "use", "rec-sync"], env)).code, 0);
    assert.equal((await converse(env)).code, 0);
    const cache = path.join(path.dirname(config), "cache", "agents", "rec-sync");
    assert.deepEqual(fs.readdirSync(cache), ["1.0.0"]);

    serveRegistry([binaryEntry("rec-sync", "1.1.0", "/sync-2.tar.gz"), registryNamesake]);
    const updatedInFile = (): boolean => fs.readFileSync(config, "utf8").includes('"version": "1.1.0"');
    const checking = await conversation(env, ["during the check"], () => eventually(updatedInFile, 10_000, "the registry check to rewrite the entry"));
    assert.equal(checking.code, 0, checking.stderr);
    assert.match(checking.stderr, /updated rec-sync from the registry: version 1\.0\.0 → 1\.1\.0/);
    assert.match(checking.replies[0]!, /during the check/);
    assert.deepEqual(fs.readdirSync(cache), ["1.0.0"], "the run that found the update ran the version it started with");
    const run = await converse(env, "after the update");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.reply, /after the update/);
    assert.deepEqual(fs.readdirSync(cache), ["1.1.0"], "the next run installed the new version and removed the old");
    const written = fs.readFileSync(config, "utf8");
    assert.match(written, /"version": "1.1.0"/);
    assert.match(written, /"_source": "registry"/);
    assert.match(written, /"description": "custom, from the config"/, "a custom entry is never updated");
  });

  it("a registry that never answers does not hold up the run: the session is answered before the registry's timeout", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/silent-1.tar.gz", tarball.bytes);
    serveRegistry([binaryEntry("rec-silent", "1.0.0", "/silent-1.tar.gz")]);
    const { env } = home();
    assert.equal((await cli(["registry", "use", "rec-silent"], env)).code, 0);
    const asked = server.requests.length;
    server.silent.add("/registry.json");
    try {
      const run = await converse(env, "while the registry says nothing");
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.reply, /while the registry says nothing/);
      assert.ok(server.requests.slice(asked).includes("/registry.json"), "the run asked the registry");
      // The check gives up, and says so, only at its fetch timeout (5 s): the whole session was over before.
      assert.doesNotMatch(run.stderr, /cannot be reached/, run.stderr);
    } finally {
      server.silent.delete("/registry.json");
    }
  });

  it("a zip archive is unpacked with its modes, and runs", async () => {
    server.files.set(
      "/rec.zip",
      zipWith([
        { name: "bin/", content: "", mode: 0o40755 },
        { name: "bin/recording-agent", content: recordingScript("zip"), mode: 0o100755 },
      ]),
    );
    serveRegistry([binaryEntry("rec-zip", "1.0.0", "/rec.zip")]);
    const { env } = home();
    assert.equal((await cli(["registry", "use", "rec-zip"], env)).code, 0);
    const run = await converse(env, "hello zip");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /recording-agent via zip/);
  });

  it("the first-run menu offers the registry's agents; one chosen by id is saved whole and answers the first question", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/menu.tar.gz", tarball.bytes);
    serveRegistry([binaryEntry("rec-menu", "1.0.0", "/menu.tar.gz", { sha256: tarball.sha256 })]);
    const { config, env } = home();
    const { replies, stderr, code } = await conversation(env, ["what is 2+2?", "rec-menu"]);
    assert.equal(code, 0, stderr);
    assert.match(
      replies[0]!,
      /1\. Claude Code\n[\s\S]*5\. Built-in demo agent[\s\S]*Or one from the ACP agent registry, by its id:\n[\s\S]*- rec-menu: Recording agent \(rec-menu\) 1\.0\.0 — the recording agent as a binary archive/,
    );
    assert.match(replies[1]!, /^Saved: Recording agent \(rec-menu\) is your agent[\s\S]*what is 2\+2\?/);
    assert.match(stderr, /recording-agent via binary/);
    const saved = fs.readFileSync(config, "utf8");
    assert.match(saved, /"_source": "registry"/);
    assert.match(saved, /"id": "rec-menu"/);
    // The next run reads the saved entry, no menu.
    const next = await converse(env, "again");
    assert.match(next.reply, /again/);
  });

  it("offline: with the registry unreachable, the shipped snapshot is listed and resolved", async () => {
    const { env } = home();
    const offline = { ...env, SYMPOSIUM_REGISTRY_URL: "http://127.0.0.1:1/registry.json" };
    const listed = await cli(["registry", "list"], offline);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stderr, /cannot be reached .*using the snapshot shipped with Symposium/);
    const entries = JSON.parse(listed.stdout) as Array<{ id: string; name: string; current?: boolean }>;
    const ids = entries.map((agent) => agent.id);
    for (const id of ["claude", "demo", "gemini", "codex", "qwen-code"]) assert.ok(ids.includes(id), `${id} in ${ids.join(", ")}`);
    // One entry and one name per agent: the registry's Claude Code and Codex CLI are the built-ins.
    for (const id of ["claude-code-acp", "codex-acp"]) assert.ok(!ids.includes(id), `${id} merged into its built-in entry: ${ids.join(", ")}`);
    const names = entries.map((agent) => agent.name);
    assert.deepEqual(
      names.filter((name, index) => names.indexOf(name) !== index),
      [],
      "no name twice",
    );
    assert.ok(!names.includes("Codex CLI"), names.join(", "));
    assert.deepEqual(
      entries.filter((agent) => agent.current),
      [],
      "no config yet: no current agent",
    );
    // A config written earlier with the registry's id still runs: the id resolves, and lists as its built-in.
    assert.equal((await cli(["registry", "resolve", "claude-code-acp"], offline)).code, 0);
    const resolved = await cli(["registry", "resolve", "qwen-code"], offline);
    assert.equal(resolved.code, 0, resolved.stderr);
    const spec = JSON.parse(resolved.stdout) as { command: string; args: string[] };
    assert.equal(spec.command, "npx");
    assert.equal(spec.args[0], "-y");
    // The demo agent runs with no network at all.
    assert.equal((await cli(["registry", "use", "demo"], offline)).code, 0);
    const after = JSON.parse((await cli(["registry", "list"], offline)).stdout) as Array<{ id: string; current?: boolean }>;
    assert.deepEqual(
      after.filter((agent) => agent.current).map((agent) => agent.id),
      ["demo"],
      "the configured agent is marked current",
    );
    const demo = await converse(offline, "are you there?");
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.reply, /are you there\?/);
  });

  it("cargo: binstall, else cargo install --root into the per-version cache; a new version replaces the old", async () => {
    // A stand-in for cargo on PATH: a real install needs crates.io's API (not reachable here) and minutes of compiling.
    const fakeBin = tempDir("registry-fake-cargo-");
    const calls = path.join(fakeBin, "calls.log");
    fs.writeFileSync(
      path.join(fakeBin, "cargo"),
      [
        "#!/usr/bin/env node",
        'import * as fs from "node:fs";',
        'import * as path from "node:path";',
        "const args = process.argv.slice(2);",
        `fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify(args) + "\\n");`,
        'if (args[0] !== "install") { process.stderr.write("error: no such command: `" + args[0] + "`\\n"); process.exit(101); }',
        'const root = args[args.indexOf("--root") + 1];',
        'fs.mkdirSync(path.join(root, "bin"), { recursive: true });',
        `fs.writeFileSync(path.join(root, "bin", "recording-agent"), ${JSON.stringify(recordingScript("cargo"))}, { mode: 0o755 });`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    const crate = (version: string): object => ({
      id: "rec-cargo-install",
      distribution: { cargo: { crate: "recording-agent", version, binary: "recording-agent" } },
    });
    const { config, env } = home({ agent: { id: "rec-cargo-install" }, agents: [crate("0.1.0")] });
    const withCargo = { ...env, PATH: `${fakeBin}${path.delimiter}${process.env.PATH}` };
    const first = await converse(withCargo, "hello cargo");
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /recording-agent via cargo/);
    const cache = path.join(path.dirname(config), "cache", "agents", "rec-cargo-install");
    const [binstall, install] = fs
      .readFileSync(calls, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    assert.deepEqual(binstall!.slice(0, 3), ["binstall", "--no-confirm", "--root"]);
    assert.deepEqual([install![0], install![1], install![3]], ["install", "--root", "recording-agent@0.1.0"]);
    assert.match(install![2]!, new RegExp(`^${escapeRegExp(cache)}[\\\\/]\\.staging-`), "installed into a staging folder, renamed whole");
    assert.deepEqual(fs.readdirSync(cache), ["0.1.0"]);
    // Cached: the second run calls no cargo.
    assert.equal((await converse(withCargo)).code, 0);
    assert.equal(fs.readFileSync(calls, "utf8").trim().split("\n").length, 2);
    fs.writeFileSync(config, JSON.stringify({ agent: { id: "rec-cargo-install" }, agents: [crate("0.2.0")] }));
    assert.equal((await converse(withCargo)).code, 0);
    assert.deepEqual(fs.readdirSync(cache), ["0.2.0"], "the old version is removed");
  });

  it("cargo: a crate in its per-version cache runs without cargo or crates.io", async () => {
    const crate = {
      id: "rec-cargo",
      name: "Recording agent (cargo)",
      distribution: { cargo: { crate: "recording-agent", version: "0.1.0", binary: "recording-agent" } },
    };
    const { config, env } = home({ agent: { id: "rec-cargo" }, agents: [crate] });
    const bin = path.join(path.dirname(config), "cache", "agents", "rec-cargo", "0.1.0", "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "recording-agent"), recordingScript("cargo"), { mode: 0o755 });
    const run = await converse({ ...env, PATH: path.dirname(process.execPath) });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /recording-agent via cargo/);
  });
});

describe("a malformed or hostile registry is refused, and nothing is installed", () => {
  async function refused(registry: string | Buffer, id: string, expected: RegExp, archives: Record<string, Buffer> = {}): Promise<void> {
    server.files.set("/registry.json", registry);
    for (const [file, bytes] of Object.entries(archives)) server.files.set(file, bytes);
    const { config, env } = home();
    const result = await cli(["registry", "resolve", id], env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, expected);
    assert.equal(result.stdout, "");
    const cache = path.join(path.dirname(config), "cache", "agents");
    const left = fs.existsSync(cache) ? fs.readdirSync(cache, { recursive: true }) : [];
    assert.deepEqual(
      left.filter((entry) => !String(entry).endsWith(id)),
      [],
      `nothing installed: ${left.join(", ")}`,
    );
    assert.equal(fs.existsSync(path.join(path.dirname(config), "cache", "escaped")), false);
  }

  it("larger than 4 MiB", async () => {
    await refused(
      `{"agents": [], "padding": "${"x".repeat(5 * 1024 * 1024)}"}`,
      "claude",
      /was refused: it is larger than 4194304 bytes\. Nothing was installed/,
    );
  });

  it("not JSON, or the wrong types", async () => {
    await refused("<html>", "x", /was refused: it is not JSON/);
    await refused(JSON.stringify({ agents: "all of them" }), "x", /registry: expected an object with an "agents" list/);
    await refused(JSON.stringify({ agents: [{ id: 7, distribution: {} }] }), "x", /agents\[0\]\.id: must be a string/);
    await refused(
      JSON.stringify({ agents: [{ id: "a", distribution: { npx: { package: "p", args: "--yes" } } }] }),
      "a",
      /agents\[0\] \('a'\)\.distribution\.npx\.args: must be a list/,
    );
  });

  it("a local command: a registry names packages and downloads only", async () => {
    await refused(
      JSON.stringify({ agents: [{ id: "local-one", distribution: { local: { command: "sh", args: ["-c", "echo pwned"] } } }] }),
      "local-one",
      /'local-one' names a local command; a registry may only name packages and downloads/,
    );
  });

  it("an id or version that would leave the cache folder", async () => {
    await refused(
      JSON.stringify({ agents: [{ id: "../../escaped", distribution: { local: { command: "sh" } } }] }),
      "../../escaped",
      /'..\/..\/escaped' must be letters, digits/,
    );
    await refused(JSON.stringify({ agents: [binaryEntry("v", "../../escaped", "/rec.tar.gz")] }), "v", /version: '..\/..\/escaped' must be/);
  });

  it("a command or archive entry outside the archive's folder", async () => {
    await refused(
      JSON.stringify({
        agents: [
          {
            ...binaryEntry("cmd-out", "1", "/a.tar.gz"),
            distribution: { binary: { [PLATFORM]: { archive: server.url("/a.tar.gz"), cmd: "../../../bin/sh" } } },
          },
        ],
      }),
      "cmd-out",
      /cmd: '..\/..\/..\/bin\/sh' must be a path inside the archive/,
    );
    await refused(
      JSON.stringify({ agents: [binaryEntry("traversal", "1.0.0", "/traversal.tar.gz")] }),
      "traversal",
      /refused .*traversal\.tar\.gz: the entry '..\/..\/escaped' would be written outside the folder/,
      {
        "/traversal.tar.gz": tarballWithEntry("../../escaped"),
      },
    );
  });

  it("a zip with an entry outside the folder, or a link", async () => {
    await refused(
      JSON.stringify({ agents: [binaryEntry("zip-out", "1.0.0", "/out.zip")] }),
      "zip-out",
      /refused .*out\.zip: .*(outside the folder|invalid relative path)/,
      {
        "/out.zip": zipWith([
          { name: "bin/recording-agent", content: "x", mode: 0o100755 },
          { name: "../../escaped", content: "pwned" },
        ]),
      },
    );
    await refused(
      JSON.stringify({ agents: [binaryEntry("zip-link", "1.0.0", "/link.zip")] }),
      "zip-link",
      /refused .*link\.zip: the entry 'bin\/recording-agent' is a link/,
      {
        "/link.zip": zipWith([{ name: "bin/recording-agent", content: "/bin/sh", mode: 0o120777 }]),
      },
    );
  });

  it("an archive whose checksum differs", async () => {
    const tarball = await recordingTarball("binary");
    await refused(
      JSON.stringify({ agents: [binaryEntry("bad-sum", "1.0.0", "/bad-sum.tar.gz", { sha256: "0".repeat(64) })] }),
      "bad-sum",
      /its SHA-256 is [0-9a-f]{64}, the registry says 0{64}/,
      { "/bad-sum.tar.gz": tarball.bytes },
    );
  });

  it("nothing for this platform: a clear error naming the platforms it has", async () => {
    const other = PLATFORM.startsWith("windows") ? "linux-x86_64" : "windows-x86_64";
    await refused(
      JSON.stringify({ agents: [{ id: "elsewhere", distribution: { binary: { [other]: { archive: "https://example.invalid/a.zip", cmd: "a.exe" } } } }] }),
      "elsewhere",
      new RegExp(`the agent 'elsewhere' has nothing that runs on this platform \\(${PLATFORM}\\): it has binaries for ${other} only`),
    );
  });
});

describe("hostile archives, downloads and values cannot leave the cache or change what runs", () => {
  /** `registry resolve id` against a registry of `agents`, in a fresh home: its result and that home's folder. */
  async function resolveIn(agents: object[], id: string, env: NodeJS.ProcessEnv = {}, timeoutMs?: number) {
    serveRegistry(agents);
    const { config, env: homeEnv } = home();
    const result = await cli(["registry", "resolve", id], { ...homeEnv, ...env }, timeoutMs);
    return { ...result, homeDir: path.dirname(config), cache: path.join(path.dirname(config), "cache", "agents") };
  }

  const agentFile = (content = recordingScript("binary")) => ({ name: "bin/recording-agent", content, mode: 0o755 });

  it("a chain of links, each lexically inside (a→., b→a/.., …), is refused; the file it reaches outside keeps its mode", async () => {
    // Staged in <home>/cache/agents/<id>/.staging-…: four steps up from b is <home>.
    const chain = [
      { name: "a", type: "symlink" as const, linkpath: "." },
      { name: "b", type: "symlink" as const, linkpath: "a/.." },
      { name: "c", type: "symlink" as const, linkpath: "b/.." },
      { name: "d", type: "symlink" as const, linkpath: "c/.." },
      { name: "e", type: "symlink" as const, linkpath: "d/.." },
    ];
    server.files.set("/chain.tar.gz", tarballOf([agentFile(), ...chain]));
    const entry = binaryEntry("chain", "1.0.0", "/chain.tar.gz");
    (entry as { distribution: { binary: Record<string, { cmd: string }> } }).distribution.binary[PLATFORM]!.cmd = "e/victim.txt";
    serveRegistry([entry]);
    const { config, env } = home();
    const victim = path.join(path.dirname(config), "victim.txt");
    fs.writeFileSync(victim, "not a program", { mode: 0o644 });
    const result = await cli(["registry", "resolve", "chain"], env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /refused .*chain\.tar\.gz: the link '[a-e]' leads outside the agent's folder/);
    assert.equal(result.stdout, "");
    assert.equal(fs.statSync(victim).mode & 0o777, 0o644, "the file outside was not made executable");
    assert.deepEqual(fs.readdirSync(path.join(path.dirname(config), "cache", "agents", "chain")), [], "nothing installed, no staging left");
  });

  it("a cached command whose real path is outside its folder (an older build's install) is refused before any chmod or spawn", async () => {
    server.files.set("/cached.tar.gz", (await recordingTarball("binary")).bytes);
    serveRegistry([binaryEntry("cached", "1.0.0", "/cached.tar.gz")]);
    const { config, env } = home();
    const outside = tempDir("registry-outside-");
    fs.writeFileSync(path.join(outside, "recording-agent"), "not a program", { mode: 0o644 });
    const folder = path.join(path.dirname(config), "cache", "agents", "cached", "1.0.0");
    fs.mkdirSync(folder, { recursive: true });
    fs.symlinkSync(outside, path.join(folder, "bin"), process.platform === "win32" ? "junction" : "dir");
    const result = await cli(["registry", "resolve", "cached"], env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /the installed command 'bin\/recording-agent' leads outside the agent's folder/);
    assert.equal(fs.statSync(path.join(outside, "recording-agent")).mode & 0o777, 0o644);
  });

  it("tar modes lose setuid, setgid and sticky bits, and owners are never the archive's", async () => {
    const stranger = 4321;
    server.files.set(
      "/modes.tar.gz",
      tarballOf([
        { name: "bin/", type: "directory", mode: 0o1777, uid: stranger, gid: stranger },
        { ...agentFile(), mode: 0o4755, uid: stranger, gid: stranger },
        { name: "lib/helper", content: "x", mode: 0o2755, uid: stranger, gid: stranger },
      ]),
    );
    const { code, stderr, cache } = await resolveIn([binaryEntry("modes", "1.0.0", "/modes.tar.gz")], "modes");
    assert.equal(code, 0, stderr);
    const folder = path.join(cache, "modes", "1.0.0");
    for (const file of ["bin", "bin/recording-agent", "lib/helper"]) {
      const stat = fs.statSync(path.join(folder, file));
      assert.equal(stat.mode & 0o7000, 0, `${file}: mode ${(stat.mode & 0o7777).toString(8)}`);
      if (process.getuid) assert.equal(stat.uid, process.getuid(), `${file} belongs to this user, not the archive's ${stranger}`);
    }
    assert.equal(fs.statSync(path.join(folder, "bin/recording-agent")).mode & 0o777, 0o755);
  });

  it("six resolves at once of one 3,000-file archive: all succeed, and the command, once there, never goes missing", async () => {
    const files = Array.from({ length: 3_000 }, (_, index) => ({ name: `share/${index % 30}/file-${index}.txt`, content: `file ${index}\n`, mode: 0o644 }));
    server.files.set("/big.tar.gz", tarballOf([agentFile(), ...files]));
    serveRegistry([binaryEntry("big", "1.0.0", "/big.tar.gz")]);
    const { config, env } = home();
    const command = path.join(path.dirname(config), "cache", "agents", "big", "1.0.0", "bin", "recording-agent");
    let running = true;
    let seen = 0;
    let missing = 0;
    const watching = (async () => {
      while (running) {
        if (fs.existsSync(command)) seen++;
        else if (seen > 0) missing++;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const results = await Promise.all(Array.from({ length: 6 }, () => cli(["registry", "resolve", "big"], env)));
    running = false;
    await watching;
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(new Set(results.map((result) => (JSON.parse(result.stdout) as { command: string }).command)), new Set([command]));
    assert.ok(seen > 0, "the watcher saw the command");
    assert.equal(missing, 0, `the command went missing ${missing} times after it was in place`);
    assert.deepEqual(fs.readdirSync(path.dirname(path.dirname(path.dirname(command)))), ["1.0.0"], "no staging folder left behind");
    assert.equal(fs.readdirSync(path.join(path.dirname(command), "..", "share")).length, 30);
  });

  it("a version folder without its command (an older build's, or tampered with) is moved aside and replaced whole", async () => {
    server.files.set("/partial.tar.gz", (await recordingTarball("binary")).bytes);
    serveRegistry([binaryEntry("partial", "1.0.0", "/partial.tar.gz")]);
    const { config, env } = home();
    const folder = path.join(path.dirname(config), "cache", "agents", "partial", "1.0.0");
    fs.mkdirSync(path.join(folder, "bin"), { recursive: true });
    fs.writeFileSync(path.join(folder, "leftover.txt"), "half an install");
    const result = await cli(["registry", "resolve", "partial"], env);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.statSync(path.join(folder, "bin", "recording-agent")).isFile());
    assert.equal(fs.existsSync(path.join(folder, "leftover.txt")), false);
    assert.deepEqual(fs.readdirSync(path.dirname(folder)), ["1.0.0"]);
  });

  it("a download that stalls (headers then silence, or no answer at all) ends with a clear error", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/stall.tar.gz", tarball.bytes);
    server.stalled.add("/stall.tar.gz");
    server.silent.add("/silent.tar.gz");
    try {
      for (const [id, file] of [
        ["stall", "/stall.tar.gz"],
        ["silent", "/silent.tar.gz"],
      ] as const) {
        const { code, stderr, stdout, cache } = await resolveIn([binaryEntry(id, "1.0.0", file)], id, { SYMPOSIUM_DOWNLOAD_STALL_MS: "1000" }, 20_000);
        assert.equal(code, 2, `${id}: ${stderr}`);
        assert.match(stderr, new RegExp(`the download of .*${escapeRegExp(file)} stalled: nothing arrived for 1 s`));
        assert.equal(stdout, "");
        assert.deepEqual(fs.readdirSync(path.join(cache, id)), [], "no staging left");
      }
    } finally {
      server.stalled.delete("/stall.tar.gz");
      server.silent.delete("/silent.tar.gz");
    }
  });

  it("an npx, pipx or uvx cmd must be a program name: npm 10's npx runs it through a shell", async () => {
    const marker = path.join(tempDir("registry-marker-"), "MARK");
    for (const kind of ["npx", "pipx", "uvx"]) {
      const { code, stderr } = await resolveIn(
        [{ id: `shell-${kind}`, distribution: { [kind]: { package: "some-agent", cmd: `x; touch ${marker} #` } } }],
        `shell-${kind}`,
      );
      assert.equal(code, 2, stderr);
      assert.match(stderr, new RegExp(`${kind}\\.cmd: 'x; touch .*' is not a program name`));
    }
    assert.equal(fs.existsSync(marker), false);
    const { code, stdout, stderr } = await resolveIn(
      [{ id: "plain-cmd", distribution: { npx: { package: "@scope/agent@1.2.3", cmd: "agent-acp" } } }],
      "plain-cmd",
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual((JSON.parse(stdout) as { args: string[] }).args, ["-y", "--package", "@scope/agent@1.2.3", "--", "agent-acp"]);
  });

  it("a registry may not set PATH, NODE_OPTIONS, LD_PRELOAD, DYLD_*, npm's config or the like in an agent's env", async () => {
    const archive = server.url("/rec.tar.gz");
    const cases: Array<[string, object]> = [
      ["PATH", { npx: { package: "agent", env: { PATH: "/tmp/evil" } } }],
      ["NODE_OPTIONS", { npx: { package: "agent", env: { NODE_OPTIONS: "--require /tmp/evil.js" } } }],
      ["npm_config_script_shell", { npx: { package: "agent", env: { npm_config_script_shell: "/tmp/evil" } } }],
      ["LD_PRELOAD", { binary: { [PLATFORM]: { archive, cmd: "agent", env: { LD_PRELOAD: "/tmp/evil.so" } } } }],
      ["DYLD_INSERT_LIBRARIES", { binary: { [PLATFORM]: { archive, cmd: "agent", env: { DYLD_INSERT_LIBRARIES: "/tmp/evil.dylib" } } } }],
      ["PYTHONPATH", { uvx: { package: "agent", env: { PYTHONPATH: "/tmp/evil" } } }],
    ];
    for (const [name, distribution] of cases) {
      const { code, stderr } = await resolveIn([{ id: "env-agent", distribution }], "env-agent");
      assert.equal(code, 2, `${name}: ${stderr}`);
      assert.match(stderr, new RegExp(`env: a registry may not set ${name} `));
    }
    // An entry imported from a registry into the config is held to the same rule; the user's own entries are not.
    const imported = { id: "imported", _source: "registry", distribution: { npx: { package: "agent", env: { PATH: "/tmp/evil" } } } };
    const own = { id: "own", distribution: { local: { command: "my-agent", env: { PATH: "/opt/mine" } } } };
    serveRegistry([]);
    const refusedImport = await cli(["registry", "resolve", "imported"], home({ agent: "x", agents: [imported] }).env);
    assert.equal(refusedImport.code, 2, refusedImport.stderr);
    assert.match(refusedImport.stderr, /a registry may not set PATH .*make the entry your own \("_source": "custom"\)/);
    const ownResolved = await cli(["registry", "resolve", "own"], home({ agent: "x", agents: [own] }).env);
    assert.equal(ownResolved.code, 0, ownResolved.stderr);
    // The agents the shipped snapshot sets variables for still pass.
    const listed = await cli(["registry", "list"], { ...home().env, SYMPOSIUM_REGISTRY_URL: "" });
    assert.equal(listed.code, 0, listed.stderr);
    const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((agent) => agent.id);
    for (const id of ["auggie", "factory-droid"]) assert.ok(ids.includes(id), `${id} in ${ids.join(", ")}`);
  });

  it("crates.io's max_stable_version and bin_names are held to the registry's own rules before they name a path", async () => {
    const crates = "/api/v1/crates";
    server.files.set(`${crates}/bad-version`, JSON.stringify({ crate: { max_stable_version: "../../../escaped" } }));
    server.files.set(`${crates}/bad-binary/1.0.0`, JSON.stringify({ version: { bin_names: ["../../../../escaped"] } }));
    const env = { SYMPOSIUM_CRATES_API: server.url(crates), PATH: path.dirname(process.execPath) };
    const version = await resolveIn([{ id: "bad-version", distribution: { cargo: { crate: "bad-version" } } }], "bad-version", env);
    assert.equal(version.code, 2, version.stderr);
    assert.match(version.stderr, /refused crates\.io's max_stable_version of bad-version: '\.\.\/\.\.\/\.\.\/escaped' is not a version/);
    const binary = await resolveIn([{ id: "bad-binary", distribution: { cargo: { crate: "bad-binary", version: "1.0.0" } } }], "bad-binary", env);
    assert.equal(binary.code, 2, binary.stderr);
    assert.match(binary.stderr, /refused crates\.io's bin_names of bad-binary 1\.0\.0: '\.\.\/\.\.\/\.\.\/\.\.\/escaped' is not a binary name/);
    for (const { homeDir } of [version, binary]) {
      assert.deepEqual(fs.readdirSync(homeDir), [], "nothing written in or beside the cache");
      assert.equal(fs.existsSync(path.join(homeDir, "..", "escaped")), false);
    }
  });

  it("http: archives are refused (but from this machine), redirects go to https only, at most 5", async () => {
    const plain = await resolveIn(
      [{ id: "plain", distribution: { binary: { [PLATFORM]: { archive: "http://example.com/agent.tar.gz", cmd: "agent" } } } }],
      "plain",
    );
    assert.equal(plain.code, 2, plain.stderr);
    assert.match(plain.stderr, /archive: 'http:\/\/example\.com\/agent\.tar\.gz': only https downloads are accepted \(plain http only from this machine\)/);

    server.redirects.set("/downgrade.tar.gz", "http://example.com/agent.tar.gz");
    const downgrade = await resolveIn([binaryEntry("downgrade", "1.0.0", "/downgrade.tar.gz")], "downgrade");
    assert.equal(downgrade.code, 2, downgrade.stderr);
    assert.match(downgrade.stderr, /refused .*\/downgrade\.tar\.gz: it redirects to 'http:\/\/example\.com\/agent\.tar\.gz': only https/);

    for (let hop = 0; hop < 6; hop++) server.redirects.set(`/loop-${hop}.tar.gz`, `/loop-${hop + 1}.tar.gz`);
    const loop = await resolveIn([binaryEntry("loop", "1.0.0", "/loop-0.tar.gz")], "loop");
    assert.equal(loop.code, 2, loop.stderr);
    assert.match(loop.stderr, /refused .*\/loop-0\.tar\.gz: more than 5 redirects/);

    server.files.set("/moved-here.tar.gz", (await recordingTarball("binary")).bytes);
    server.redirects.set("/moved.tar.gz", server.url("/moved-here.tar.gz"));
    const moved = await resolveIn([binaryEntry("moved", "1.0.0", "/moved.tar.gz")], "moved");
    assert.equal(moved.code, 0, moved.stderr);
  });

  it("an archive without a SHA-256 is shown as such: in the list's description and in the install's log", async () => {
    const tarball = await recordingTarball("binary");
    server.files.set("/unsummed.tar.gz", tarball.bytes);
    serveRegistry([
      binaryEntry("unsummed", "1.0.0", "/unsummed.tar.gz"),
      binaryEntry("summed", "1.0.0", "/unsummed.tar.gz", { sha256: tarball.sha256 }),
      { id: "packaged", description: "from npm", distribution: { npx: { package: "agent" } } },
    ]);
    const { env } = home();
    const listed = JSON.parse((await cli(["registry", "list"], env)).stdout) as Array<{ id: string; description?: string }>;
    const described = (id: string): string | undefined => listed.find((agent) => agent.id === id)?.description;
    assert.equal(described("unsummed"), "Download not verified: the registry gives no SHA-256 · the recording agent as a binary archive");
    assert.equal(described("summed"), "the recording agent as a binary archive");
    assert.equal(described("packaged"), "from npm");
    const unsummed = await cli(["registry", "resolve", "unsummed"], env);
    assert.equal(unsummed.code, 0, unsummed.stderr);
    assert.match(unsummed.stderr, /unsummed: download not verified: the registry gives no SHA-256; what runs is whatever 127\.0\.0\.1:\d+ serves/);
    const summed = await cli(["registry", "resolve", "summed"], env);
    assert.equal(summed.code, 0, summed.stderr);
    assert.doesNotMatch(summed.stderr, /not verified/);
  });
});
