// The proxy in wrap mode on the wire: bytes forwarded exactly, malformed and
// oversized input answered as JSON-RPC requires.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { LineCollector, PROXY_CLI, RAW_AGENT, eventually, parseReply, startNode, tempDir } from "../../support/processes.js";
import { SEED_STATE, writeStateFile } from "../../support/state-files.js";
import { STATE_FILE_ENV as STATE_ENV } from "../../../editor-state/src/index.js";

describe("wrap mode on the wire", () => {
  function rawProxy(stateFile?: string) {
    const log = path.join(tempDir(), "agent-received.ndjson");
    // The editor's tools off (config file): session/new and load pass as they came (test/process/editor-tools/editor-tools-sessions.test.ts adds them).
    const config = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(config, `{"editorTools": false}`);
    const proxy = startNode(PROXY_CLI, ["--", process.execPath, RAW_AGENT], {
      [STATE_ENV]: stateFile ?? "",
      RAW_AGENT_LOG: log,
      SYMPOSIUM_CONFIG: config,
    });
    return { proxy, log, out: new LineCollector(proxy.child.stdout!) };
  }

  it("forwards every message it does not change byte for byte, both ways", async () => {
    const { proxy, log, out } = rawProxy(writeStateFile(SEED_STATE));
    // Agent → client first: two of its requests, which the client answers below.
    const agentLines = [
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"🤔"}}}}`,
      `{"jsonrpc":"2.0","id":"agent-1","method":"fs/read_text_file","params":{"sessionId":"s","path":"/x","line":1,"limit":9}}`,
      `{  "jsonrpc":"2.0", "method":"_vendor/notice" ,"params":{"n":1e400}}`,
      `{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","options":[]}}`,
      `{"id":3,"jsonrpc":"2.0","method":"_vendor/ask","params":{"float":1.50}}`,
    ];
    const emitted = [...agentLines, "not even json: answered to the agent, never passed on"];
    const emit = JSON.stringify({ jsonrpc: "2.0", id: 99, method: "_test/emit", params: { lines: emitted } });
    proxy.child.stdin!.write(emit + "\n");
    const lines = await out.waitFor(agentLines.length + 1);
    assert.deepEqual(lines.slice(0, agentLines.length), agentLines, "agent→client lines arrive exactly as sent");
    assert.deepEqual(JSON.parse(lines[agentLines.length]!), { jsonrpc: "2.0", id: 99, result: { received: { lines: emitted } } });

    const clientLines = [
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"_meta":{"z":1}}}`,
      `{ "method" : "_test/hang", "jsonrpc":"2.0", "id":"abc", "params":{"big":12345678901234567890123, "float":1.50, "esc":"\\u00e9"} }`,
      `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s","unknownField":[1,{"x":null}]}}`,
      `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"abc"}}`,
      `{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}},"_meta":{"hop":1}}`,
      `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"nope","data":{"why":"test"}}}`,
      `{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":"s","modeId":"plan"}}`,
      `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/project","mcpServers":[]}}`,
      `{"jsonrpc":"2.0","id":6,"method":"session/set_model","params":{"sessionId":"s","modelId":"m-1"}}`,
      `{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"s","cwd":"/p","mcpServers":[]}}`,
    ];
    proxy.child.stdin!.write(clientLines.join("\n") + "\n");
    // What the agent received: the emit, the parse error its bad line got, then the client's lines as they were sent.
    await eventually(() => fs.readFileSync(log, "utf8").split("\n").length > clientLines.length + 2, 5_000, "agent log");
    const received = fs.readFileSync(log, "utf8").split("\n").slice(0, -1);
    assert.deepEqual(JSON.parse(received[1]!), { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    assert.deepEqual(received.slice(2), clientLines);
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("answers malformed input as JSON-RPC requires and keeps the stream going", async () => {
    const { proxy, out } = rawProxy();
    const bad = ["this is not json", "[1,2,3]", "42", '"a string"', '{"unterminated": '];
    for (const line of bad) proxy.child.stdin!.write(line + "\n");
    proxy.child.stdin!.write(`{"jsonrpc":"2.0","id":7,"method":"_test/after","params":{}}\n`);
    const replies = (await out.waitFor(bad.length + 1)).map(parseReply);
    assert.deepEqual(
      replies.slice(0, bad.length).map((reply) => [reply.id, reply.error?.code]),
      [
        [null, -32700],
        [null, -32600],
        [null, -32600],
        [null, -32600],
        [null, -32700],
      ],
    );
    assert.deepEqual(replies.at(-1), { jsonrpc: "2.0", id: 7, result: { received: {} } });
    proxy.child.stdin!.end();
    await proxy.exited;
  });

  it("discards a line over 32 MiB with an error, without buffering it, and goes on", async () => {
    const { proxy, out } = rawProxy();
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 33; i++) proxy.child.stdin!.write(chunk);
    proxy.child.stdin!.write("\n" + `{"jsonrpc":"2.0","id":8,"method":"_test/after"}` + "\n");
    const [error, after] = (await out.waitFor(2, 20_000)).map(parseReply);
    assert.equal(error?.id, null);
    assert.equal(error?.error?.code, -32600);
    assert.match(error?.error?.message ?? "", /discarded/);
    assert.equal(after?.id, 8);
    proxy.child.stdin!.end();
    await proxy.exited;
  });
});
