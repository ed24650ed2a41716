// Newline-delimited JSON framing: the pure part. Bytes in, lines out; no
// streams, no I/O (the stream wiring is ndjson-streams.ts).
//
// The ACP SDK's ndJsonStream parses and re-serialises every message and closes
// the whole stream when one line is too large. A proxy needs the opposite: it
// forwards the bytes it does not change exactly as they came, and it survives
// a bad line. So this module frames bytes into lines and leaves parsing to the
// caller. It is the project's only copy of the framing.

export const NEWLINE = 0x0a;

/** What a framing handler is told besides the lines. */
interface FramingEvents {
  /** A line longer than the limit was discarded; `byteLength` is what was dropped. */
  onOversizedLine(byteLength: number): void;
  /**
   * The input ended in the middle of a line. Without this handler that last
   * line is passed on as a line; with it, the line is given here instead (a
   * relay never passes on half a message).
   */
  onUnterminatedLine?(byteLength: number): void;
}

/** Lines one at a time (blank lines skipped). */
export interface LineHandler extends FramingEvents {
  /**
   * A complete line, without its trailing newline. `framed` is the same line
   * with its newline, as a view into the input chunk, when the line did not
   * straddle chunks (null otherwise, or for a final line with no newline):
   * forwarding `framed` costs no copy.
   */
  onLine(line: Buffer, framed: Buffer | null): void;
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

  /** End of input: a final line without a newline still counts, unless onUnterminatedLine is there to hear of it. */
  end(): void {
    if (this.pendingBytes === 0) return;
    if (!this.discarding && this.handler.onUnterminatedLine) {
      const bytes = this.pendingBytes;
      this.reset();
      this.handler.onUnterminatedLine(bytes);
    } else {
      this.finishHeld(NEWLINE_BYTE);
    }
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

  /** The line begun in earlier chunks, ended by `end` (through its newline). */
  private finishHeld(end: Buffer): void {
    const total = this.pendingBytes + end.length - 1;
    const held = this.pending;
    const oversized = this.discarding || total > this.maxLineBytes;
    this.reset();
    if (oversized) return this.handler.onOversizedLine(total);
    const framed = Buffer.concat([...held, end], total + 1);
    this.lineOut(framed.subarray(0, total), framed);
  }

  /** Each line a chunk completes goes out as a view into it. */
  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (newline !== -1 && this.pendingBytes > 0) {
      this.finishHeld(chunk.subarray(0, newline + 1));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline !== -1) {
      if (newline - start > this.maxLineBytes) this.handler.onOversizedLine(newline - start);
      else this.lineOut(chunk.subarray(start, newline), chunk.subarray(start, newline + 1));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  private lineOut(line: Buffer, framed: Buffer | null): void {
    if (!isBlank(line)) this.handler.onLine(line, framed);
  }

  private reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }
}

const NEWLINE_BYTE = Buffer.from([NEWLINE]);

function isBlank(line: Buffer): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}
