// symposium-webchat without a browser: its command line, its gate (secret,
// Origin, Host), file access confined to the project, and the agent
// processes it starts and ends. Real server process, real fixture agents,
// the page's own websocket protocol (webchat/page/protocol.ts).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { ChatPage } from "../../support/chat-page.js";
import { descendants, eventually, startNode, tempDir } from "../../support/processes.js";
import { CHAT_AGENT_COMMAND, WEBCHAT_CLI, allGone, startChatServer, type ChatServer } from "../../support/webchat-server.js";

async function httpStatus(server: ChatServer, pathAndQuery: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(server.url.port), "127.0.0.1", () => {
      const lines = [
        `GET ${pathAndQuery} HTTP/1.1`,
        `Host: ${headers.host ?? server.url.host}`,
        "Connection: close",
        ...Object.entries(headers)
          .filter(([name]) => name !== "host")
          .map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    let response = "";
    socket.on("data", (chunk) => (response += chunk.toString()));
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0)));
    socket.on("error", reject);
  });
}

function upgradeHeaders(origin: string): Record<string, string> {
  return { origin, upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
}

describe("symposium-webchat command line", () => {
  it("refuses an empty agent command, saying what to give", async () => {
    const run = startNode(WEBCHAT_CLI, ["acp", " ", "--serve", "--port", "0"]);
    assert.equal(await run.exited, 2);
    assert.match(run.stderr(), /the agent command is empty/);
  });

  it("exits non-zero naming a busy port", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const run = startNode(WEBCHAT_CLI, ["acp", CHAT_AGENT_COMMAND, "--serve", "--port", String(port), "--host", "127.0.0.1"]);
      assert.equal(await run.exited, 1);
      assert.match(run.stderr(), new RegExp(`port ${port} on 127.0.0.1 is busy.*--port`));
    } finally {
      blocker.close();
    }
  });

  it("prints the URL with its secret on a line of its own, and takes the launcher's secret", async () => {
    const server = await startChatServer({ env: { SYMPOSIUM_CHAT_TOKEN: "launcher-chosen-secret-1234" } });
    try {
      assert.equal(server.token, "launcher-chosen-secret-1234");
      assert.equal(server.url.pathname, "/");
      assert.equal(await httpStatus(server, `/?token=${server.token}`), 200);
    } finally {
      await server.stop();
    }
  });
});

describe("symposium-webchat gate and agents", () => {
  let server: ChatServer;
  before(async () => {
    server = await startChatServer({ env: { SYMPOSIUM_CHAT_GRACE_MS: "600" } });
  });
  after(() => server.stop());

  it("answers 403 without the secret or with a wrong one, and starts no agent", async () => {
    for (const query of ["", "?token=", "?token=wrong"]) {
      assert.equal(await httpStatus(server, `/${query}`), 403, `GET /${query}`);
      assert.equal(await httpStatus(server, `/page.js${query}`), 403, `GET /page.js${query}`);
      assert.equal(await httpStatus(server, `/ws${query}`, upgradeHeaders(server.origin)), 403, `upgrade ${query}`);
    }
    // The server starts an agent as it accepts a page, before it answers: had it, the agent would be its child now.
    assert.deepEqual(descendants(server.process.child.pid!), [], "no agent started");
  });

  it("lets the browser keep the script and stylesheet (their URLs hold the secret), never the page", async () => {
    const cacheControl = async (route: string) =>
      (await fetch(new URL(`${route}?token=${encodeURIComponent(server.url.searchParams.get("token")!)}`, server.url))).headers.get("cache-control");
    assert.equal(await cacheControl("/"), "no-store");
    assert.equal(await cacheControl("/page.js"), "private, max-age=86400");
    assert.equal(await cacheControl("/page.css"), "private, max-age=86400");
  });

  it("refuses a websocket from a foreign Origin and a request for a foreign Host", async () => {
    assert.equal(await httpStatus(server, `/ws?token=${server.token}`, upgradeHeaders("https://evil.example")), 403);
    assert.equal(await httpStatus(server, `/ws?token=${server.token}`, upgradeHeaders("null")), 403);
    assert.equal(await httpStatus(server, `/?token=${server.token}`, { host: `evil.example:${server.url.port}` }), 403);
    assert.equal(await httpStatus(server, `/ws?token=${server.token}`, { ...upgradeHeaders(server.origin), host: `rebound.example:${server.url.port}` }), 403);
    assert.deepEqual(descendants(server.process.child.pid!), [], "no agent started");
    await eventually(() => /refused a websocket: Origin 'https:\/\/evil.example' is not allowed/.test(server.process.stderr()), 5_000, "the refusal logged");
  });

  it("confines the agent's file access to the project, with an error and a log line", async () => {
    const outside = tempDir("webchat-outside-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "do not read");
    fs.writeFileSync(path.join(server.projectDir, "notes.txt"), "line one\nline two");
    fs.symlinkSync(outside, path.join(server.projectDir, "escape"));
    const page = new ChatPage(server, "files");
    await page.ready();
    assert.match(await page.ask(`read ${path.join(server.projectDir, "notes.txt")}`), /read ok: line one\nline two/);
    assert.match(await page.ask(`read ${path.join(outside, "secret.txt")}`), /read refused \(-32602\): .*outside the project directory/);
    assert.match(await page.ask(`read ${server.projectDir}/../${path.basename(outside)}/secret.txt`), /read refused \(-32602\)/);
    assert.match(await page.ask(`read ${path.join(server.projectDir, "escape", "secret.txt")}`), /read refused \(-32602\): .*through a symlink/);
    assert.match(await page.ask(`write ${path.join(server.projectDir, "escape", "new.txt")}`), /write refused \(-32602\): .*through a symlink/);
    assert.equal(fs.existsSync(path.join(outside, "new.txt")), false);
    assert.match(await page.ask(`write ${path.join(server.projectDir, "sub", "new.txt")}`), /write ok/);
    assert.equal(fs.readFileSync(path.join(server.projectDir, "sub", "new.txt"), "utf8"), "written by the agent");
    assert.match(server.process.stderr(), /refused fs\/read_text_file from the agent: .*access to .*secret\.txt refused: it is outside the project directory/);
    await page.close();
  });

  it("runs one agent per conversation and ends it after the grace period", async () => {
    const known = new Set(server.agentPids());
    const first = new ChatPage(server, "shared");
    await first.ready();
    const second = new ChatPage(server, "shared");
    await second.ready();
    const other = new ChatPage(server, "other");
    await other.ready();
    const started = server.agentPids().filter((pid) => !known.has(pid));
    assert.equal(started.length, 2, "two conversations, two agents");
    await Promise.all([first.close(), second.close(), other.close()]);
    // Grace 0.6 s, then the stop sequence: gone within 3 s of the grace period.
    await allGone(started, 600 + 3_000);
  });

  it("sends a burst of agent updates in fewer frames, every update once and in order", async () => {
    const page = new ChatPage(server, "burst");
    await page.ready();
    const framesBefore = page.frames;
    const messagesBefore = page.messages.length;
    const text = await page.ask("burst 300");
    assert.equal(text, Array.from({ length: 300 }, (_, index) => `burst-${index + 1} `).join(""));
    const frames = page.frames - framesBefore;
    const messages = page.messages.length - messagesBefore;
    assert.ok(frames < messages, `${messages} messages came in ${frames} frames: updates read together leave together`);
    assert.ok(
      page.messages.every((message) => message.type !== "batch"),
      "a batch holds messages, never another batch",
    );
    // A page attaching now gets all of it in its replay, and nothing twice.
    const again = new ChatPage(server, "burst");
    await again.opened;
    await eventually(() => again.messages.some((message) => message.type === "replay"), 5_000, "the replay");
    assert.equal(again.agentText().split("burst-300 ").length, 2);
    await Promise.all([page.close(), again.close()]);
    assert.doesNotMatch(server.process.stderr(), /warming up/, "the in-memory ACP exchange at start succeeded");
  });

  it("ends an unnamed conversation's agent with its page, as Toad does", async () => {
    const known = new Set(server.agentPids());
    const page = new ChatPage(server);
    await page.ready();
    const [pid] = server.agentPids().filter((each) => !known.has(each));
    assert.ok(pid);
    await page.close();
    await allGone([pid], 3_000);
  });
});

describe("symposium-webchat stopping", () => {
  it("leaves no agent process within 3 s of the server's stop", async () => {
    const server = await startChatServer();
    const pages = [new ChatPage(server, "one"), new ChatPage(server, "two")];
    await Promise.all(pages.map((page) => page.ready()));
    const pids = server.agentPids();
    assert.equal(pids.length, 2);
    const stopped = Date.now();
    await server.stop();
    await allGone(pids, 3_000);
    assert.ok(Date.now() - stopped < 3_000);
  });
});
