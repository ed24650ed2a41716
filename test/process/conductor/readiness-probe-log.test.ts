// The panel host's readiness probe asks the frontend without the secret on
// purpose (panel-host/src/frontend.ts); the built-in chat server refuses it,
// as it must, but logs that as the expected answer to the probe, not as a
// refused caller (it once logged "refused GET /" at every start).
// Any other request without the secret is still logged as refused.

import { strict as assert } from "node:assert";
import * as http from "node:http";
import { after, describe, it } from "node:test";
import { READINESS_PROBE_HEADER } from "../../../loopback-auth/src/index.js";
import { eventually } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";

function get(server: ChatServer, headers: http.OutgoingHttpHeaders): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: server.url.hostname, port: server.url.port, path: "/", headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once("error", reject);
  });
}

describe("the readiness probe's refusal in the chat server's log", () => {
  let server: ChatServer;
  after(() => server?.stop());

  it("is logged calmly for the probe, and as a refusal for any other caller without the secret", async () => {
    server = await startChatServer();
    assert.equal(await get(server, { [READINESS_PROBE_HEADER]: "1" }), 403, "the probe is still refused");
    await eventually(() => server.process.stderr().includes("readiness probe"), 5_000, "the probe's log line");
    assert.doesNotMatch(server.process.stderr(), /refused GET/, "the probe is not logged as a refused caller");
    assert.equal(await get(server, {}), 403);
    await eventually(() => server.process.stderr().includes('refused GET "/": no secret in the request'), 5_000, "the refusal's log line");
    // The header with a wrong secret is a refused caller like any other.
    assert.equal(await get(server, { [READINESS_PROBE_HEADER]: "1", authorization: "Bearer wrong" }), 403);
    await eventually(() => server.process.stderr().includes('refused GET "/": wrong secret'), 5_000, "the wrong secret's log line");
  });
});
