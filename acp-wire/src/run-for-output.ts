// Running one of this repository's CLIs for its answer (the conductor's
// `registry list|use`, asked by the extension's and the chat's agent pickers):
// no shell, stdout is the answer, stderr's last lines say why it failed.

import { execFile } from "node:child_process";

export interface RunForOutputOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
}

/** How many of stderr's last lines a failure carries. */
const STDERR_LINES = 3;

/** Resolves with the program's stdout; rejects with its last stderr lines (without the `[name] ` log prefix), else the exec error. */
export function runForOutput(program: string, args: readonly string[], options: RunForOutputOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { env: options.env, cwd: options.cwd, timeout: options.timeoutMs, maxBuffer: 8 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        const said = stderr
          .trim()
          .split(/\r?\n/)
          .slice(-STDERR_LINES)
          .map((line) => line.replace(/^\[[\w-]+\] /, ""))
          .join(" ");
        reject(new Error(said || error.message));
      },
    );
  });
}
