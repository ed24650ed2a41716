// The host's log: one file per workspace that the host and the frontend both
// write to (never a pipe: after a window reload nobody would read it). The
// extension opens it and passes the descriptor; the host finds it by path.

import * as fs from "node:fs";

export class HostLog {
  readonly fd: number;

  constructor(private readonly path: string) {
    this.fd = fs.openSync(path, "a", 0o600);
  }

  line(message: string): void {
    fs.writeSync(this.fd, `[panel-host ${new Date().toISOString()}] ${message}\n`);
  }

  /** The file's last lines (its last 16 KiB at most), for an error a user can act on. */
  lastLines(count: number): string[] {
    return readLastLines(this.path, count);
  }
}

export function readLastLines(path: string, count: number): string[] {
  let text: string;
  try {
    const size = fs.statSync(path).size;
    const length = Math.min(size, 16_384);
    const buffer = Buffer.alloc(length);
    const fd = fs.openSync(path, "r");
    try {
      fs.readSync(fd, buffer, 0, length, size - length);
    } finally {
      fs.closeSync(fd);
    }
    text = buffer.toString("utf8");
  } catch {
    return [];
  }
  return text
    .split(/\r?\n/)
    .filter((line) => line.length > 0)
    .slice(-count);
}
