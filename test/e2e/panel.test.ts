// The chat panel in a real VS Code (code-server) in a real browser, driven
// like a user: the built-in chat with the default conductor and the demo
// agent, with no configuration; then a Toad that obeys Toad's contract
// (test/fixtures/fake-toad.ts) named by symposium.toadCommand. Longer than most files: each suite is one
// user's session, whose steps depend on the ones before (reload after asking,
// stop after reload), and the helpers serve both suites.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { describe, it } from "node:test";
import getPort from "get-port";
import type { Frame, Page } from "playwright-core";
import { e2eSkipReason, openFile } from "../harness/code-server.js";
import { descendants, eventually, isAlive, REPO_DIR, tempDir } from "../support/processes.js";
import { FAKE_TOAD, hostProcesses } from "../support/panel-host.js";
import { chatFrame, command, demoWindowSuite, watchPanel, extensionLog, gatePort, waitForText } from "./panel-helpers.js";
import { askInChat, chatTranscript } from "../support/chat-frame.js";

const skip = e2eSkipReason();

async function openMainRsAndSelectLine2(page: Page): Promise<void> {
  await openFile(page, "main.rs");
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Shift+ArrowDown");
  await page.waitForTimeout(400); // the tracker's debounce
}

/** The panel maximized, scrolled to the block the agent received; then back as it was. */
async function screenshotAnswer(page: Page, frame: Frame, file: string): Promise<void> {
  await command(page, "Notifications: Clear All Notifications");
  await command(page, "View: Toggle Maximized Panel");
  await frame.getByText("<editor-context>").first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await page.screenshot({ path: file });
  await command(page, "View: Toggle Maximized Panel");
}

/** Listens on `port` once the killed host's socket is released (a few retries). */
async function listenWhenFree(server: http.Server, port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const error = await new Promise<Error | undefined>((resolve) => {
      server.once("error", resolve);
      server.listen(port, "127.0.0.1", () => resolve(undefined));
    });
    if (!error) return;
    if (attempt >= 20) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function rawGet(port: number, requestPath: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: requestPath, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end();
  });
}

describe("chat panel in code-server (built-in chat, demo agent)", { skip, timeout: 600_000 }, () => {
  const demo = demoWindowSuite();
  let frame: Frame;

  it("answers a question about the selected lines, with no configuration, and says Toad was not found", async () => {
    await openMainRsAndSelectLine2(demo.page);
    await demo.page.keyboard.press("Control+Alt+Y");
    frame = await chatFrame(demo.page, "#input:visible");
    await askInChat(frame, "What does this line do?");
    const text = await waitForText(() => chatTranscript(frame), /To talk to a real agent/).catch(async (error: Error) => {
      const shot = path.join(tempDir("symposium-panel-shot-"), "no-answer.png");
      await demo.page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(`${error.message} (screenshot: ${shot})`);
    });
    assert.match(text, /<editor-context>/);
    assert.match(text, /let greeting = "hello from the sample workspace";/);
    assert.match(text, /What does this line do\?/);
    // Said once, quietly: in the log, not as a toast.
    assert.match(extensionLog(demo.server), /'toad' \(symposium\.toadCommand\) was not found on PATH, so the panel uses the built-in chat/);
    // `SYMPOSIUM_SCREENSHOT=docs/panel.png` records the README's picture of exactly this.
    if (process.env.SYMPOSIUM_SCREENSHOT) await screenshotAnswer(demo.page, frame, path.resolve(REPO_DIR, process.env.SYMPOSIUM_SCREENSHOT));
  });

  it("refuses a foreign Origin, a foreign Host and a missing secret, locally and through code-server's /proxy/PORT/", async () => {
    const port = gatePort(frame);
    const secret = new URL(frame.url()).searchParams.get("token")!;
    assert.equal(await rawGet(port, "/", { host: `127.0.0.1:${port}` }), 403, "no secret");
    assert.equal(await rawGet(port, `/?token=${secret}`, { host: `evil.example:${port}` }), 403, "foreign Host");
    assert.equal(await rawGet(port, `/?token=${secret}`, { host: `127.0.0.1:${port}`, origin: "http://evil.example" }), 403, "foreign Origin");
    const request = demo.page.context().request;
    const proxied = `${demo.server.url}proxy/${port}/`;
    assert.equal((await request.get(proxied)).status(), 403, "no secret through code-server");
    assert.equal(
      (await request.get(`${proxied}?token=${secret}`, { headers: { origin: "http://evil.example" } })).status(),
      403,
      "foreign Origin through code-server",
    );
    assert.equal((await request.get(`${proxied}?token=${secret}`)).status(), 200, "the panel's own request passes");
  });

  it("keeps the host and the conversation across a window reload, showing it from the panel's first look on", async () => {
    const [hostBefore] = hostProcesses(demo.workspace);
    assert.ok(hostBefore, "a panel host runs for this workspace");
    const conversation = /What does this line do\?[\s\S]*To talk to a real agent/;
    await demo.page.waitForTimeout(1_500); // the chat page sends the panel its copy of the conversation at most once a second
    const started = Date.now();
    await command(demo.page, "Developer: Reload Window");
    await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    // The panel was open: it comes back by itself. From its first look on it shows the
    // conversation (its kept copy, then the chat page's), never a "starting" screen.
    const looks = await watchPanel(demo.page, (look) => conversation.test(look.chat) && !look.kept, 60_000);
    const elapsed = Date.now() - started;
    process.stderr.write(`reload → the panel's first look ${looks[0]!.at! - started} ms, the chat live ${elapsed} ms (${looks.length} looks)\n`);
    assert.match(`${looks[0]!.kept}${looks[0]!.chat}`, conversation, `the panel's first look: ${JSON.stringify(looks[0])}`);
    const blank = looks.find((look) => !conversation.test(look.kept) && !conversation.test(look.chat));
    assert.equal(blank, undefined, "the conversation stays on screen while the chat reconnects");
    assert.equal(
      looks.find((look) => look.status.includes("Starting")),
      undefined,
      'no "Starting" state',
    );
    frame = await chatFrame(demo.page, "#input:visible", 10_000);
    assert.deepEqual(hostProcesses(demo.workspace), [hostBefore], "the same host process");
  });

  it("Stop ends the whole tree; Restart starts a new one", async () => {
    const [host] = hostProcesses(demo.workspace);
    const tree = [host!, ...descendants(host!)];
    assert.ok(tree.length >= 3, `host, chat server and agent processes: ${tree.join(", ")}`);
    await command(demo.page, "Symposium: Stop Chat");
    const stopped = Date.now();
    await eventually(() => tree.every((pid) => !isAlive(pid)), 15_000, `no process of ${tree.join(", ")} left`);
    process.stderr.write(`stop → no process left: ${Date.now() - stopped} ms\n`);
    const oldPort = gatePort(frame);
    await command(demo.page, "Symposium: Restart Chat");
    await eventually(() => hostProcesses(demo.workspace).some((pid) => !tree.includes(pid)), 20_000, "a new host");
    frame = await chatFrame(demo.page, "#input:visible", 30_000, oldPort);
    await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  });

  it("starts afresh when the remembered host is gone and a stranger serves its port, never embedding it", async () => {
    const [host] = hostProcesses(demo.workspace);
    const port = gatePort(frame);
    for (const pid of [host!, ...descendants(host!)]) process.kill(pid, "SIGKILL");
    await eventually(() => !isAlive(host!), 3_000, "the host to die");
    const strangerRequests: string[] = [];
    const stranger = http.createServer((req, res) => {
      strangerRequests.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/html" }).end("<p>I am not Symposium</p>");
    });
    await listenWhenFree(stranger, port);
    try {
      await command(demo.page, "Developer: Reload Window");
      await demo.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
      await demo.page.keyboard.press("Control+Alt+Y");
      frame = await chatFrame(demo.page, "#input:visible", 60_000, port); // a frame on the old port would be the stranger's
      await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
      assert.deepEqual(
        strangerRequests.filter((url) => !url.startsWith("/.symposium/identity")),
        [],
        "only the identity check reached the stranger",
      );
    } finally {
      stranger.close();
    }
  });
});

describe("chat panel in code-server with Toad (its stand-in, test/fixtures/fake-toad.ts)", { skip, timeout: 300_000 }, () => {
  const record = path.join(tempDir("symposium-toad-record-"), "argv.jsonl");
  let fixedPort: number;
  const demo = demoWindowSuite({ FAKE_TOAD_RECORD: record }, async () => {
    const bin = tempDir("symposium-toad-bin-");
    fs.writeFileSync(path.join(bin, "toad"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_TOAD)} "$@"\n`, { mode: 0o755 });
    // code-server's extension host takes PATH from the user's login shell, not from its own
    // environment, so the fake is named by its absolute path (a name on PATH takes the same code path).
    fixedPort = await getPort({ host: "127.0.0.1" });
    return { "symposium.toadCommand": path.join(bin, "toad"), "symposium.toadPort": fixedPort };
  });

  it("spawns Toad with exactly Toad's command line, the project as cwd, and the state file in its environment", async () => {
    await openMainRsAndSelectLine2(demo.page);
    await demo.page.keyboard.press("Control+Alt+Y");
    const frame = await chatFrame(demo.page, "body[data-connected=yes]");
    const starts = fs
      .readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { argv: string[]; cwd: string; env: Record<string, string> });
    assert.equal(starts.length, 1);
    const [{ argv, cwd, env }] = starts as [(typeof starts)[0]];
    assert.equal(argv.length, 7);
    assert.deepEqual([argv[0], argv[2], argv[3], argv[5], argv[6]], ["acp", "--serve", "--port", "--host", "127.0.0.1"]);
    assert.match(argv[1]!, /symposium-conductor\.mjs'? run$/);
    assert.match(argv[4]!, /^\d+$/);
    assert.notEqual(Number(argv[4]), fixedPort, "Toad listens on a private port; symposium.toadPort is the gate's");
    assert.equal(gatePort(frame), fixedPort);
    assert.equal(fs.realpathSync(cwd), fs.realpathSync(demo.workspace));
    assert.ok(env.SYMPOSIUM_EDITOR_STATE_FILE && fs.existsSync(env.SYMPOSIUM_EDITOR_STATE_FILE), "the tracker's state file");
    assert.equal(env.SYMPOSIUM_PANEL_HOST_SPEC, undefined, "the host's spec (and its secret) stays with the host");
    // Toad's page, with its absolute URLs, works through the gate: the chat answers with the selection.
    const input = frame.locator("#in");
    await input.fill("explain");
    await input.press("Enter");
    const answer = await waitForText(() => frame.locator("#out").innerText(), /\[turn ended\]/);
    assert.match(answer, /let greeting = "hello from the sample workspace";/);
  });

  it("reports a busy fixed port, naming the port and the setting", async () => {
    await command(demo.page, "Symposium: Stop Chat");
    await eventually(() => hostProcesses(demo.workspace).length === 0, 5_000, "the host to stop");
    const busy = http.createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => busy.listen(fixedPort, "127.0.0.1", resolve));
    try {
      await command(demo.page, "Symposium: Restart Chat");
      const deadline = Date.now() + 30_000;
      let text = "";
      while (Date.now() < deadline && !text.includes(`Port ${fixedPort} is busy`)) {
        text = "";
        for (const each of demo.page.frames().filter((frame) => frame.url().includes("fake.html")))
          text += await each
            .locator("#message")
            .innerText()
            .catch(() => "");
        await demo.page.waitForTimeout(250);
      }
      assert.match(text, new RegExp(`Port ${fixedPort} is busy \\(setting symposium\\.toadPort\\)`));
    } finally {
      busy.close();
    }
  });
});
