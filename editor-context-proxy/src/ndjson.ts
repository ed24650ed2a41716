// Newline-delimited JSON framing over byte streams.
//
// The ACP SDK's ndJsonStream parses and re-serialises every message and closes
// the whole stream when one line is too large. A proxy needs the opposite: it
// forwards the bytes it does not change exactly as they came, and it survives
// a bad line. So this module frames bytes into lines and leaves parsing to the
// caller. It is the project's only copy of the framing; the conductor uses it
// too.

import type { Readable, Writable } from "node:stream";

const NEWLINE = 0x0a;

export interface LineHandler {
  /**
   * A complete line, without its trailing newline. `framed` is the same line
   * with its newline, as a view into the input chunk, when the line did not
   * straddle chunks (null otherwise, or for a final line with no newline):
   * forwarding `framed` costs no copy.
   */
  onLine(line: Buffer, framed: Buffer | null): void;
  /** A line longer than the limit was discarded; `byteLength` is what was dropped. */
  onOversizedLine(byteLength: number): void;
}

/**
 * Splits a byte stream into lines. Lines longer than `maxLineBytes` are
 * dropped as they stream in (never buffered whole) and reported once.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly handler: LineHandler,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.finishLine(chunk.subarray(start, newline), chunk.subarray(start, newline + 1));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** End of input: a final line without a newline still counts. */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding) this.finishLine(Buffer.alloc(0), null);
  }

  private keep(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.discarding) return;
    if (this.pendingBytes > this.maxLineBytes) {
      this.discarding = true;
      this.pending = [];
      return;
    }
    // Copy: the caller may reuse the chunk's memory.
    this.pending.push(Buffer.from(part));
  }

  private finishLine(tail: Buffer, framed: Buffer | null): void {
    const total = this.pendingBytes + tail.length;
    if (this.discarding || total > this.maxLineBytes) {
      this.reset();
      this.handler.onOversizedLine(total);
      return;
    }
    const whole = this.pending.length === 0;
    const line = whole ? tail : Buffer.concat([...this.pending, tail], total);
    this.reset();
    if (!isBlank(line)) this.handler.onLine(line, whole ? framed : null);
  }

  private reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }
}

function isBlank(line: Buffer): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** Feeds a readable stream into a LineSplitter; resolves when the stream ends. */
export function readLines(input: Readable, maxLineBytes: number, handler: LineHandler): Promise<void> {
  const splitter = new LineSplitter(maxLineBytes, handler);
  return new Promise((resolve) => {
    input.on("data", (chunk: Buffer) => splitter.push(chunk));
    const finish = (): void => {
      splitter.end();
      resolve();
    };
    input.once("end", finish);
    input.once("error", finish);
  });
}

/**
 * Writes to one ndjson output from two kinds of source without ever splitting
 * a message: whole lines (`writeLine`) and a raw pass-through byte stream
 * (`writeRaw`) whose chunks may end mid-line. A whole line that arrives while
 * the raw stream is mid-line waits for the raw stream's next newline.
 *
 * Raw bytes are written as they come, without copying or scanning beyond one
 * `lastIndexOf`, so a pass-through direction costs almost nothing.
 */
export class LineWriter {
  private midLine = false;
  private waiting: Buffer[] = [];
  private closed = false;
  private corked = false;

  constructor(
    private readonly output: Writable,
    private readonly onClosed: () => void = () => {},
  ) {
    output.on("error", () => this.markClosed());
    output.on("close", () => this.markClosed());
  }

  /** Write one complete message line (a trailing newline is added). */
  writeLine(line: string | Buffer): boolean {
    if (this.midLine) {
      this.waiting.push(typeof line === "string" ? Buffer.from(line + "\n") : Buffer.concat([line, NEWLINE_BUFFER]));
      return true;
    }
    if (typeof line === "string") return this.write(line + "\n");
    this.write(line);
    return this.write(NEWLINE_BUFFER);
  }

  /**
   * Write a line that already ends with its newline, typically a view into an
   * input chunk. Consecutive views of the same chunk are merged into one
   * write, so forwarding a run of unchanged lines costs one buffer, not one
   * per line.
   */
  writeFramed(framed: Buffer): boolean {
    if (this.closed) return true;
    if (this.midLine) return this.writeLine(framed.subarray(0, framed.length - 1));
    const span = this.span;
    if (span !== null && span.buffer === framed.buffer && span.byteOffset + span.length === framed.byteOffset) {
      this.span = Buffer.from(span.buffer, span.byteOffset, span.length + framed.length);
      return this.output.writableLength + this.span.length <= this.output.writableHighWaterMark;
    }
    this.flushSpan();
    this.ensureCorked();
    this.span = framed;
    return this.output.writableLength + framed.length <= this.output.writableHighWaterMark;
  }

  private span: Buffer | null = null;

  private flushSpan(): void {
    if (this.span === null) return;
    const span = this.span;
    this.span = null;
    this.output.write(span);
  }

  /** Write pass-through bytes; returns false when the caller should wait for `drain`. */
  writeRaw(chunk: Buffer): boolean {
    if (chunk.length === 0) return true;
    if (this.waiting.length > 0) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline !== -1) {
        this.write(chunk.subarray(0, newline + 1));
        this.midLine = false;
        const queued = Buffer.concat(this.waiting);
        this.waiting = [];
        this.write(queued);
        return this.writeRaw(chunk.subarray(newline + 1));
      }
    }
    this.midLine = chunk[chunk.length - 1] !== NEWLINE;
    // One chunk, one write: nothing to gather, so no cork on this hot path.
    if (this.closed) return true;
    this.flushSpan();
    return this.output.write(chunk);
  }

  /** The raw stream ended: release anything still waiting for its newline. */
  endRaw(): void {
    if (!this.midLine) return;
    this.write(NEWLINE_BUFFER);
    this.midLine = false;
    const queued = this.waiting;
    this.waiting = [];
    for (const bytes of queued) this.write(bytes);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Writes made in one tick (all the lines of one input chunk, typically) are
   * corked and leave in one writev: one system call instead of one per line.
   */
  private write(bytes: Buffer | string): boolean {
    if (this.closed) return true;
    this.flushSpan();
    this.ensureCorked();
    return this.output.write(bytes);
  }

  private ensureCorked(): void {
    if (this.corked) return;
    this.corked = true;
    this.output.cork();
    process.nextTick(this.uncork);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    if (!this.closed) this.flushSpan();
    this.span = null;
    this.output.uncork();
  };

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
  }
}

const NEWLINE_BUFFER = Buffer.from("\n");

/**
 * Pipes `input` into `writer.writeRaw`, pausing `input` while `output` is
 * full, so a fast producer cannot make memory grow without bound. (A larger
 * window than the stream's own was measured: no faster, 20 MB more memory.)
 */
export function pipeRaw(input: Readable, writer: LineWriter, output: Writable): Promise<void> {
  return new Promise((resolve) => {
    input.on("data", (chunk: Buffer) => {
      if (!writer.writeRaw(chunk)) {
        input.pause();
        output.once("drain", () => input.resume());
      }
    });
    const finish = (): void => {
      writer.endRaw();
      resolve();
    };
    input.once("end", finish);
    input.once("error", finish);
  });
}
