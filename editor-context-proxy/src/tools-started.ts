// How the conductor learns that an agent started the editor's MCP server
// (docs/editor-tools.md, "An agent that never starts the tools"): each
// session's entry names a file in the conductor's private folder
// (SYMPOSIUM_EDITOR_TOOLS_STARTED); the server creates it, empty, once the
// agent has initialized MCP. No port, no window needed.

import * as fs from "node:fs";
import * as os from "node:os";
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

/** The conductor's side: a private folder (0700), made on first use, with one file name per session offered the tools. */
export class StartMarkers {
  private dir: string | null = null;

  /** A fresh file name for one session's server; nothing created yet. */
  next(): string {
    this.dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "symposium-tools-"));
    return path.join(this.dir, randomBytes(8).toString("hex"));
  }

  started(file: string): boolean {
    return fs.existsSync(file);
  }

  remove(): void {
    if (this.dir !== null) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
