// Newline-delimited JSON over Node streams: reading lines from a Readable
// (through the pure LineSplitter) and writing whole lines and pass-through
// bytes to one Writable without ever splitting a message.

import type { Readable, Writable } from "node:stream";
import { LineSplitter, type LineHandler } from "./line-splitter.js";

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
 * Writes whole ndjson lines to one output: lines built here (`writeLine`) and
 * lines passed on as the bytes they came in (`writeFramed`, merged into one
 * write per input chunk). Every write returns false when the output is full:
 * the caller stops reading its source until `onceDrained`.
 */
export class LineWriter {
  private closed = false;
  private corked = false;

  constructor(
    private readonly output: Writable,
    private readonly onClosed: () => void = () => {},
  ) {
    output.on("error", () => this.markClosed());
    output.on("close", () => this.markClosed());
  }

  /**
   * Write one complete message line. A newline is added, unless the line
   * already ends with one (the framed lines splice.ts builds): a line of
   * JSON never holds a raw newline, so a final one can only be its frame.
   */
  writeLine(line: string | Buffer): boolean {
    if (typeof line === "string") return this.write(line + "\n");
    if (line[line.length - 1] === NEWLINE_BUFFER[0]) return this.write(line);
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
    const span = this.span;
    if (span !== null && span.buffer === framed.buffer && span.byteOffset + this.spanLength === framed.byteOffset) {
      this.spanLength += framed.length;
    } else {
      this.flushSpan();
      this.ensureCorked();
      this.span = framed;
      this.spanLength = framed.length;
    }
    return this.output.writableLength + this.spanLength <= this.output.writableHighWaterMark;
  }

  /** The run of framed lines waiting to be written: where it starts (a view of its chunk) and its length. */
  private span: Buffer | null = null;
  private spanLength = 0;

  private flushSpan(): void {
    if (this.span === null) return;
    const span = this.span;
    this.span = null;
    this.output.write(span.length === this.spanLength ? span : Buffer.from(span.buffer, span.byteOffset, this.spanLength));
  }

  /** Calls `resume` once the output has room again (at once if it is closed). */
  onceDrained(resume: () => void): void {
    // After this tick's corked writes have gone to the stream (uncork runs first).
    process.nextTick(() => {
      if (this.closed || !this.output.writableNeedDrain) resume();
      else this.output.once("drain", resume);
    });
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
