// A child's stderr, line by line, and the last lines of it: what an error
// report shows when an agent fails (the conductor's and the chat's).

import * as readline from "node:readline";
import type { Readable } from "node:stream";

/** The last lines a process wrote to stderr, bounded in count and length; blank lines are not kept. */
export class StderrTail {
  private readonly kept: string[] = [];
  /** Lines kept so far, including those since dropped: a mark for since(). */
  total = 0;

  constructor(
    private readonly maxLines = 20,
    private readonly maxLineChars = 500,
  ) {}

  push(line: string): void {
    if (line.trim() === "") return;
    this.total++;
    this.kept.push(line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line);
    if (this.kept.length > this.maxLines) this.kept.shift();
  }

  lines(): string[] {
    return [...this.kept];
  }

  /** The kept lines pushed after `mark` (a value of `total`). */
  since(mark: number): string[] {
    return this.kept.slice(Math.max(0, this.kept.length - (this.total - mark)));
  }
}

/**
 * Reads `stream` as UTF-8 lines (a line may arrive in several chunks; CRLF or
 * LF), keeps each in `tail` and hands it to `onLine`; resolves when it ends.
 */
export function followStderr(stream: Readable, tail: StderrTail, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    readline
      .createInterface({ input: stream, crlfDelay: Infinity })
      .on("line", (line) => {
        tail.push(line);
        onLine(line);
      })
      .on("close", () => resolve());
  });
}
