// The chat server's bounded transcript (webchat/src/transcript.ts): what a
// page that attaches again is replayed. Streamed text merged per message,
// the oldest output trimmed at the limit with a notice, multi-byte text never
// cut inside a character, replays in frames of bounded size.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import type { TranscriptEvent } from "../../../webchat/page/protocol.js";
import { Transcript } from "../../../webchat/src/transcript.js";

const chunk = (text: string, kind = "agent_message_chunk"): TranscriptEvent => ({
  kind: "update",
  update: { sessionUpdate: kind, content: { type: "text", text } },
});

function replayed(transcript: Transcript, frameBytes = 1 << 20): TranscriptEvent[] {
  return [...transcript.replay(frameBytes)].flat().map((json) => JSON.parse(json) as TranscriptEvent);
}

function textOf(events: TranscriptEvent[], kind = "agent_message_chunk"): string {
  return events
    .map((event) => (event.kind === "update" && event.update.sessionUpdate === kind ? (event.update.content as { text: string }).text : ""))
    .join("");
}

describe("chat transcript", () => {
  it("merges a message's chunks and keeps events in order", () => {
    const transcript = new Transcript(1 << 20);
    transcript.add({ kind: "user", text: "hi", contextSkipped: false });
    for (const part of ["Hel", "lo", " there"]) transcript.add(chunk(part));
    transcript.add(chunk("hmm", "agent_thought_chunk"));
    transcript.add(chunk("!"));
    transcript.add({ kind: "turnEnd", stopReason: "end_turn" });
    const events = replayed(transcript);
    assert.deepEqual(
      events.map((event) => (event.kind === "update" ? `${event.update.sessionUpdate}:${(event.update.content as { text: string }).text}` : event.kind)),
      ["user", "agent_message_chunk:Hello there", "agent_thought_chunk:hmm", "agent_message_chunk:!", "turnEnd"],
    );
  });

  it("keeps the newest output within the limit, whole characters only, and says what it trimmed", () => {
    const limit = 4096;
    const transcript = new Transcript(limit);
    transcript.add({ kind: "user", text: "go", contextSkipped: false });
    let all = "";
    for (let index = 0; index < 500; index++) {
      const part = `${index}:é😀漢 `;
      all += part;
      transcript.add(chunk(part));
    }
    assert.ok(transcript.size <= limit, `holds ${transcript.size} bytes`);
    const events = replayed(transcript);
    assert.equal(events[0]!.kind, "notice");
    assert.match((events[0] as { message: string }).message, /^Earlier output trimmed/);
    assert.ok(!events.some((event) => event.kind === "user"), "the oldest event went first");
    const text = textOf(events);
    assert.ok(all.endsWith(text), "what is kept is the end of the text");
    assert.ok(!text.includes("\uFFFD"), "no character was cut");
    assert.ok(Buffer.byteLength(text) > limit / 2, `kept ${Buffer.byteLength(text)} bytes`);
  });

  it("drops an event larger than the limit, and keeps only the end of a text larger than it", () => {
    const transcript = new Transcript(2048);
    transcript.add({ kind: "error", message: "x".repeat(10_000) });
    transcript.add(chunk(`${"a".repeat(10_000)}THE END`));
    const events = replayed(transcript);
    assert.equal(events[0]!.kind, "notice");
    assert.ok(!events.some((event) => event.kind === "error"));
    const text = textOf(events);
    assert.ok(text.endsWith("THE END") && Buffer.byteLength(text) <= 2048);
  });

  it("replays in frames of bounded size, and a replay does not take in what is added after it began", () => {
    const transcript = new Transcript(1 << 20);
    for (let index = 0; index < 100; index++) transcript.add(chunk("y".repeat(10_000)));
    const frames = transcript.replay(64 * 1024);
    const first = frames.next().value as string[];
    transcript.add(chunk("LATER"));
    const rest = [...frames];
    const all = [first, ...rest];
    assert.ok(all.length >= 15, `${all.length} frames`);
    for (const frame of all) assert.ok(frame.join(",").length < 70 * 1024, `a frame of ${frame.join(",").length} bytes`);
    const text = textOf(all.flat().map((json) => JSON.parse(json) as TranscriptEvent));
    assert.equal(text.length, 1_000_000, "the text as it was when the replay began");
  });

  it("survives the ring wrapping many times over", () => {
    const transcript = new Transcript(1000);
    let last = "";
    for (let index = 0; index < 5_000; index++) {
      last = `<${index}>`;
      transcript.add(index % 7 === 0 ? { kind: "notice", message: `n${index}` } : chunk(last, index % 3 === 0 ? "agent_thought_chunk" : "agent_message_chunk"));
    }
    const events = replayed(transcript, 300);
    assert.ok(transcript.size <= 1000);
    const lastEvent = events[events.length - 1]!;
    assert.ok(lastEvent.kind === "update" && (lastEvent.update.content as { text: string }).text.endsWith(last));
  });
});
