// Reading a workspace file from the disk for read_file (the window's, and the
// state-file answer's): a regular file only, bounded, its last link never
// followed (the path was resolved to its real path and checked just before).

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
