// Reading a workspace file from the disk for read_file (the window's, and the
// state-file answer's), and the first lines of one for the locations
// find_references and find_definitions list: a regular file only, bounded, its
// last link never followed (the path was resolved to its real path and checked
// just before).

import * as fs from "node:fs";
import { LIMITS } from "./protocol.js";

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows; there the real path was checked just before.
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** A regular file's text, at most LIMITS.maxFileBytes, its last link never followed. */
export function readDisk(file: string): string {
  const fd = fs.openSync(file, READ_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    if (stat.size > LIMITS.maxFileBytes) throw new Error(`${file} is ${stat.size} bytes, over the ${LIMITS.maxFileBytes}-byte limit`);
    const buffer = Buffer.alloc(stat.size);
    let total = 0;
    while (total < buffer.length) {
      const read = fs.readSync(fd, buffer, total, buffer.length - total, total);
      if (read === 0) break;
      total += read;
    }
    return buffer.subarray(0, total).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes read from the disk at a time for the first lines of a file. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The first `count` lines of a regular file, read only as far as they go and never past `maxBytes` (a line cut
 * there is left out), its last link never followed; `bytesRead` is what was read.
 */
export function readLeadingLines(file: string, count: number, maxBytes: number): { lines: string[]; bytesRead: number } {
  const fd = fs.openSync(file, READ_FLAGS);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file`);
    const chunks: Buffer[] = [];
    let bytesRead = 0;
    let newlines = 0;
    while (newlines < count && bytesRead < maxBytes) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes - bytesRead));
      const read = fs.readSync(fd, chunk, 0, chunk.length, bytesRead);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      bytesRead += read;
      for (let at = chunk.indexOf(0x0a); at >= 0 && at < read; at = chunk.indexOf(0x0a, at + 1)) newlines++;
    }
    const lines = Buffer.concat(chunks).toString("utf8").split(/\r?\n/);
    // A last line cut by maxBytes (not by a newline nor the file's end) is not a whole line.
    if (newlines < count && bytesRead >= maxBytes) lines.pop();
    return { lines: lines.slice(0, count), bytesRead };
  } finally {
    fs.closeSync(fd);
  }
}
