// How the conductor learns that an agent started the editor's MCP server
// (docs/editor-tools.md, "An agent that never starts the tools"): each
// session's entry names a fresh file
// (SYMPOSIUM_EDITOR_TOOLS_STARTED, beside the state file); the server creates it, empty, once the
// agent has initialized MCP. No port, no window needed.

import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";

/** The env var naming the file the server creates when the agent has started it. */
export const TOOLS_STARTED_ENV = "SYMPOSIUM_EDITOR_TOOLS_STARTED";

/** Called by the server once the agent initialized MCP: creates the named file (empty, 0600). */
export function announceStarted(file: string | undefined, log: (message: string) => void): void {
  if (!file) return;
  try {
    fs.closeSync(fs.openSync(file, "a", 0o600));
  } catch (error) {
    log(`could not tell the conductor that the tools started (${file}): ${(error as Error).message}`);
  }
}

/**
 * The conductor's side: one file name per session offered the tools, beside the state file (the
 * window's private folder, which the agent can write even when it runs as another user, as the
 * interop tests run it). The files are empty; the conductor removes those it named when it stops.
 */
export class StartMarkers {
  private readonly named: string[] = [];

  constructor(private readonly dir: string) {}

  /** A fresh file name for one session's server; nothing created yet. */
  next(): string {
    const file = path.join(this.dir, `${MARKER_PREFIX}${randomBytes(8).toString("hex")}`);
    this.named.push(file);
    return file;
  }

  started(file: string): boolean {
    return fs.existsSync(file);
  }

  remove(): void {
    for (const file of this.named.splice(0)) fs.rmSync(file, { force: true });
  }
}

/** The start files' names begin so: nothing else in the state file's folder is named like it. */
const MARKER_PREFIX = "editor-tools-started-";
