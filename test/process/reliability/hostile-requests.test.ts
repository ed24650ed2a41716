// Hostile requests: requests whose target Node's URL parser refuses, sent
// with no secret over raw TCP (as any web page can, with an <img>), on plain
// HTTP and as websocket upgrades, to the real built-in chat server and the
// real panel host's gate. Each is answered 400 or 403, and the server keeps
// serving an authenticated page afterwards.

import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { ChatSocket, UNPARSABLE_TARGETS, rawStatus } from "../../support/hostile.js";
import { startTestHost, waitForFrontend, type TestHost } from "../../support/panel-host.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

const REFUSED = [400, 403];

describe("hostile request targets: the built-in chat server", () => {
  let server: ChatServer;
  let port: number;
  before(async () => {
    server = await startChatServer();
    port = Number(server.url.port);
  });
  after(() => server?.stop());

  it("answers 400 or 403 to each unparsable target, plain or upgrade, and keeps serving", async () => {
    for (const target of UNPARSABLE_TARGETS) {
      for (const upgrade of [false, true]) {
        const status = await rawStatus(port, target, { upgrade, headers: { origin: server.origin } });
        assert.ok(REFUSED.includes(status), `${upgrade ? "upgrade" : "GET"} ${target}: status ${status}\n${server.process.stderr()}`);
        assert.equal(server.process.child.exitCode, null, `the server survives ${target}`);
      }
    }
    assert.equal(await rawStatus(port, `/?token=${server.token}`), 200, "the page is still served");
    const page = new ChatSocket(server.origin, server.token);
    await page.whenReady();
    assert.match(await page.ask("hello after the attack"), /hello after the attack/);
    page.socket.close();
  });

  it("with the secret, an odd target is still answered, never a crash", async () => {
    for (const target of ["//a:99999/", "//[/"]) {
      const status = await rawStatus(port, `${target}?token=${server.token}`, { upgrade: true, headers: { origin: server.origin } });
      assert.ok(status >= 400 && status < 500, `upgrade ${target} with the secret: status ${status}`);
      const plain = await rawStatus(port, `${target}?token=${server.token}`);
      assert.ok(plain >= 400 && plain < 500, `GET ${target} with the secret: status ${plain}`);
    }
    assert.equal(server.process.child.exitCode, null);
    assert.match(server.process.stderr(), /refused GET "http:\/\/\[\/": the request's target is not a path/, "one log line naming the cause");
  });
});

describe("hostile request targets: the panel host's gate", () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost();
    await waitForFrontend(host, "running");
  });
  after(async () => {
    host?.child.kill("SIGTERM");
    await host?.exited;
  });

  it("answers 400 or 403 to each unparsable target, plain or upgrade, and keeps serving", async () => {
    const { port, secret } = host.spec;
    const running = await host.identity();
    for (const target of UNPARSABLE_TARGETS) {
      for (const upgrade of [false, true]) {
        const status = await rawStatus(port, target, { upgrade, headers: { origin: `http://127.0.0.1:${port}` } });
        assert.ok(REFUSED.includes(status), `${upgrade ? "upgrade" : "GET"} ${target}: status ${status}\n${host.log()}`);
        assert.equal(host.child.exitCode, null, `the host survives ${target}`);
      }
    }
    for (const target of ["//a:99999/", "//[/"]) {
      const status = await rawStatus(port, `${target}?token=${secret}`, { upgrade: true, headers: { origin: `http://127.0.0.1:${port}` } });
      assert.ok(status >= 400 && status < 500, `upgrade ${target} with the secret: status ${status}`);
    }
    const own = { origin: `http://127.0.0.1:${port}` };
    for (const broken of [{ "sec-websocket-key": "not a key" }, { "sec-websocket-version": "7" }, { "sec-websocket-protocol": "a b, ,c" }] as Array<
      Record<string, string>
    >) {
      const status = await rawStatus(port, `/ws?token=${secret}`, { upgrade: true, headers: { ...own, ...broken } });
      assert.ok(status >= 400 && status < 500, `a malformed handshake (${JSON.stringify(broken)}): status ${status}`);
    }
    const attach = (body: string) =>
      fetch(`http://127.0.0.1:${port}/.symposium/attach`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body });
    assert.equal((await attach("x".repeat(200 * 1024))).status, 400, "an attach body over 64 KiB");
    for (const body of ["null", "[", '{"origin":"javascript:1"}']) assert.ok([200, 400].includes((await attach(body)).status), `attach ${body}`);
    assert.equal(await rawStatus(port, `/?token=${secret}`), 200, "Toad's page is still served");
    const identity = await host.identity();
    assert.deepEqual(identity.frontend, running.frontend, "the same frontend, still running");
    assert.match(host.log(), /refused GET "http:\/\/\[\/": the request's target is not a path/);
  });
});
