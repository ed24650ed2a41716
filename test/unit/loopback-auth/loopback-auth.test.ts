// The caller checks every local server shares, against a real HTTP server and
// real requests (Host and Origin set as a browser or a rebinding attacker would).

import { strict as assert } from "node:assert";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  CHAT_TOKEN_ENV,
  createLoopbackGuard,
  generateSecret,
  isLoopbackHost,
  parseOriginList,
  refuseUpgrade,
  secretsMatch,
} from "../../../loopback-auth/src/index.js";

const TOKEN = "s3cret-s3cret-s3cret";

describe("loopback guard", () => {
  let server: http.Server;
  let port = 0;
  const refusals: string[] = [];

  before(async () => {
    const guard = createLoopbackGuard({ token: TOKEN, port: () => port, allowedOrigins: ["https://code.example:8443"], allowedHosts: ["tunnel.example"] });
    server = http.createServer((req, res) => {
      const verdict = guard.checkHttp(req);
      if (!verdict.ok) refusals.push(verdict.reason);
      res.writeHead(verdict.ok ? 200 : verdict.status).end(verdict.ok ? "ok" : verdict.reason);
    });
    server.on("upgrade", (req, socket) => {
      const verdict = guard.checkUpgrade(req);
      if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.reason);
      socket.end("HTTP/1.1 418 Teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  function get(pathAndQuery: string, headers: http.OutgoingHttpHeaders = {}, upgrade = false): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        headers: { host: `127.0.0.1:${port}`, ...headers, ...(upgrade ? { connection: "Upgrade", upgrade: "websocket" } : {}) },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("upgrade", (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body: "" });
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("lets in a request with the secret and the server's own Host", async () => {
    assert.equal((await get(`/?token=${TOKEN}`)).status, 200);
    assert.equal((await get(`/x?token=${TOKEN}`, { host: `localhost:${port}` })).status, 200);
    assert.equal((await get(`/x?token=${TOKEN}`, { host: `[::1]:${port}` })).status, 200);
    assert.equal((await get("/", { authorization: `Bearer ${TOKEN}` })).status, 200);
  });

  it("refuses a missing or wrong secret with 403", async () => {
    assert.deepEqual(await get("/"), { status: 403, body: "no secret in the request" });
    assert.deepEqual(await get("/?token=nope"), { status: 403, body: "wrong secret" });
    assert.equal((await get(`/?token=${TOKEN}x`)).status, 403);
  });

  it("refuses a foreign Host (DNS rebinding), even with the secret", async () => {
    const evil = await get(`/?token=${TOKEN}`, { host: `evil.example:${port}` });
    assert.equal(evil.status, 403);
    assert.match(evil.body, /Host 'evil.example:\d+' is not this server/);
    assert.equal((await get(`/?token=${TOKEN}`, { host: "127.0.0.1:1" })).status, 403, "another port is another server");
  });

  it("accepts the hosts of allowed origins and allowed hosts (port forwarding)", async () => {
    assert.equal((await get(`/?token=${TOKEN}`, { host: "code.example:8443" })).status, 200);
    assert.equal((await get(`/?token=${TOKEN}`, { host: "tunnel.example" })).status, 200);
  });

  it("checks the Origin of websocket upgrades", async () => {
    assert.equal((await get(`/ws?token=${TOKEN}`, { origin: `http://127.0.0.1:${port}` }, true)).status, 418);
    assert.equal((await get(`/ws?token=${TOKEN}`, { origin: "https://code.example:8443" }, true)).status, 418);
    const foreign = await get(`/ws?token=${TOKEN}`, { origin: "https://evil.example" }, true);
    assert.equal(foreign.status, 403);
    assert.equal((await get(`/ws?token=${TOKEN}`, { origin: "null" }, true)).status, 403);
    assert.equal((await get("/ws", { origin: `http://127.0.0.1:${port}` }, true)).status, 403, "the secret is needed too");
  });

  it("refuses a plain request from a foreign page", async () => {
    assert.equal((await get(`/?token=${TOKEN}`, { origin: "https://evil.example" })).status, 403);
    assert.ok(refusals.some((reason) => reason.includes("Origin 'https://evil.example' is not allowed")));
  });
});

describe("loopback-auth helpers", () => {
  it("generates a fresh random secret, or takes the launcher's", () => {
    const first = generateSecret({});
    assert.match(first, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first, generateSecret({}));
    assert.equal(generateSecret({ [CHAT_TOKEN_ENV]: "given-given-given-given" }), "given-given-given-given");
    assert.throws(() => generateSecret({ [CHAT_TOKEN_ENV]: "short" }), /too short/);
  });

  it("parses origin lists and names a bad entry", () => {
    assert.deepEqual(parseOriginList("http://LOCALHOST:8080/, https://code.example"), ["http://localhost:8080", "https://code.example"]);
    assert.deepEqual(parseOriginList(undefined), []);
    assert.throws(() => parseOriginList("http://ok.example oops"), /'oops' is not an origin/);
    assert.throws(() => parseOriginList("localhost:8080"), /'localhost:8080' is not an origin/);
    assert.throws(() => parseOriginList("http://a.example/proxy/1"), /without a path/);
  });

  it("knows loopback names", () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) assert.ok(isLoopbackHost(host), host);
    for (const host of ["0.0.0.0", "192.168.1.2", "example.com"]) assert.ok(!isLoopbackHost(host), host);
  });

  it("compares secrets of any length", () => {
    assert.ok(secretsMatch("abc", "abc"));
    assert.ok(!secretsMatch("abc", "abcd"));
    assert.ok(!secretsMatch("", "abc"));
  });

  it("refuses to guard with an empty token", () => {
    assert.throws(() => createLoopbackGuard({ token: "", port: 1 }), /non-empty token/);
  });
});
