// The panel host as a real process, with a Toad that obeys Toad's contract
// (test/fixtures/fake-toad.ts) behind it: the gate's checks with real HTTP
// and websocket requests, Toad's page through the gate, crashes and stops.

import { strict as assert } from "node:assert";
import * as http from "node:http";
import { after, describe, it } from "node:test";
import WebSocket from "ws";
import { fetchIdentity } from "../../../extension/src/panel/panel-host-client.js";
import { EXIT_PORT_BUSY } from "../../../panel-host/src/launch-spec.js";
import { descendants, eventually, isAlive } from "../../support/processes.js";
import { startTestHost, waitForFrontend, type TestHost } from "../../support/panel-host.js";
import { frameText } from "../../../acp-wire/src/index.js";

/** A raw request, so Host and Origin are exactly what the test says. */
function request(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

/** Opens a websocket; resolves with the first message, or rejects with the refusal's status. */
function openSocket(url: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    socket.once("error", reject);
  });
}

describe("panel host and gate", () => {
  const hosts: TestHost[] = [];
  after(async () => {
    for (const host of hosts) host.child.kill("SIGTERM");
    await Promise.all(hosts.map((host) => host.exited));
  });

  it("serves Toad's page through the gate only with the secret, right Host and right Origin", async () => {
    const host = await startTestHost();
    hosts.push(host);
    await waitForFrontend(host, "running");
    const { port, secret } = host.spec;
    const own = { host: `127.0.0.1:${port}` };
    assert.equal((await request(port, "/", own)).status, 403, "no secret");
    assert.equal((await request(port, "/?token=wrong-secret-0123456789", own)).status, 403, "wrong secret");
    assert.equal((await request(port, `/?token=${secret}`, { host: `evil.example:${port}` })).status, 403, "foreign Host (DNS rebinding)");
    assert.equal((await request(port, `/?token=${secret}`, { ...own, origin: "http://evil.example" })).status, 403, "foreign Origin");
    const page = await request(port, `/?token=${secret}`, own);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /http:\/\/127\.0\.0\.1:\d+\/static/, "no absolute URL on the private port is left");
    assert.match(page.body, new RegExp(`src="\\./static/js/textual\\.js\\?token=${secret}"`));
    const script = await request(port, `/static/js/textual.js?token=${secret}`, own);
    assert.equal(script.status, 200);
    assert.equal((await request(port, "/static/js/textual.js", own)).status, 403, "sub-resources need the secret too");
  });

  it("proxies the websocket to a fresh app per connection, refusing foreign Origin and missing secret", async () => {
    const host = await startTestHost();
    hosts.push(host);
    await waitForFrontend(host, "running");
    const { port, secret } = host.spec;
    const url = `ws://127.0.0.1:${port}/ws?width=80&height=24`;
    await assert.rejects(openSocket(url, { origin: `http://127.0.0.1:${port}` }), /status 403/, "no secret");
    await assert.rejects(openSocket(`${url}&token=${secret}`, { origin: "http://evil.example" }), /status 403/, "foreign Origin");
    await assert.rejects(openSocket(`${url}&token=${secret}`, { origin: `http://127.0.0.1:${port}`, host: "evil.example" }), /status 403/, "foreign Host");
    const socket = await openSocket(`${url}&token=${secret}`, { origin: `http://127.0.0.1:${port}` });
    let text = "";
    socket.on("message", (data) => (text += (JSON.parse(frameText(data)) as [string, string])[1]));
    socket.send(JSON.stringify(["stdin", "hello through the gate"]));
    await eventually(() => text.includes("[turn ended]"), 15_000, "the demo agent's answer");
    assert.match(text, /hello through the gate/);
    socket.close();
  });

  it("accepts the origin a window attaches with (code-server's /proxy/PORT/ forwarding)", async () => {
    const host = await startTestHost();
    hosts.push(host);
    await waitForFrontend(host, "running");
    const { port, secret } = host.spec;
    const forwarded = { host: "code-server.test:8443", origin: "https://code-server.test:8443" };
    assert.equal((await request(port, `/?token=${secret}`, forwarded)).status, 403, "not before the window attached with it");
    const attach = await fetch(`${host.gate}/.symposium/attach`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
      body: JSON.stringify({ origin: "https://code-server.test:8443" }),
    });
    assert.equal(attach.status, 200);
    assert.equal((await request(port, `/?token=${secret}`, forwarded)).status, 200);
    assert.equal((await request(port, `/?token=${secret}`, { host: "code-server.test:8443", origin: "https://other.test" })).status, 403);
  });

  it("answers its identity behind the secret only", async () => {
    const host = await startTestHost();
    hosts.push(host);
    const identity = await waitForFrontend(host, "running");
    assert.equal(identity.pid, host.child.pid);
    assert.equal(identity.launchId, host.spec.launchId);
    assert.equal((await fetch(`${host.gate}/.symposium/identity`)).status, 403);
  });

  it("is recognised only by its own secret; a stranger answering on a remembered port is not a host", async () => {
    const host = await startTestHost();
    hosts.push(host);
    await waitForFrontend(host, "running");
    assert.equal((await fetchIdentity(host.spec.port, host.spec.secret)).launchId, host.spec.launchId);
    await assert.rejects(fetchIdentity(host.spec.port, "a-secret-from-an-earlier-launch"), /answered 403/);
    const stranger = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    await new Promise<void>((resolve) => stranger.listen(0, "127.0.0.1", resolve));
    try {
      await assert.rejects(fetchIdentity((stranger.address() as { port: number }).port, host.spec.secret), /did not answer as a panel host/);
    } finally {
      stranger.close();
    }
  });

  it("gives up on a frontend that exits at once, reporting the last lines of its log", async () => {
    const host = await startTestHost({}, { FAKE_TOAD_EXIT_AT_ONCE: "broken install" });
    hosts.push(host);
    const identity = await waitForFrontend(host, "failed", 30_000);
    assert.equal(identity.frontend.state, "failed");
    if (identity.frontend.state !== "failed") return;
    assert.match(identity.frontend.message, /exited with code 1, 4 times in a row/);
    assert.ok(
      identity.frontend.lastLines.some((line) => line.includes("exiting at once as told (broken install)")),
      identity.frontend.lastLines.join("\n"),
    );
  });

  it("restarts a frontend that crashes once", async () => {
    const host = await startTestHost();
    hosts.push(host);
    const first = await waitForFrontend(host, "running");
    assert.equal(first.frontend.state, "running");
    if (first.frontend.state !== "running") return;
    process.kill(first.frontend.pid, "SIGKILL");
    await eventually(() => !isAlive((first.frontend as { pid: number }).pid), 3_000, "the frontend to die");
    // The host may still report the dead frontend for a moment: wait for a new one.
    const second = await waitForFrontend(host, "running", 15_000, first.frontend.pid);
    assert.notEqual((second.frontend as { pid: number }).pid, first.frontend.pid);
    assert.match(host.log(), /the frontend was killed by SIGKILL; restarting in 500 ms \(crash 1\)/);
  });

  it("stops its whole tree (frontend, apps, agents) on request within 3 s", async () => {
    const host = await startTestHost();
    hosts.push(host);
    await waitForFrontend(host, "running");
    const { port, secret } = host.spec;
    const socket = await openSocket(`ws://127.0.0.1:${port}/ws?token=${secret}`, { origin: `http://127.0.0.1:${port}` });
    socket.on("error", () => {});
    await eventually(() => descendants(host.child.pid!).length >= 3, 10_000, "frontend + shell/agent processes");
    const tree = [host.child.pid!, ...descendants(host.child.pid!)];
    const started = Date.now();
    await fetch(`${host.gate}/.symposium/stop`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    await eventually(() => tree.every((pid) => !isAlive(pid)), 3_000, `no process of ${tree.join(", ")} left`);
    assert.ok(Date.now() - started < 3_000);
    assert.equal(await host.exited, 0);
  });

  it("ends itself when no window has attached for the idle timeout", async () => {
    const host = await startTestHost({ idleTimeoutMs: 1_500 });
    hosts.push(host);
    const identity = await waitForFrontend(host, "running");
    const frontendPid = (identity.frontend as { pid: number }).pid;
    assert.equal(await host.exited, 0);
    await eventually(() => !isAlive(frontendPid), 3_000, "the frontend to end with its host");
    assert.match(host.log(), /stopping: no window attached for 2 s/);
  });

  it("exits with a clear status when its port is busy", async () => {
    const first = await startTestHost();
    hosts.push(first);
    await waitForFrontend(first, "running");
    const second = await startTestHost({ port: first.spec.port });
    hosts.push(second);
    assert.equal(await second.exited, EXIT_PORT_BUSY);
    assert.match(second.log(), new RegExp(`port ${first.spec.port} on 127\\.0\\.0\\.1 is busy`));
  });
});
