import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { PROXY_CLI, REPO_DIR, eventually, startNode } from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const proc = startNode(PROXY_CLI, args, env);
  let stdout = "";
  proc.child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const status = await proc.exited;
  return { status, stdout, stderr: proc.stderr() };
}

describe("symposium-editor-context CLI", () => {
  it("show prints the block a prompt would carry now", async () => {
    const { status, stdout } = await run(["show"], { SYMPOSIUM_EDITOR_STATE_FILE: writeStateFile(SEED_STATE) });
    assert.equal(status, 0);
    assert.match(stdout, /^<editor-context>\nActive file: src\/main\.rs \(rust\)[\s\S]*<\/editor-context>\n$/);
  });

  it("show says why there is no block", async () => {
    const { status, stdout } = await run(["show"], { SYMPOSIUM_EDITOR_STATE_FILE: "" });
    assert.equal(status, 0);
    assert.equal(stdout, "No editor context would be sent: SYMPOSIUM_EDITOR_STATE_FILE is not set.\n");
  });

  it("show --watch reprints when the file is atomically replaced or removed", async () => {
    const file = writeStateFile(SEED_STATE);
    const proc = startNode(PROXY_CLI, ["show", "--watch"], { SYMPOSIUM_EDITOR_STATE_FILE: file });
    let stdout = "";
    proc.child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    await eventually(() => stdout.includes("src/main.rs"), 5_000, "first print");
    // Let the watcher finish its initial scan before changing the file.
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...SEED_STATE, activeFile: "/project/src/other.rs" }));
    fs.renameSync(`${file}.tmp`, file);
    await eventually(() => stdout.includes("src/other.rs"), 5_000, "reprint after replace");
    fs.unlinkSync(file);
    await eventually(() => stdout.includes("does not exist"), 5_000, "reprint after removal");
    proc.child.kill("SIGTERM");
    assert.equal(await proc.exited, 0);
  });

  it("--version and --help print to stdout; bad arguments exit 2 with usage on stderr", async () => {
    const manifest = JSON.parse(fs.readFileSync(`${REPO_DIR}/package.json`, "utf8")) as { version: string };
    assert.equal((await run(["--version"])).stdout, `${manifest.version}\n`);
    assert.match((await run(["--help"])).stdout, /^Usage:/);
    const bad = await run(["--frobnicate"]);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /unknown argument '--frobnicate'[\s\S]*Usage:/);
  });
});
