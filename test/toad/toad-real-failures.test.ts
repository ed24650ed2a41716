// The real Toad (scripts/install-toad.sh) when it cannot start, behind the
// real panel host: a busy fixed gate port (symposium.toadPort) and a Python
// library missing from Toad's interpreter. The extension shows the host's
// failed state as the message, these last lines and a Retry (the same view as
// for the built-in chat), so here the host must reach "failed" with Toad's own
// lines in it. The installed Toad is left as it is: the missing library is
// made missing for one run with PYTHONPATH (an import hook, below).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { EXIT_PORT_BUSY, type HostIdentity } from "../../panel-host/src/launch-spec.js";
import { startTestHost, waitForFrontend, type TestHost } from "../support/panel-host.js";
import { descendants, eventually, tempDir } from "../support/processes.js";
import { TOAD_LAUNCHER, realToadSkip } from "../support/toad.js";

const skip = realToadSkip();

/**
 * A PYTHONPATH folder whose sitecustomize makes `modules` unimportable, with
 * the very error Python raises for a package that is not installed.
 */
function withoutModules(modules: string[]): string {
  const dir = tempDir("symposium-missing-py-");
  fs.writeFileSync(
    path.join(dir, "sitecustomize.py"),
    `import sys
MISSING = ${JSON.stringify(modules)}
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in MISSING:
            raise ModuleNotFoundError("No module named '%s'" % name, name=name)
        return None
sys.meta_path.insert(0, Missing())
`,
  );
  return dir;
}

/** A host running the real Toad (`toad acp "echo"`: it fails before any agent starts). */
function startRealToad(overrides: Parameters<typeof startTestHost>[0] = {}): Promise<TestHost> {
  return startTestHost({ frontend: { program: TOAD_LAUNCHER, args: ["acp", "echo never started"] }, ...overrides });
}

function failedLines(identity: HostIdentity): { message: string; lastLines: string[] } {
  if (identity.frontend.state !== "failed") assert.fail(`the frontend is ${identity.frontend.state}, not failed`);
  return identity.frontend;
}

describe("the real Toad that cannot start", { skip, timeout: 180_000 }, () => {
  const hosts: TestHost[] = [];
  after(async () => {
    for (const host of hosts) if (host.child.exitCode === null) host.child.kill("SIGTERM");
    await Promise.all(hosts.map((host) => host.exited));
  });

  it("a busy symposium.toadPort: the host exits with its port-busy status naming the port, and no Toad starts", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    try {
      const port = (holder.address() as net.AddressInfo).port;
      const host = await startRealToad({ port });
      hosts.push(host);
      assert.equal(await host.exited, EXIT_PORT_BUSY, host.log());
      assert.match(host.log(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is busy`));
      assert.doesNotMatch(host.log(), /starting the frontend/, "Toad is not started behind a gate that could not open");
    } finally {
      holder.close();
    }
  });

  it("a missing Python library: after its restarts the host reports failed, with Toad's own traceback in the last lines", async () => {
    // textual_serve is what Toad imports for --serve (toad/cli.py, Toad 0.6.20).
    const host = await startRealToad({ env: { PYTHONPATH: withoutModules(["textual_serve"]) } });
    hosts.push(host);
    const { message, lastLines } = failedLines(await waitForFrontend(host, "failed", 120_000));
    assert.match(message, /exited with code 1, 4 times in a row/);
    const text = lastLines.join("\n");
    assert.match(text, /ModuleNotFoundError: No module named 'textual_serve'/, text);
    assert.match(text, /toad\/cli\.py/, "Toad's own traceback, not only ours");
    await eventually(() => descendants(host.child.pid!).length === 0, 3_000, "no Toad process left once the host gave up");
    assert.equal(host.child.exitCode, null, "the host stays up, so the panel can show the failure and offer Retry");
  });

  it("a missing aiohttp: Toad is not started unprotected; the host reports failed at once, naming the library", async () => {
    const host = await startRealToad({ env: { PYTHONPATH: withoutModules(["aiohttp"]) } });
    hosts.push(host);
    const { message, lastLines } = failedLines(await waitForFrontend(host, "failed", 60_000));
    assert.match(message, /Toad was not started: Symposium could not put its caller checks in front of Toad's web server/);
    assert.ok(
      lastLines.some((line) => line.includes("aiohttp does not import in Toad's Python (No module named 'aiohttp')")),
      lastLines.join("\n"),
    );
    assert.doesNotMatch(host.log(), /restarting in/, "a restart would not help");
    await eventually(() => descendants(host.child.pid!).length === 0, 3_000, "no Toad process left");
  });
});
