// VS Code's own executable (Code.exe, an Electron app) runs one of our
// scripts as plain Node only with ELECTRON_RUN_AS_NODE=1 in its environment.
// That variable must reach exactly those processes: Toad, an agent or a tool
// it runs would pass it on, and an Electron app started under it (VS Code's
// `code` command, for one) runs as a bare Node instead of opening.
// So each of our programs drops it on start, and it is given back only to a
// child that is this very executable running one of our scripts.

import * as path from "node:path";

export const RUN_AS_NODE = "ELECTRON_RUN_AS_NODE";

/** Removes the variable from this process's environment: no child inherits it. */
export function forgetRunAsNode(env: NodeJS.ProcessEnv = process.env): void {
  delete env[RUN_AS_NODE];
}

/** What a child running one of our scripts with this process's executable needs: the variable, under Electron. */
export function runAsNodeEnv(): Record<string, string> {
  return process.versions.electron ? { [RUN_AS_NODE]: "1" } : {};
}

/** `env` for a child that runs `program`: the variable kept only when `program` is this process's own executable. */
export function envForProgram(program: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (samePath(program, process.execPath)) return env;
  const copy = { ...env };
  forgetRunAsNode(copy);
  return copy;
}

/** Two paths to one file, by spelling: Windows' file names ignore case, POSIX ones do not. */
export function samePath(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  const paths = platform === "win32" ? path.win32 : path.posix;
  const [left, right] = [paths.resolve(a), paths.resolve(b)];
  return platform === "win32" ? left.toLowerCase() === right.toLowerCase() : left === right;
}
