// Newline-delimited JSON over Node streams: reading lines from a Readable
// (through the pure LineSplitter) and writing whole lines and pass-through
// bytes to one Writable without ever splitting a message.

import type { Readable, Writable } from "node:stream";
import { LineSplitter, NEWLINE, type LineHandler } from "./line-splitter.js";

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
