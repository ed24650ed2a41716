// The agent side of the benchmarks: a minimal ACP agent speaking raw ndjson,
// so it costs the same whether a proxy is in front of it or not. It counts;
// it never prints anything but protocol.
//
//   initialize, session/new, session/prompt   answered at once (P3 round trips)
//   _bench/prompts {}                         answers {count, withContext}: the prompts so far, and how
//                                              many began with an <editor-context> block (P3 checks it)
//   _bench/flood {count, bytes}               `count` session/update notifications of
//                                              about `bytes` each, then the answer (P1, P4)
//   _bench/note (notification)                counted (P2)
//   _bench/notes {}                           answers {count, elapsedNs} of the notes so far

import * as readline from "node:readline";

let notes = 0;
let prompts = 0;
let promptsWithContext = 0;
let firstNoteAt = 0n;
let lastNoteAt = 0n;

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.includes('"_bench/note"')) {
    lastNoteAt = process.hrtime.bigint();
    if (notes++ === 0) firstNoteAt = lastNoteAt;
    return;
  }
  const message = JSON.parse(line) as {
    id?: number | string;
    method?: string;
    params?: { count?: number; bytes?: number; prompt?: Array<{ text?: unknown }> };
  };
  if (message.id === undefined || message.method === undefined) return;
  switch (message.method) {
    case "initialize":
      return answer(message.id, { protocolVersion: 1, agentCapabilities: {} });
    case "session/new":
      return answer(message.id, { sessionId: "bench" });
    case "session/prompt":
      prompts++;
      if (String(message.params?.prompt?.[0]?.text).startsWith("<editor-context>")) promptsWithContext++;
      return answer(message.id, { stopReason: "end_turn" });
    case "_bench/prompts":
      return answer(message.id, { count: prompts, withContext: promptsWithContext });
    case "_bench/notes":
      return answer(message.id, { count: notes, elapsedNs: Number(lastNoteAt - firstNoteAt) });
    case "_bench/flood":
      return flood(message.id, message.params?.count ?? 0, message.params?.bytes ?? 1024);
    default:
      return answer(message.id, {});
  }
});
lines.on("close", () => process.exit(0));

function answer(id: number | string, result: unknown): void {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
}

function flood(id: number | string, count: number, bytes: number): void {
  const skeleton = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "bench", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } } },
  });
  const line = skeleton.replace('"text":""', `"text":"${"x".repeat(Math.max(0, bytes - skeleton.length - 1))}"`) + "\n";
  const batch = line.repeat(64);
  let sent = 0;
  const pump = (): void => {
    while (sent < count) {
      const n = Math.min(64, count - sent);
      sent += n;
      if (!process.stdout.write(n === 64 ? batch : line.repeat(n))) {
        process.stdout.once("drain", pump);
        return;
      }
    }
    answer(id, { sent });
  };
  pump();
}
