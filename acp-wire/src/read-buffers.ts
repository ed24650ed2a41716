// Node gives every read from a pipe a fresh buffer (up to 64 KiB). V8 frees
// spent ones only when a garbage collection runs, and a relay that allocates
// little else runs one rarely: under a flood about 32 MB of read buffers wait
// to be freed, most of a proxy's resident memory (docs/benchmarks-notes.md,
// P6). A young-generation collection after every few MiB read frees them while
// they are still young; it costs a fraction of a millisecond.
//
// Only our own CLI processes opt in (`reclaimReadBuffers`): it sets a V8 flag
// for the whole process, which a library must not do to its host.

import * as v8 from "node:v8";
import * as vm from "node:vm";

/** Read between two collections: at most this much garbage waits (~0.1 ms of collection per 4 MiB). */
export const RECLAIM_EVERY_BYTES = 4 * 1024 * 1024;

type Collect = (options: { type: "minor" }) => void;

let collect: Collect | null = null;
let unreclaimed = 0;

/** Called once by a CLI at start: from then on, spent read buffers are collected as they add up. */
export function reclaimReadBuffers(): void {
  try {
    v8.setFlagsFromString("--expose-gc");
    collect = vm.runInNewContext("gc") as Collect;
  } catch {
    collect = null; // without the hook memory is only higher, not wrong
  }
}

/** Notes `bytes` read from a pipe; collects the spent read buffers when enough have been. */
export function noteBytesRead(bytes: number): void {
  if (collect === null) return;
  unreclaimed += bytes;
  if (unreclaimed < RECLAIM_EVERY_BYTES) return;
  unreclaimed = 0;
  collect({ type: "minor" });
}
