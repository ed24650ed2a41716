// A launcher for this conductor at a stable path beside the config file:
// `~/.symposium/bin/symposium-conductor` (`symposium-conductor.cmd` on
// Windows), rewritten whenever the conductor starts `run` or the setup
// agent. The config names the built-in agents through it, so a saved command
// survives an extension update (a new versioned folder), a moved clone, and
// runs from a terminal: for VS Code's executable the launcher itself sets
// ELECTRON_RUN_AS_NODE, for that one program only (docs/conductor.md).

import * as fs from "node:fs";
import * as path from "node:path";
import { runAsNodeEnv } from "../../acp-wire/src/run-as-node.js";

export const LAUNCHER_NAME = "symposium-conductor";

/** Where the launcher for the config at `configPath` lives. */
export function launcherPath(configPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(path.dirname(configPath), "bin", platform === "win32" ? `${LAUNCHER_NAME}.cmd` : LAUNCHER_NAME);
}

export interface LauncherTarget {
  /** The program that runs the script: node, or VS Code's executable. */
  runtime: string;
  script: string;
  /** Set for the runtime alone (ELECTRON_RUN_AS_NODE=1 under Electron). */
  env: Record<string, string>;
}

const GONE =
  "the conductor this launcher starts is gone (an extension update, or a moved clone); start the conductor once from where it is now (open the Symposium panel, or run symposium-conductor run) and this launcher points there again";

/** The launcher's text: a POSIX sh script, or a Windows batch file. */
export function launcherText(target: LauncherTarget, platform: NodeJS.Platform = process.platform): string {
  const names = Object.entries(target.env);
  for (const [name, value] of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || !/^[A-Za-z0-9_.-]*$/.test(value)) throw new Error(`cannot set ${name}=${value} in the launcher`);
  }
  if (platform === "win32") {
    // In a batch file `%` must be doubled; paths are in double quotes, which Windows paths never contain.
    const quoted = (file: string): string => `"${file.replace(/%/g, "%%")}"`;
    return [
      "@echo off",
      `rem Written by ${LAUNCHER_NAME} each time it starts: runs the conductor it was last started from.`,
      "setlocal",
      // No ( ) block: the message's own parentheses would end it early.
      `if exist ${quoted(target.script)} goto run`,
      `echo ${LAUNCHER_NAME}: ${GONE} 1>&2`,
      "exit /b 127",
      ":run",
      ...names.map(([name, value]) => `set "${name}=${value}"`),
      `${quoted(target.runtime)} ${quoted(target.script)} %*`,
      "",
    ].join("\r\n");
  }
  const quoted = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
  return [
    "#!/bin/sh",
    `# Written by ${LAUNCHER_NAME} each time it starts: runs the conductor it was last started from.`,
    `if [ ! -f ${quoted(target.script)} ]; then`,
    `  echo ${quoted(`${LAUNCHER_NAME}: ${GONE}`)} >&2`,
    "  exit 127",
    "fi",
    `${names.map(([name, value]) => `${name}=${value} `).join("")}exec ${quoted(target.runtime)} ${quoted(target.script)} "$@"`,
    "",
  ].join("\n");
}

/** This very process as a launcher target. */
export function currentTarget(): LauncherTarget {
  return { runtime: process.execPath, script: path.resolve(process.argv[1]!), env: runAsNodeEnv() };
}

/**
 * Writes the launcher for `configPath` when it is missing or points elsewhere;
 * returns its path, or null (logged) when it cannot be written.
 */
export function refreshLauncher(configPath: string, log: (message: string) => void, target = currentTarget()): string | null {
  const file = launcherPath(configPath);
  const text = launcherText(target);
  try {
    if (readOrNull(file) !== text) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Whole or not at all: a conductor starting meanwhile runs the old launcher or the new one.
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, text, { mode: 0o755 });
      try {
        fs.chmodSync(temporary, 0o755); // whatever the umask
        fs.renameSync(temporary, file);
      } catch (error) {
        fs.rmSync(temporary, { force: true });
        throw error;
      }
    }
    return file;
  } catch (error) {
    log(`cannot write the launcher ${file}: ${(error as Error).message}; the built-in agents are started by their full path instead`);
    return null;
  }
}

/**
 * The command that starts this conductor with `args`: the launcher, or (when
 * it cannot be written) this process's own runtime and script, which then
 * lack ELECTRON_RUN_AS_NODE under VS Code.
 */
export function selfCommandVia(configPath: string, args: readonly string[], log: (message: string) => void, target = currentTarget()): string[] {
  const launcher = refreshLauncher(configPath, log, target);
  return launcher === null ? [target.runtime, target.script, ...args] : [launcher, ...args];
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
