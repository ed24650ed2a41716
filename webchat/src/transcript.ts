// A conversation's transcript, bounded: what a page that attaches gets
// replayed. Everything kept lives as UTF-8 in one ring buffer of at most
// `limitBytes` (streamed text as the text itself, each chunk appended to its
// message; any other event as its JSON), so an agent's flood costs the same
// few megabytes whatever its size, and nothing it sends lingers on the
// JavaScript heap. Once the ring is full the oldest output goes, and the
// replay starts with a visible notice saying how much (docs/webchat.md: memory).

import type { TranscriptEvent } from "../page/protocol.js";

/** What a conversation keeps for replay: UTF-8 bytes of text (JSON for events that are not streamed text). */
export const TRANSCRIPT_LIMIT_BYTES = 4 * 1024 * 1024;
/** A trim goes down to this share of the limit, so that it happens once per quarter of the limit, not per chunk. */
const TRIM_TO = 0.75;
/** Bytes counted per kept event besides its own (its bookkeeping): a flood of tiny events is bounded too. */
const ENTRY_OVERHEAD_BYTES = 64;
const FIRST_RING_BYTES = 64 * 1024;

const STREAMED_TEXT = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

interface Entry {
  /** Streamed text: the first chunk's event, its text left empty; undefined: the bytes are an event's JSON. */
  text?: TranscriptEvent & { kind: "update" };
  /** Absolute positions in the ring (they only grow). */
  start: number;
  end: number;
}

export class Transcript {
  private readonly ring: ByteRing;
  private entries: Entry[] = [];
  /** Entries before this index are trimmed (compacted away now and then). */
  private first = 0;
  private trimmedBytes = 0;

  constructor(private readonly limitBytes = TRANSCRIPT_LIMIT_BYTES) {
    this.ring = new ByteRing(limitBytes);
  }

  /** Bytes held now, bookkeeping included (at most the limit). */
  get size(): number {
    return this.ring.length + (this.entries.length - this.first) * ENTRY_OVERHEAD_BYTES;
  }

  /** Keeps `event`; `json` is its JSON text when the caller has it already. */
  add(event: TranscriptEvent, json?: string): void {
    const text = streamedText(event);
    const bytes = Buffer.from(text ?? json ?? JSON.stringify(event), "utf8");
    const last = this.entries.length > this.first ? this.entries[this.entries.length - 1]! : undefined;
    const appending = text !== undefined && last?.text?.update.sessionUpdate === (event as { update: { sessionUpdate: string } }).update.sessionUpdate;
    const kept = this.makeRoom(bytes, text !== undefined, appending ? 0 : ENTRY_OVERHEAD_BYTES);
    if (kept.length === 0) return;
    const start = this.ring.append(kept);
    // The entry may have been trimmed away to make room: then this chunk starts a new one.
    if (appending && this.entries.length > this.first && this.entries[this.entries.length - 1] === last) last.end = this.ring.end;
    else this.entries.push({ text: text === undefined ? undefined : withText(event, ""), start, end: this.ring.end });
  }

  /**
   * The replay as frames' worth of events, each event as its JSON text,
   * oldest first, each frame about `frameBytes` at most (streamed text split
   * into several chunks where it must); a notice first when output was
   * trimmed. Read lazily, a frame at a time.
   */
  *replay(frameBytes: number): Generator<string[]> {
    let frame: string[] = this.trimmedBytes > 0 ? [JSON.stringify(this.trimNotice())] : [];
    let frameSize = frame[0]?.length ?? 0;
    // Positions as they are now: the message still streaming grows, and what it adds reaches the page live.
    const entries = this.entries.slice(this.first).map((entry) => ({ ...entry }));
    for (const entry of entries) {
      for (const json of this.eventsOf(entry, frameBytes)) {
        if (frameSize + json.length > frameBytes && frame.length > 0) {
          yield frame;
          frame = [];
          frameSize = 0;
        }
        frame.push(json);
        frameSize += json.length;
      }
    }
    if (frame.length > 0) yield frame;
  }

  /** An entry as event JSON texts of about `most` bytes each; what was trimmed meanwhile is skipped. */
  private *eventsOf(entry: Entry, most: number): Generator<string> {
    if (!entry.text) {
      if (entry.start >= this.ring.start) yield this.ring.read(entry.start, entry.end).toString("utf8");
      return;
    }
    let position = Math.max(entry.start, this.ring.start);
    while (position < entry.end) {
      position = Math.max(this.ring.charStart(position), this.ring.start);
      if (position >= entry.end) return;
      const to = entry.end - position <= most ? entry.end : this.ring.charStart(position + most);
      yield JSON.stringify(withText(entry.text, this.ring.read(position, to).toString("utf8")));
      position = to;
    }
  }

  private trimNotice(): TranscriptEvent {
    const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
    return {
      kind: "notice",
      message: `Earlier output trimmed: the chat server keeps the last ${mb(this.limitBytes)} of a conversation, and ${mb(this.trimmedBytes)} before that are not shown here.`,
    };
  }

  /**
   * Frees room for `bytes` (plus `overhead`) by dropping the oldest output
   * down to TRIM_TO of the limit; returns what of `bytes` can be kept (the
   * end of a text larger than the room; nothing of a larger event).
   */
  private makeRoom(bytes: Buffer, isText: boolean, overhead: number): Buffer {
    const room = Math.floor(this.limitBytes * TRIM_TO) - overhead;
    let kept = bytes;
    if (bytes.length > room) {
      kept = isText ? bytes.subarray(charStartIn(bytes, bytes.length - room)) : Buffer.alloc(0);
      this.trimmedBytes += bytes.length - kept.length;
    }
    if (this.size + kept.length + overhead > this.limitBytes) this.trimTo(room - kept.length);
    return kept;
  }

  /** Drops the oldest output until at most `target` bytes are held; a text entry may lose only its start. */
  private trimTo(target: number): void {
    while (this.size > target && this.first < this.entries.length) {
      const entry = this.entries[this.first]!;
      const excess = this.size - target;
      if (!entry.text || entry.end - entry.start <= excess) {
        this.dropBytes(entry.end);
        this.first++;
        continue;
      }
      this.dropBytes(this.ring.charStart(entry.start + excess));
      entry.start = this.ring.start;
    }
    if (this.first === this.entries.length) this.dropBytes(this.ring.end);
    if (this.first > 1024 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }

  private dropBytes(upTo: number): void {
    this.trimmedBytes += Math.max(0, upTo - this.ring.start);
    this.ring.dropTo(upTo);
  }
}

/**
 * Bytes in a ring addressed by absolute positions: [start, end) is held,
 * position p lives at p % capacity. The buffer grows by doubling up to `limit`.
 */
export class ByteRing {
  private buffer = Buffer.alloc(0);
  start = 0;
  end = 0;

  constructor(private readonly limit: number) {}

  get length(): number {
    return this.end - this.start;
  }

  /** Appends (the caller has made room); returns the position of the first byte. */
  append(bytes: Buffer): number {
    const needed = this.length + bytes.length;
    if (needed > this.buffer.length) this.grow(Math.min(this.limit, Math.max(needed, this.buffer.length * 2, FIRST_RING_BYTES)));
    const at = this.end;
    this.writeAt(at, bytes);
    this.end += bytes.length;
    return at;
  }

  /** A copy of [from, to). */
  read(from: number, to: number): Buffer {
    if (to <= from) return Buffer.alloc(0);
    const size = this.buffer.length;
    const begin = from % size;
    if (begin + (to - from) <= size) return Buffer.from(this.buffer.subarray(begin, begin + (to - from)));
    return Buffer.concat([this.buffer.subarray(begin), this.buffer.subarray(0, to - from - (size - begin))]);
  }

  /** The first position at or after `position` (and before `end`) where a UTF-8 character starts. */
  charStart(position: number): number {
    let at = position;
    while (at < this.end && (this.buffer[at % this.buffer.length]! & 0xc0) === 0x80) at++;
    return at;
  }

  dropTo(position: number): void {
    this.start = Math.min(Math.max(position, this.start), this.end);
  }

  private grow(capacity: number): void {
    const held = this.length > 0 ? this.read(this.start, this.end) : Buffer.alloc(0);
    this.buffer = Buffer.alloc(capacity);
    this.writeAt(this.start, held);
  }

  private writeAt(position: number, bytes: Buffer): void {
    const size = this.buffer.length;
    const begin = position % size;
    const first = Math.min(bytes.length, size - begin);
    bytes.copy(this.buffer, begin, 0, first);
    if (first < bytes.length) bytes.copy(this.buffer, 0, first);
  }
}

/** The first index at or after `index` where a UTF-8 character starts. */
export function charStartIn(bytes: Buffer, index: number): number {
  let at = index;
  while (at < bytes.length && (bytes[at]! & 0xc0) === 0x80) at++;
  return at;
}

/** The text of a streamed text update, or undefined for any other event. */
function streamedText(event: TranscriptEvent): string | undefined {
  if (event.kind !== "update" || !STREAMED_TEXT.has(event.update.sessionUpdate)) return undefined;
  const content = event.update.content as { type?: unknown; text?: unknown } | undefined;
  return content?.type === "text" && typeof content.text === "string" ? content.text : undefined;
}

function withText(event: TranscriptEvent, text: string): TranscriptEvent & { kind: "update" } {
  const update = (event as TranscriptEvent & { kind: "update" }).update;
  return { kind: "update", update: { ...update, content: { ...(update.content as object), text } } };
}
