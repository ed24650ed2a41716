// Hostile frames: websocket messages over the size limit and text frames
// that are not UTF-8, from an authenticated page, to the real built-in chat
// server and through the real panel host's gate. Each closes its own socket
// with a close code naming the cause; every other socket and conversation
// keeps working, and the gate never takes them for the frontend crashing.

import { strict as assert } from "node:assert";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import { MAX_PAGE_MESSAGE_BYTES } from "../../../webchat/page/protocol.js";
import { ChatSocket, oversizedPrompt, sendInvalidUtf8 } from "../../support/hostile.js";
import { startTestHost, waitForFrontend, type TestHost } from "../../support/panel-host.js";
import { CHAT_AGENT_COMMAND, WEBCHAT_CLI, startChatServer, type ChatServer } from "../../support/webchat-server.js";

/** RFC 6455 close codes: the reason a receiver gives for each. */
const TOO_BIG = 1009;
const NOT_UTF8 = 1007;
const OVERSIZED = MAX_PAGE_MESSAGE_BYTES + 1024 * 1024;

describe("hostile frames: the built-in chat server", () => {
  let server: ChatServer;
  before(async () => {
    server = await startChatServer({ env: { SYMPOSIUM_CHAT_GRACE_MS: "60000" } });
  });
  after(() => server?.stop());

  it("closes only the socket that sent an oversized message or invalid UTF-8; the others keep their conversations", async () => {
    const other = new ChatSocket(server.origin, server.token, "other");
    const sameA = new ChatSocket(server.origin, server.token, "shared");
    const sameB = new ChatSocket(server.origin, server.token, "shared");
    await Promise.all([other.whenReady(), sameA.whenReady(), sameB.whenReady()]);

    sameA.socket.send(oversizedPrompt(OVERSIZED));
    assert.equal((await sameA.ended).code, TOO_BIG, "the oversized message's socket is closed as too big");
    const unnamed = new ChatSocket(server.origin, server.token);
    await unnamed.whenReady();
    sendInvalidUtf8(unnamed.socket);
    assert.equal((await unnamed.ended).code, NOT_UTF8, "the invalid frame's socket is closed as not UTF-8");

    assert.equal(server.process.child.exitCode, null, "the server still runs");
    assert.match(await sameB.ask("same conversation still answers"), /same conversation still answers/);
    assert.match(await other.ask("other conversation still answers"), /other conversation still answers/);
    const stderr = server.process.stderr();
    assert.match(stderr, /closed a websocket: .*Max payload size exceeded/i, "one log line naming the cause");
    assert.match(stderr, /closed a websocket: .*invalid UTF-8/i);
    other.socket.close();
    sameB.socket.close();
  });

  it("ignores page messages of any other shape, on a socket that stays open", async () => {
    const page = new ChatSocket(server.origin, server.token);
    await page.whenReady();
    for (const text of [
      "null",
      "7",
      '"text"',
      "[]",
      "{}",
      '{"type":null}',
      '{"type":{}}',
      '{"type":"prompt"}',
      '{"type":"prompt","text":{}}',
      '{"type":"permission"}',
      '{"type":"setMode","modeId":{}}',
      '{"type":"cancel"}',
    ]) {
      page.socket.send(text);
    }
    page.socket.send(Buffer.from([0, 1, 2, 255]), { binary: true });
    assert.match(await page.ask("still answering"), /still answering/);
    assert.equal(server.process.child.exitCode, null);
    page.socket.close();
  });
});

describe("hostile frames: through the panel host's gate", () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ frontend: { program: process.execPath, args: [WEBCHAT_CLI, "acp", CHAT_AGENT_COMMAND] } });
    await waitForFrontend(host, "running");
  });
  after(async () => {
    host?.child.kill("SIGTERM");
    await host?.exited;
  });

  it("closes the client's socket on each bad frame, and never counts them as the frontend crashing", async () => {
    const { port, secret } = host.spec;
    const gate = `http://127.0.0.1:${port}`;
    const running = (await host.identity()).frontend;
    const bystander = new ChatSocket(gate, secret, "bystander");
    await bystander.whenReady();
    for (let round = 0; round < 6; round++) {
      const attacker = new ChatSocket(gate, secret);
      await once(attacker.socket, "open");
      if (round % 2 === 0) attacker.socket.send(oversizedPrompt(OVERSIZED));
      else sendInvalidUtf8(attacker.socket);
      assert.equal((await attacker.ended).code, round % 2 === 0 ? TOO_BIG : NOT_UTF8, `round ${round}`);
    }
    assert.deepEqual((await host.identity()).frontend, running, `the same frontend still runs; log:\n${host.log()}`);
    assert.doesNotMatch(host.log(), /restarting in|giving up/);
    assert.match(await bystander.ask("still here through the gate"), /still here through the gate/);
    const fresh = new ChatSocket(gate, secret);
    await fresh.whenReady();
    assert.match(await fresh.ask("a new page works too"), /a new page works too/);
    bystander.socket.close();
    fresh.socket.close();
  });
});
