// The agent for the chat figures (P10–P12): the SDK's agent app, so it costs
// the same whoever drives it. A prompt's first word picks what it does:
//
//   markdown N MS   N chunks of Markdown into one message, one every MS ms;
//                   each update carries _meta {"bench/seq", "bench/sentAt"}
//                   (sentAt: performance.timeOrigin + performance.now(), ms)
//   anything else   one short chunk at once, then end_turn (first token); its
//                   _meta has "bench/receivedAt" (the prompt) and "bench/sentAt"

import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";

/** Lines of a typical answer: prose, a list, a fenced code block, a heading. */
const MARKDOWN = [
  "The **tracker** writes the state file when the selection settles, ",
  "so a prompt always carries what the user sees.\n\n",
  "- `debounce` waits 100 ms after the last change\n",
  "- the builder caps the selection at 64 KiB\n",
  "- the write is atomic ([write-file-atomic](https://www.npmjs.com/package/write-file-atomic))\n\n",
  "```ts\nconst writer = new StateFileWriter(options);\n",
  "writer.schedule(); // on every selection change\n```\n\n",
  "## Next step\n\n",
  "Measure it with *synthetic* events, then compare with the goal. ",
  "Nothing here blocks the editor.\n\n",
];

let sessions = 0;
const app = agent()
  .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: "bench-chat-agent", version: "1.0.0" } }))
  .onRequest("session/new", () => ({ sessionId: `bench-${process.pid}-${++sessions}` }))
  .onRequest("session/prompt", async ({ params, client }) => {
    const { sessionId } = params;
    const first = params.prompt.find((block) => block.type === "text");
    const words = (first?.type === "text" ? first.text : "").trim().split(/\s+/);
    if (words[0] === "markdown") {
      const count = Number(words[1]);
      const everyMs = Number(words[2]);
      const started = performance.now();
      for (let seq = 0; seq < count; seq++) {
        const due = started + seq * everyMs;
        if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
        await client.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: MARKDOWN[seq % MARKDOWN.length]! },
            _meta: { "bench/seq": seq, "bench/sentAt": performance.timeOrigin + performance.now() },
          },
        });
      }
      return { stopReason: "end_turn" as const };
    }
    const receivedAt = performance.timeOrigin + performance.now();
    await client.notify("session/update", {
      sessionId,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Hello." },
        _meta: { "bench/receivedAt": receivedAt, "bench/sentAt": performance.timeOrigin + performance.now() },
      },
    });
    return { stopReason: "end_turn" as const };
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
