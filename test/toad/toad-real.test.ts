// The panel host with the real Toad (scripts/install-toad.sh) behind its gate,
// our conductor and a recording agent behind Toad: Toad's page through the
// gate, typing into Toad's terminal in Chromium, Toad's private port refusing
// everyone without the secret, and Stop ending the whole tree.

import { strict as assert } from "node:assert";
import * as http from "node:http";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import WebSocket from "ws";
import { launchBrowser } from "../harness/code-server.js";
import { eventually, isAlive } from "../support/processes.js";
import { appsAndAgents, realToadSkip, startToadHost, treeCommands, writeSelection, type ToadHost } from "../support/toad.js";
import { typeInto, watchTerminalOutput } from "../support/toad-page.js";

const skip = realToadSkip();

/** A raw GET, so Host and Origin are exactly what the test says. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

/** Opens a websocket: "open", or the refusal's status. */
function tryWebsocket(url: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_req, res) => resolve(`status ${res.statusCode}`));
    socket.once("error", (error) => resolve(`error ${error.message}`));
  });
}

function promptText(prompt: Array<{ type: string; text?: string }> | undefined): string[] {
  return (prompt ?? []).map((block) => block.text ?? "");
}

describe("the panel with the real Toad", { skip, timeout: 300_000 }, () => {
  let host: ToadHost;
  let browser: Browser;

  before(async () => {
    host = await startToadHost();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (host?.child.exitCode === null) host.child.kill("SIGTERM");
    await host?.exited;
  });

  it("serves Toad's page through the gate, every URL on Toad's private origin rewritten", async () => {
    const { port, secret } = host.spec;
    const page = await get(port, `/?token=${secret}`);
    assert.equal(page.status, 200);
    const privatePort = host.privatePort();
    assert.ok(privatePort > 0, host.log());
    assert.doesNotMatch(page.body, new RegExp(`https?://(127\\.0\\.0\\.1|localhost):${privatePort}/`), "no http URL on Toad's port is left");
    const assets = [...page.body.matchAll(/(?:href|src)="(\.\/static\/[^"]+)"|url\("(\.\/static\/[^"]+)"\)/g)].map((match) =>
      (match[1] ?? match[2])!.replace(/&amp;/g, "&"),
    );
    assert.deepEqual(assets.map((asset) => asset.replace(/\?.*/, "")).sort(), [
      "./static/css/xterm.css",
      "./static/images/background.png",
      "./static/js/textual.js",
    ]);
    for (const asset of assets) assert.equal((await get(port, asset.slice(1))).status, 200, asset);
    // The websocket URL stays as Toad wrote it; the page's shim sends it to the gate.
    assert.match(page.body, new RegExp(`data-session-websocket-url="ws://127\\.0\\.0\\.1:${privatePort}/ws"`));
  });

  it("types a question into Toad's terminal in Chromium: the agent gets exactly one editor-context block with the selection, twice", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    try {
      writeSelection(host, 'let greeting = "first selection";', 2);
      await page.addInitScript(watchTerminalOutput);
      await page.goto(`${host.gate}/?token=${host.spec.secret}`);
      await page.waitForSelector("body.-first-byte", { timeout: 30_000 });
      await eventually(() => host.records().some((entry) => entry.start), 30_000, "Toad's app to start the conductor and the agent");
      await typeInto(page, "what does the selected line do?");
      await eventually(() => host.records().some((entry) => entry.prompt), 30_000, "the prompt to reach the agent").catch(async (error: Error) => {
        await page.screenshot({ path: "/tmp/toad-real-failed.png" });
        throw error;
      });
      const [first] = host.records().filter((entry) => entry.prompt);
      const blocks = promptText(first!.prompt).filter((text) => text.includes("<editor-context>"));
      assert.equal(blocks.length, 1, JSON.stringify(first));
      assert.match(blocks[0]!, /first selection/);
      assert.ok(
        promptText(first!.prompt).some((text) => text.includes("what does the selected line do?")),
        JSON.stringify(first),
      );

      writeSelection(host, "fn second_selection() {}", 7);
      await typeInto(page, "and this one?");
      await eventually(() => host.records().filter((entry) => entry.prompt).length === 2, 30_000, "the second prompt to reach the agent");
      const second = host.records().filter((entry) => entry.prompt)[1]!;
      const secondBlocks = promptText(second.prompt).filter((text) => text.includes("<editor-context>"));
      assert.equal(secondBlocks.length, 1);
      assert.match(secondBlocks[0]!, /second_selection/);
      assert.doesNotMatch(secondBlocks[0]!, /first selection/);
    } finally {
      await page.close();
    }
  });

  it("keeps every secret of ours out of the environment of Toad's apps and agents", async () => {
    const starts = host.records().filter((entry) => entry.start);
    assert.ok(starts.length > 0, "an agent started");
    for (const { env } of starts) {
      assert.equal(env!.SYMPOSIUM_CHAT_TOKEN, undefined);
      assert.equal(env!.SYMPOSIUM_PANEL_HOST_SPEC, undefined);
      assert.ok(!Object.values(env!).some((value) => value.includes(host.spec.secret)), "the gate's secret in no variable");
    }
    for (const { pid, command } of treeCommands(host)) {
      if (command.includes("--serve")) continue; // the server got it, and removed it before starting anything
      let environ: string;
      try {
        environ = (await import("node:fs")).readFileSync(`/proc/${pid}/environ`, "utf8");
      } catch {
        continue;
      }
      assert.ok(!environ.includes(host.spec.secret), `process ${pid} (${command}) has the secret in its environment`);
    }
  });

  it("refuses, on Toad's private port, a local client without the secret and a page on a foreign origin; no app or agent starts", async () => {
    const privatePort = host.privatePort();
    const before = host.records().filter((entry) => entry.start).length;
    const appsBefore = new Set(appsAndAgents(host));
    const own = `127.0.0.1:${privatePort}`;
    // A local process: HTTP and websocket, without the secret, with a wrong one, with a foreign Host.
    assert.equal((await get(privatePort, "/")).status, 403);
    assert.equal((await get(privatePort, "/static/js/textual.js")).status, 403);
    assert.equal((await get(privatePort, "/?token=not-the-secret-0123456789")).status, 403);
    assert.equal((await get(privatePort, `/?token=${host.spec.secret}`, { host: `evil.example:${privatePort}` })).status, 403);
    assert.equal(await tryWebsocket(`ws://${own}/ws?width=80&height=24`), "status 403");
    assert.equal(await tryWebsocket(`ws://${own}/ws?token=not-the-secret-0123456789`), "status 403");
    assert.equal(await tryWebsocket(`ws://${own}/ws?token=${host.spec.secret}`, { origin: "http://evil.example" }), "status 403");
    // A web page on another origin that knows the port.
    const evil = http.createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(`<script>
        window.result = new Promise((resolve) => {
          const socket = new WebSocket("ws://${own}/ws?width=80&height=24");
          socket.onopen = () => resolve("open");
          socket.onerror = () => resolve("error");
          socket.onclose = () => resolve("closed");
        });</script>`),
    );
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    const page = await browser.newPage();
    try {
      await page.goto(`http://localhost:${(evil.address() as { port: number }).port}/`);
      assert.notEqual(await page.evaluate("window.result"), "open");
      const http403 = await page.evaluate(`fetch("http://${own}/", { mode: "no-cors" }).then((r) => r.type, (e) => "failed")`);
      assert.ok(http403 === "opaque" || http403 === "failed", "a page reads nothing of Toad's");
    } finally {
      await page.close();
      evil.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(host.records().filter((entry) => entry.start).length, before, "no agent started");
    assert.deepEqual(
      appsAndAgents(host).filter((pid) => !appsBefore.has(pid)),
      [],
      "no Toad app, conductor or agent started",
    );
    assert.match(host.log(), /403/);
  });

  it("stops the whole tree (Toad, its apps, conductors, agents): nothing left 3 s later", async () => {
    const { port, secret } = host.spec;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?width=80&height=24&token=${secret}`, { headers: { origin: `http://127.0.0.1:${port}` } });
    socket.on("error", () => {});
    // A live app with its conductor and agent (an app whose socket closed may still be ending).
    await eventually(() => appsAndAgents(host).length >= 3, 30_000, "a Toad app, its conductor and its agent");
    const tree = [host.child.pid!, ...treeCommands(host).map(({ pid }) => pid)];
    const started = Date.now();
    await fetch(`${host.gate}/.symposium/stop`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    await eventually(() => tree.every((pid) => !isAlive(pid)), 3_000, `no process of ${tree.join(", ")} left`);
    assert.ok(Date.now() - started < 3_000);
    assert.equal(await host.exited, 0);
  });
});
