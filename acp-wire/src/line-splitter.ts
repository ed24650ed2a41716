// Newline-delimited JSON framing: the pure part. Bytes in, lines out; no
// streams, no I/O (the stream wiring is ndjson-streams.ts).
//
// The ACP SDK's ndJsonStream parses and re-serialises every message and closes
// the whole stream when one line is too large. A proxy needs the opposite: it
// forwards the bytes it does not change exactly as they came, and it survives
// a bad line. So this module frames bytes into lines and leaves parsing to the
// caller. It is the project's only copy of the framing.

export const NEWLINE = 0x0a;

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
  /**
   * The input ended in the middle of a line. Without this handler that last
   * line is passed to onLine; with it, the line is given here instead (a
   * relay never passes on half a message).
   */
  onUnterminatedLine?(byteLength: number): void;
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
    if (this.pendingBytes > 0 && !this.discarding && this.handler.onUnterminatedLine) {
      const bytes = this.pendingBytes;
      this.reset();
      this.handler.onUnterminatedLine(bytes);
    } else if (this.pendingBytes > 0 || this.discarding) {
      this.finishLine(Buffer.alloc(0), null);
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
