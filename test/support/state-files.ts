// Writing state files the way the tracker does (docs/state-file.md), for tests.

import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./processes.js";

export const SEED_STATE = {
  activeFile: "/project/src/main.rs",
  languageId: "rust",
  selection: { text: "fn main() { ... }", startLine: 10, endLine: 12 },
  workspaceFolders: ["/project"],
};

/** Writes `state` as JSON to a fresh private directory; returns the file's path. */
export function writeStateFile(state: unknown, name = "editor-state.json"): string {
  const dir = tempDir("symposium-state-");
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof state === "string" ? state : JSON.stringify(state), { mode: 0o600 });
  return file;
}

/** Sets the file's modification time `seconds` into the past. */
export function ageFile(file: string, seconds: number): void {
  const when = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(file, when, when);
}
