// The fake Toad (test/fixtures/fake-toad.ts, used where the real one cannot
// be made to fail) must not drift from the real one (scripts/install-toad.sh):
// both run behind the same panel host, and what the panel depends on is
// compared — what the page asks for, each route's answer with and without the
// secret, the websocket URL's form, and the cwd and environment the agent
// behind the conductor gets for each websocket.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as http from "node:http";
import { after, describe, it } from "node:test";
import WebSocket from "ws";
import { eventually } from "../support/processes.js";
import { realToadSkip, startToadHost, type ToadHost } from "../support/toad.js";

const skip = realToadSkip();

function status(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .once("error", reject);
  });
}

function upgrade(url: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_req, res) => resolve(`status ${res.statusCode}`));
    socket.once("error", (error) => resolve(`error ${error.message}`));
  });
}

/** What the panel relies on, from a host running `kind`. */
async function facts(host: ToadHost): Promise<Record<string, unknown>> {
  const { port, secret } = host.spec;
  const privatePort = host.privatePort();
  const page = await (await fetch(`${host.gate}/?token=${secret}`)).text();
  const asked = [...page.matchAll(/(?:href|src)="([^"]+)"|url\("([^"]+)"\)/g)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((url) => !url.startsWith("http://www.w3.org"))
    .map((url) => url.replace(/[?&](amp;)?token=[^&"]*/, ""))
    .sort();
  const websocketUrl = /data-session-websocket-url="([^"]+)"/.exec(page)?.[1]?.replace(String(privatePort), "PORT");
  const routes: Record<string, unknown> = {};
  for (const path of ["/", "/static/js/textual.js", "/static/css/xterm.css", "/static/images/background.png", "/no-such-route"]) {
    routes[path] = { without: await status(privatePort, path), with: await status(privatePort, `${path}?token=${secret}`) };
  }
  routes["/ws"] = { without: await upgrade(`ws://127.0.0.1:${privatePort}/ws`), with: await upgrade(`ws://127.0.0.1:${privatePort}/ws?token=${secret}`) };
  // One websocket through the gate, kept open until its app's agent has started; then what the agents got.
  const before = host.records().filter((entry) => entry.start).length;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?width=80&height=24&token=${secret}`, { headers: { origin: `http://127.0.0.1:${port}` } });
  socket.on("error", () => {});
  await eventually(() => host.records().filter((entry) => entry.start).length > before, 30_000, `an agent to start; log:\n${host.log()}`);
  socket.close();
  // Every agent started since, told apart only by what differs: the real Toad may also start an app for the
  // direct websocket above (closed at once), the fake may not; both must give each agent the same facts.
  const agents = host
    .records()
    .filter((entry) => entry.start)
    .slice(before);
  const distinct = (list: object[]): object[] => [...new Map(list.map((each) => [JSON.stringify(each), each])).values()];
  return {
    asked,
    websocketUrl,
    routes,
    agents: distinct(
      agents.map(({ cwd, env }) => ({
        cwd: fs.realpathSync(cwd!) === fs.realpathSync(host.workspace) ? "the project" : cwd,
        stateFile: env!.SYMPOSIUM_EDITOR_STATE_FILE === host.stateFile,
        config: typeof env!.SYMPOSIUM_CONFIG === "string",
        secret: Object.values(env!).some((value) => value.includes(secret)) || env!.SYMPOSIUM_CHAT_TOKEN !== undefined,
      })),
    ),
  };
}

describe("the fake Toad against the real one", { skip, timeout: 180_000 }, () => {
  const hosts: ToadHost[] = [];
  after(async () => {
    for (const host of hosts) if (host.child.exitCode === null) host.child.kill("SIGTERM");
    await Promise.all(hosts.map((host) => host.exited));
  });

  it("asks for the same things, answers the same routes and gives the agent the same cwd and environment", async () => {
    const real = await startToadHost("real");
    hosts.push(real);
    const fake = await startToadHost("fake");
    hosts.push(fake);
    const [realFacts, fakeFacts] = [await facts(real), await facts(fake)];
    assert.deepEqual(fakeFacts, realFacts);
    // And what both are, so a change in both at once is noticed too.
    assert.equal(realFacts.websocketUrl, "ws://127.0.0.1:PORT/ws");
    assert.deepEqual((realFacts.routes as Record<string, { without: unknown }>)["/ws"]!.without, "status 403");
    assert.ok((realFacts.agents as Array<{ secret: boolean }>).every((agent) => !agent.secret));
  });
});
