// Which frontend the panel runs: Toad when `symposium.toadCommand` resolves to
// a program; otherwise, or with the value `builtin`, the built-in chat
// (symposium-webchat, carried in the .vsix), which takes the same command
// line. Both go down the same path from here on.

import * as fs from "node:fs";
import * as path from "node:path";

export const BUILTIN = "builtin";

export type Frontend =
  | { kind: "toad"; program: string; args: string[] }
  | { kind: "builtin"; program: string; args: string[]; /** Why Toad was not used, when it was asked for. */ toadMissing?: string };

export interface FrontendChoice {
  toadCommand: string;
  /** The runtime that runs the bundled scripts (VS Code's own executable as Node). */
  runtime: string;
  builtinScript: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export function chooseFrontend(choice: FrontendChoice): Frontend {
  const builtin = { kind: "builtin" as const, program: choice.runtime, args: [choice.builtinScript] };
  if (choice.toadCommand === BUILTIN) return builtin;
  const program = findProgram(choice.toadCommand, choice.env ?? process.env, choice.platform ?? process.platform);
  if (program) return { kind: "toad", program, args: [] };
  return { ...builtin, toadMissing: `'${choice.toadCommand}' (symposium.toadCommand) was not found${path.isAbsolute(choice.toadCommand) ? "" : " on PATH"}` };
}

/** An absolute path to an executable file, or a name looked up on PATH (with PATHEXT on Windows). */
export function findProgram(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  const windows = platform === "win32";
  const candidates = (base: string): string[] => programCandidates(base, env, platform);
  if (command.includes("/") || (windows && command.includes("\\"))) {
    return candidates(path.resolve(command)).find(isExecutableFile);
  }
  const dirs = (pathVariable(env) ?? "").split(windows ? ";" : ":").filter(Boolean);
  for (const dir of dirs) {
    const found = candidates(path.join(dir, command)).find(isExecutableFile);
    if (found) return found;
  }
  return undefined;
}

/**
 * The files `base` may name, in the order to try them. Windows runs only
 * files with an extension from PATHEXT, so those come first, in PATHEXT's
 * order (`toad.exe` before an extension-less `toad` that Git Bash installs
 * next to it); the name as written comes last (cross-spawn can still run a
 * script with a `#!` line). A name that already ends in one of them is tried
 * as written first.
 */
export function programCandidates(base: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  if (platform !== "win32") return [base];
  const extensions = (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  if (extensions.some((extension) => base.toLowerCase().endsWith(extension.toLowerCase()))) return [base, ...extensions.map((extension) => base + extension)];
  return [...extensions.map((extension) => base + extension), base];
}

/** PATH, whatever its letter case (Windows' own environment block says `Path`). */
function pathVariable(env: NodeJS.ProcessEnv): string | undefined {
  const key = Object.keys(env).find((name) => name.toUpperCase() === "PATH");
  return key === undefined ? undefined : env[key];
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
