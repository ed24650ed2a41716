// The shape of dist/symposium-conductor.mjs's in-process entry as the bench programs load it
// (the built file, by its URL: the bench measures what ships, not the sources).

import type { Readable, Writable } from "node:stream";

export interface InProcessModule {
  runInProcess(options: {
    args: string[];
    env: NodeJS.ProcessEnv;
    cwd: string;
    self: { runtime: string; script: string; env: Record<string, string> };
    input: Readable;
    output: Writable;
    stderr: Writable;
    signal: AbortSignal;
  }): { exited: Promise<number> };
}
