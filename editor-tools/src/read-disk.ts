// Reading a workspace file from the disk for read_file (the window's, and the
// state-file answer's), and the first lines of one for the locations
// find_references and find_definitions list: a regular file only, bounded,
// opened step by step inside the workspace folder that holds it (the built-in
// chat's open, acp-wire/src/confined-path.ts), so a link swapped after the
// path was checked cannot lead the read outside.

import * as fs from "node:fs";
import { ConfinedFolder, ConfinementError, NotAFileError } from "../../acp-wire/src/confined-path.js";
import { LIMITS } from "./protocol.js";

/** A descriptor of the regular file `file` (absolute), opened inside the first of `folders` that holds it. */
function openInside(file: string, folders: readonly string[]): number {
  const folder = folders.map(confinedOrUndefined).find((each) => each?.holds(file));
  if (folder === undefined) throw new Error(`${file} is outside the workspace folders`);
  try {
    return folder.openToRead(file);
  } catch (error) {
    if (error instanceof NotAFileError) throw new Error(`${file} is not a regular file`, { cause: error });
    if (error instanceof ConfinementError) throw new Error(`access to ${file} refused: ${error.message}`, { cause: error });
    throw error;
  }
}

function confinedOrUndefined(folder: string): ConfinedFolder | undefined {
  try {
    return ConfinedFolder.at(folder);
  } catch {
    return undefined; // a folder removed since the window opened holds nothing
  }
}

/** A regular file's text, at most LIMITS.maxFileBytes, read only from inside `folders`. */
export function readDisk(file: string, folders: readonly string[]): string {
  const fd = openInside(file, folders);
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
 * there is left out), read only from inside `folders`; `bytesRead` is what was read.
 */
export function readLeadingLines(file: string, folders: readonly string[], count: number, maxBytes: number): { lines: string[]; bytesRead: number } {
  const fd = openInside(file, folders);
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
