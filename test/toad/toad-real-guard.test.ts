// The caller checks the panel host puts in front of Toad's web server
// (panel-host/src/toad-guard.ts) when Toad changes under them: a stand-in
// "Toad" script run by Toad's real interpreter (scripts/install-toad.sh) that
// starts its aiohttp server in ways a future textual-serve might. Each is
// either still protected or refused with a clear message: never served open.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestHost, waitForFrontend, type TestHost } from "../support/panel-host.js";
import { isAlive, tempDir } from "../support/processes.js";
import { TOAD_LAUNCHER, realToadSkip } from "../support/toad.js";

const skip = realToadSkip();
const TOAD_PYTHON = path.join(path.dirname(TOAD_LAUNCHER), "python");

/** A Python "toad" taking Toad's command line (`acp CMD --serve --port N --host H`) whose server is `body`. */
function fakeToadScript(body: string): string {
  const file = path.join(tempDir("symposium-toad-guard-"), "toad");
  const prelude = `import sys\nport = int(sys.argv[sys.argv.index("--port") + 1])\nhost = sys.argv[sys.argv.index("--host") + 1]\n`;
  fs.writeFileSync(file, `#!${TOAD_PYTHON}\n${prelude}${body}\n`, { mode: 0o755 });
  return file;
}

function get(port: number, pathname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: pathname }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .once("error", reject);
  });
}

describe("Toad's caller checks when Toad's server changes", { skip, timeout: 120_000 }, () => {
  const hosts: TestHost[] = [];
  after(async () => {
    for (const host of hosts) if (host.child.exitCode === null) host.child.kill("SIGTERM");
    await Promise.all(hosts.map((host) => host.exited));
  });

  async function hostFor(script: string): Promise<TestHost> {
    const host = await startTestHost({ frontend: { program: script, args: ["acp", "true"] } });
    hosts.push(host);
    return host;
  }

  it("still protects an aiohttp app started another way (AppRunner instead of run_app)", async () => {
    const script = fakeToadScript(`import asyncio
from aiohttp import web
async def main():
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text="open"))
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    await asyncio.Event().wait()
asyncio.run(main())`);
    const host = await hostFor(script);
    await waitForFrontend(host, "running", 30_000);
    const privatePort = Number(/frontend ready on 127\.0\.0\.1:(\d+)/.exec(host.log())![1]);
    assert.equal(await get(privatePort, "/"), 403);
    assert.equal(await get(privatePort, `/?token=${host.spec.secret}`), 200);
  });

  it("refuses to serve, naming why, when the app bypasses aiohttp.web.Application", async () => {
    const script = fakeToadScript(`from aiohttp import web, web_app
app = web_app.Application()
app.router.add_get("/", lambda request: web.Response(text="open"))
web.run_app(app, host=host, port=port)`);
    const host = await hostFor(script);
    const identity = await waitForFrontend(host, "failed", 30_000);
    assert.equal(identity.frontend.state, "failed");
    if (identity.frontend.state !== "failed") return;
    assert.match(identity.frontend.message, /could not put its caller checks in front of Toad's web server/);
    assert.ok(
      identity.frontend.lastLines.some((line) =>
        /symposium: cannot add the caller checks to Toad's web server .*refusing to serve Toad unprotected/.test(line),
      ),
      identity.frontend.lastLines.join("\n"),
    );
    assert.doesNotMatch(host.log(), /restarting/, "failing closed is final: no restart");
  });

  it("stops and reports a server that answers without the secret (no aiohttp at all)", async () => {
    const script = fakeToadScript(`import http.server
class Open(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"open")
http.server.HTTPServer((host, port), Open).serve_forever()`);
    const host = await hostFor(script);
    const identity = await waitForFrontend(host, "failed", 30_000);
    if (identity.frontend.state !== "failed") return assert.fail("not failed");
    assert.match(identity.frontend.message, /answered a request that carried no secret/);
    const started = /starting the frontend: .* \(cwd/.exec(host.log());
    assert.ok(started, host.log());
    // The open server was killed, and soon nothing serves its port any more.
    const privatePort = Number(/--port (\d+)/.exec(started[0])![1]);
    const deadline = Date.now() + 10_000;
    while (
      await get(privatePort, "/").then(
        () => true,
        () => false,
      )
    ) {
      assert.ok(Date.now() < deadline, `port ${privatePort} still answers 10 s after the failure`);
      await sleep(100);
    }
    assert.ok(isAlive(host.child.pid!), "the host itself stays up, showing the error");
  });
});
