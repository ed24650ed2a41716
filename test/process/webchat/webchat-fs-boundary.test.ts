// The built-in chat's file access for its agent (ACP fs/read_text_file and
// fs/write_text_file), end to end: the real symposium-webchat, a real agent
// (test/fixtures/fs-agent.ts) asking through the page's websocket: no byte
// outside the project, whatever its links do and however they change; ranges
// read in bounded memory, answers capped; projects reached through symlinked
// folders work.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { quote } from "shell-quote";
import { ChatPage } from "../../support/chat-page.js";
import { OUT_DIR, startNode, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const FS_AGENT_COMMAND = quote([process.execPath, path.join(OUT_DIR, "test", "fixtures", "fs-agent.js")]);
const SWAPPER = path.join(OUT_DIR, "test", "fixtures", "symlink-swapper.js");
const INVALID_PARAMS = -32602;
/** The cap on one answer (docs/webchat.md). */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

type Outcome = { ok: true; content?: string } | { ok: false; code?: number; message: string };

async function request(page: ChatPage, body: Record<string, unknown>, timeoutMs?: number): Promise<Outcome> {
  return JSON.parse(await page.ask(JSON.stringify(body), timeoutMs)) as Outcome;
}

function read(page: ChatPage, file: string, range: { line?: number; limit?: number } = {}): Promise<Outcome> {
  return request(page, { op: "read", path: file, ...range });
}

function write(page: ChatPage, file: string, content = "written by the agent"): Promise<Outcome> {
  return request(page, { op: "write", path: file, content });
}

function assertRefused(outcome: Outcome, file: string, why: RegExp): void {
  assert.equal(outcome.ok, false, `${file} should be refused, got ${JSON.stringify(outcome)}`);
  assert.equal((outcome as { code?: number }).code, INVALID_PARAMS, JSON.stringify(outcome));
  assert.ok((outcome as { message: string }).message.includes(file), `the error names ${file}: ${JSON.stringify(outcome)}`);
  assert.match((outcome as { message: string }).message, why);
}

/** Every name under `dir` with its content (links as their target): to prove nothing outside changed. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }).map(String).sort()) {
    const full = path.join(dir, name);
    const stat = fs.lstatSync(full);
    entries[name] = stat.isSymbolicLink() ? `-> ${fs.readlinkSync(full)}` : stat.isDirectory() ? "dir" : fs.readFileSync(full, "utf8");
  }
  return entries;
}

async function withServer(projectDir: string, use: (page: ChatPage, server: ChatServer) => Promise<void>, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const server = await startChatServer({ command: FS_AGENT_COMMAND, projectDir, env });
  const page = new ChatPage(server, "files");
  try {
    await page.ready();
    await use(page, server);
  } finally {
    await page.close();
    await server.stop();
  }
}

describe("the agent's file access stays inside the project", () => {
  let project: string;
  let outside: string;
  let server: ChatServer;
  let page: ChatPage;
  before(async () => {
    project = tempDir("webchat-boundary-project-");
    outside = tempDir("webchat-boundary-outside-");
    server = await startChatServer({ command: FS_AGENT_COMMAND, projectDir: project });
    page = new ChatPage(server, "boundary");
    await page.ready();
  });
  after(async () => {
    await page.close();
    await server.stop();
  });

  it("refuses a write through a dangling symlink, a chain of them or a dangling folder link, creating nothing outside", async () => {
    fs.writeFileSync(path.join(outside, "keep.txt"), "outside");
    const untouched = snapshot(outside);
    fs.symlinkSync(path.join(outside, "notes.md"), path.join(project, "notes.md"));
    fs.symlinkSync(path.join(project, "b.md"), path.join(project, "a.md"));
    fs.symlinkSync(path.join(outside, "c.md"), path.join(project, "b.md"));
    fs.symlinkSync(path.join("..", path.basename(outside), "relative.md"), path.join(project, "relative.md"));
    fs.symlinkSync(path.join(outside, "new-folder"), path.join(project, "gone"));
    fs.symlinkSync(outside, path.join(project, "out"));
    for (const file of ["notes.md", "a.md", "b.md", "relative.md"]) {
      assertRefused(await write(page, path.join(project, file)), path.join(project, file), /outside the project directory through a symlink/);
    }
    for (const file of ["out/y.md", "out/keep.txt"]) {
      assertRefused(await write(page, path.join(project, file)), path.join(project, file), /outside the project directory through a symlink/);
    }
    assertRefused(
      await write(page, path.join(project, "gone", "x.md")),
      path.join(project, "gone", "x.md"),
      /gone is a symlink to .*new-folder, which does not exist/,
    );
    assertRefused(await read(page, path.join(project, "out", "keep.txt")), path.join(project, "out", "keep.txt"), /through a symlink/);
    assertRefused(await read(page, path.join(outside, "keep.txt")), path.join(outside, "keep.txt"), /outside the project directory/);
    assert.deepEqual(snapshot(outside), untouched, "nothing outside the project was created or changed");
    assert.match(server.process.stderr(), /refused fs\/write_text_file from the agent: .*notes\.md/);
  });

  it("follows links that stay inside the project, dangling ones included, and keeps the links", async () => {
    fs.writeFileSync(path.join(project, "real.txt"), "real content");
    fs.symlinkSync("real.txt", path.join(project, "alias.txt"));
    fs.symlinkSync(path.join(project, "docs", "todo.md"), path.join(project, "todo.md"));
    fs.mkdirSync(path.join(project, "deep"));
    fs.symlinkSync("..", path.join(project, "deep", "up"));
    assert.deepEqual(await read(page, path.join(project, "alias.txt")), { ok: true, content: "real content" });
    assert.deepEqual(await read(page, path.join(project, "deep", "up", "real.txt")), { ok: true, content: "real content" });
    assert.deepEqual(await write(page, path.join(project, "alias.txt"), "changed through the link"), { ok: true });
    assert.equal(fs.readFileSync(path.join(project, "real.txt"), "utf8"), "changed through the link");
    assert.ok(fs.lstatSync(path.join(project, "alias.txt")).isSymbolicLink(), "the link is still a link");
    assert.deepEqual(await write(page, path.join(project, "todo.md"), "- [ ] one"), { ok: true });
    assert.equal(fs.readFileSync(path.join(project, "docs", "todo.md"), "utf8"), "- [ ] one");
  });

  it("keeps an existing file's permissions when rewriting it, and says what is not a file", async () => {
    const script = path.join(project, "run.sh");
    fs.writeFileSync(script, "#!/bin/sh\n", { mode: 0o750 });
    fs.chmodSync(script, 0o750);
    assert.deepEqual(await write(page, script, "#!/bin/sh\necho hi\n"), { ok: true });
    assert.equal(fs.statSync(script).mode & 0o777, 0o750);
    assertRefused(await read(page, path.join(project, "deep")), path.join(project, "deep"), /a directory, not a file/);
    assertRefused(await write(page, path.join(project, "deep")), path.join(project, "deep"), /a directory, not a file/);
    assert.deepEqual(
      fs.readdirSync(project).filter((name) => name.includes("symposium")),
      [],
      "no temporary file left behind",
    );
  });

  it("reads and writes no byte outside while another process swaps links and folders under the requests", async (t) => {
    fs.writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE SECRET");
    fs.writeFileSync(path.join(outside, "target.txt"), "OUTSIDE ORIGINAL");
    for (const name of ["inside.txt", "sfile", "wfile"]) fs.writeFileSync(path.join(project, name), "inside");
    fs.mkdirSync(path.join(project, "sdir"));
    fs.writeFileSync(path.join(project, "sdir", "secret.txt"), "inside folder");
    fs.writeFileSync(path.join(project, "sdir", "target.txt"), "inside folder");
    fs.symlinkSync(path.join(project, "inside.txt"), path.join(project, "swap"));
    const untouched = snapshot(outside);
    const swapper = startNode(SWAPPER, [
      "2500",
      `${path.join(project, "swap")}=${path.join(outside, "secret.txt")},${path.join(project, "inside.txt")}`,
      `${path.join(project, "sfile")}~${path.join(outside, "secret.txt")}`,
      `${path.join(project, "wfile")}~${path.join(outside, "target.txt")}`,
      `${path.join(project, "sdir")}~${outside}`,
    ]);
    const tally = (await request(
      page,
      {
        op: "hammer",
        ms: 2000,
        reads: ["swap", "sfile", path.join("sdir", "secret.txt")].map((name) => path.join(project, name)),
        writes: ["wfile", path.join("sdir", "target.txt")].map((name) => path.join(project, name)),
        content: "AGENT WROTE THIS",
      },
      20_000,
    )) as unknown as { reads: Record<string, Record<string, number>>; writes: Record<string, Record<string, number>> };
    assert.equal(await swapper.exited, 0, swapper.stderr());
    const rounds = Number(/swaps: (\d+)/.exec(swapper.stderr())?.[1] ?? 0);
    const count = (counts: Record<string, Record<string, number>>, match: (key: string) => boolean) =>
      Object.values(counts)
        .flatMap((byKey) => Object.entries(byKey))
        .reduce((sum, [key, n]) => sum + (match(key) ? n : 0), 0);
    const summary = JSON.stringify(tally);
    t.diagnostic(`${rounds} swap rounds; ${summary}`);
    assert.ok(rounds > 200, `the swapper kept swapping (${rounds} rounds)`);
    assert.equal(
      count(tally.reads, (key) => key.includes("OUTSIDE")),
      0,
      `no read returned an outside file: ${summary}`,
    );
    assert.deepEqual(snapshot(outside), untouched, `nothing outside was written or created: ${summary}`);
    assert.ok(count(tally.reads, (key) => key.startsWith("content:inside")) > 20, `reads inside went through meanwhile: ${summary}`);
    assert.ok(count(tally.reads, (key) => key === `error:${INVALID_PARAMS}`) > 20, `reads that would leave were refused: ${summary}`);
    assert.ok(count(tally.writes, (key) => key === "ok") > 20, `writes inside went through meanwhile: ${summary}`);
  });
});

describe("ranges of large files", () => {
  /** What fs/read_text_file answered before: the file split on "\n", a slice, joined again. */
  function expectedRange(text: string, line?: number, limit?: number): string {
    if (line === undefined && limit === undefined) return text;
    const lines = text.split("\n");
    const start = Math.max(0, (line ?? 1) - 1);
    return lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
  }

  it("answers line and limit as before, byte for byte", async () => {
    const project = tempDir("webchat-range-");
    const samples = { "lines.txt": "one\ntwo\r\nthree\n", "no-newline.txt": "alpha\nbeta", "empty.txt": "", "utf8.txt": "é\n😀 two\nthree" };
    for (const [name, text] of Object.entries(samples)) fs.writeFileSync(path.join(project, name), text);
    await withServer(project, async (page) => {
      for (const [name, text] of Object.entries(samples)) {
        for (const range of [
          {},
          { line: 1 },
          { line: 2 },
          { line: 3 },
          { line: 4 },
          { line: 9 },
          { limit: 0 },
          { limit: 1 },
          { limit: 2 },
          { line: 2, limit: 1 },
          { line: 2, limit: 5 },
          { line: 3, limit: 1 },
        ]) {
          assert.deepEqual(
            await read(page, path.join(project, name), range),
            { ok: true, content: expectedRange(text, range.line, range.limit) },
            `${name} ${JSON.stringify(range)}`,
          );
        }
      }
    });
  });

  it("reads a few lines deep in a 256 MiB file without growing, and refuses answers over the cap", { timeout: 120_000 }, async (t) => {
    const project = tempDir("webchat-large-");
    const big = path.join(project, "big.log");
    const lineOf = (index: number) => `line ${String(index).padStart(10, "0")} ${"x".repeat(47)}\n`; // 64 bytes
    // 4 Mi numbered lines, written 1 MiB at a time: one buffer of lines whose numbers are rewritten in place.
    const perChunk = 16_384;
    const chunk = Buffer.from(lineOf(0).repeat(perChunk));
    const fd = fs.openSync(big, "w");
    for (let first = 1; first <= 4 * 1024 * 1024; first += perChunk) {
      for (let offset = 0; offset < perChunk; offset++) chunk.write(String(first + offset).padStart(10, "0"), offset * 64 + 5, "latin1");
      fs.writeSync(fd, chunk);
    }
    fs.closeSync(fd);
    assert.equal(fs.statSync(big).size, 256 * 1024 * 1024);
    t.after(() => fs.rmSync(project, { recursive: true, force: true }));
    await withServer(project, async (page, server) => {
      const pid = server.process.child.pid!;
      const baseline = peakRssBytes(pid);
      assert.deepEqual(await read(page, big, { line: 4_000_000, limit: 3 }), {
        ok: true,
        content: (lineOf(4_000_000) + lineOf(4_000_001) + lineOf(4_000_002)).slice(0, -1),
      });
      const grew = peakRssBytes(pid) - baseline;
      t.diagnostic(
        `server peak RSS ${Math.round(baseline / 1024 / 1024)} MiB baseline, grew by ${(grew / 1024 / 1024).toFixed(1)} MiB reading 3 lines at line 4,000,000`,
      );
      assert.ok(grew < 32 * 1024 * 1024, `the server's peak memory grew by ${Math.round(grew / 1024 / 1024)} MiB reading 3 lines`);
      assertRefused(await read(page, big), big, new RegExp(`over the ${MAX_ANSWER_BYTES}-byte limit.*line and limit`));
      assertRefused(await read(page, big, { line: 10, limit: 1_000_000 }), big, new RegExp(`over the ${MAX_ANSWER_BYTES}-byte limit.*line and limit`));
      assert.deepEqual(await read(page, big, { line: 4 * 1024 * 1024 }), { ok: true, content: lineOf(4 * 1024 * 1024) }, "the last line");
      assert.ok(peakRssBytes(pid) - baseline < 64 * 1024 * 1024, "refusing costs no more than the cap");
    });
  });
});

/** The process's peak resident memory: VmHWM on Linux (the suite's platform), else the current RSS from ps. */
function peakRssBytes(pid: number): number {
  const status = fs.existsSync(`/proc/${pid}/status`) ? fs.readFileSync(`/proc/${pid}/status`, "utf8") : "";
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib) return Number(kib) * 1024;
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) * 1024;
}

describe("projects reached through symlinks", () => {
  /** Reads and writes through every spelling of the project, and the boundary still holds there. */
  async function checkProject(given: string, real: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
    const outside = tempDir("webchat-linked-outside-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE");
    fs.writeFileSync(path.join(real, "notes.txt"), "line one\nline two");
    fs.symlinkSync(outside, path.join(real, "escape"));
    fs.symlinkSync(path.join(outside, "new.md"), path.join(real, "dangling.md"));
    // A third spelling, known to neither the server nor the agent: another link to the same folder.
    const another = path.join(tempDir("webchat-another-"), "same-project");
    fs.symlinkSync(real, another);
    await withServer(
      given,
      async (page) => {
        for (const root of [given, real, another]) {
          assert.deepEqual(await read(page, path.join(root, "notes.txt")), { ok: true, content: "line one\nline two" }, `read under ${root}`);
          assert.deepEqual(await read(page, path.join(root, "notes.txt"), { line: 2 }), { ok: true, content: "line two" });
          assert.deepEqual(await write(page, path.join(root, "sub", "deeper", "new.txt"), `via ${root}`), { ok: true }, `write under ${root}`);
          assert.equal(fs.readFileSync(path.join(real, "sub", "deeper", "new.txt"), "utf8"), `via ${root}`);
          assertRefused(await read(page, path.join(root, "escape", "secret.txt")), path.join(root, "escape", "secret.txt"), /through a symlink/);
          assertRefused(await write(page, path.join(root, "dangling.md")), path.join(root, "dangling.md"), /through a symlink/);
          assertRefused(
            await read(page, path.join(root, "..", path.basename(outside), "secret.txt")),
            path.join(root, "..", path.basename(outside), "secret.txt"),
            /outside the project directory/,
          );
        }
      },
      env,
    );
    assert.deepEqual(fs.readdirSync(outside), ["secret.txt"]);
  }

  it("works in a project under a symlinked folder", async () => {
    const base = tempDir("webchat-linked-");
    fs.mkdirSync(path.join(base, "real", "project"), { recursive: true });
    fs.symlinkSync(path.join(base, "real"), path.join(base, "link"));
    await checkProject(path.join(base, "link", "project"), path.join(base, "real", "project"));
  });

  it("works in a project under a symlinked temporary directory (as /tmp is on macOS)", async () => {
    const base = tempDir("webchat-private-");
    fs.mkdirSync(path.join(base, "private", "tmp"), { recursive: true });
    fs.symlinkSync(path.join("private", "tmp"), path.join(base, "tmp"));
    const temporary = path.join(base, "tmp");
    const given = fs.mkdtempSync(path.join(temporary, "project-"));
    await checkProject(given, path.join(base, "private", "tmp", path.basename(given)), { TMPDIR: temporary });
  });
});
