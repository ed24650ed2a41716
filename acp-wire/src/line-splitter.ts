// Newline-delimited JSON framing: the pure part. Bytes in, lines out; no
// streams, no I/O (the stream wiring is ndjson-streams.ts).
//
// The ACP SDK's ndJsonStream parses and re-serialises every message and closes
// the whole stream when one line is too large. A proxy needs the opposite: it
// forwards the bytes it does not change exactly as they came, and it survives
// a bad line. So this module frames bytes into lines and leaves parsing to the
// caller. It is the project's only copy of the framing.

export const NEWLINE = 0x0a;

/** What every framing handler is told besides the lines. */
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
 * Whole lines in runs, for a relay that passes lines on as they came: the
 * lines a chunk completes, each with its newline, in one buffer (a view into
 * the chunk when none straddled chunks), and no work per line unless a line
 * could be over the limit.
 */
export interface LinesHandler extends FramingEvents {
  onLines(lines: Buffer): void;
}

/**
 * Splits a byte stream into lines. Lines longer than `maxLineBytes` are
 * dropped as they stream in (never buffered whole) and reported once.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  /** One of the two, by the handler's kind. */
  private readonly runs: LinesHandler | null;
  private readonly single: LineHandler | null;

  constructor(
    private readonly maxLineBytes: number,
    private readonly handler: LineHandler | LinesHandler,
  ) {
    this.runs = isLinesHandler(handler) ? handler : null;
    this.single = isLinesHandler(handler) ? null : handler;
  }

  push(chunk: Buffer): void {
    if (this.runs === null) this.pushLines(chunk);
    else this.pushRuns(this.runs, chunk);
  }

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
    if (this.runs !== null) this.runs.onLines(framed);
    else this.lineOut(framed.subarray(0, total), null);
  }

  /** Lines one by one: each line a chunk completes goes out as a view into it. */
  private pushLines(chunk: Buffer): void {
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

  /** Lines in runs: what a chunk completes goes out in as few pieces as the limit allows. */
  private pushRuns(runs: LinesHandler, chunk: Buffer): void {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) return this.keep(chunk);
    const start = this.pendingBytes > 0 ? chunk.indexOf(NEWLINE) + 1 : 0;
    if (start > 0) this.finishHeld(chunk.subarray(0, start));
    if (start <= last) this.completeRun(runs, chunk.subarray(start, last + 1));
    if (last + 1 < chunk.length) this.keep(chunk.subarray(last + 1));
  }

  /** Whole lines within one chunk, each with its newline: one piece, or the pieces between lines over the limit. */
  private completeRun(runs: LinesHandler, run: Buffer): void {
    // No line in a run this short can be over the limit.
    if (run.length <= this.maxLineBytes) return runs.onLines(run);
    let kept = 0;
    for (let start = 0; start < run.length;) {
      const newline = run.indexOf(NEWLINE, start);
      if (newline - start > this.maxLineBytes) {
        if (kept < start) runs.onLines(run.subarray(kept, start));
        kept = newline + 1;
        this.handler.onOversizedLine(newline - start);
      }
      start = newline + 1;
    }
    if (kept < run.length) runs.onLines(run.subarray(kept));
  }

  private lineOut(line: Buffer, framed: Buffer | null): void {
    if (!isBlank(line)) this.single?.onLine(line, framed);
  }

  private reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }
}

function isLinesHandler(handler: LineHandler | LinesHandler): handler is LinesHandler {
  return typeof (handler as Partial<LinesHandler>).onLines === "function";
}

const NEWLINE_BYTE = Buffer.from([NEWLINE]);

function isBlank(line: Buffer): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}
