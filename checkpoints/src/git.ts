// Running git on the shadow repository: no shell, no configuration but ours
// (GIT_CONFIG_NOSYSTEM, an empty global file, no hooks, no fsmonitor), every
// GIT_* variable the caller inherited dropped (a hook's GIT_DIR would aim us at
// the user's repository), and a hard time limit after which git is killed.

import { spawn } from "node:child_process";
import * as os from "node:os";

/** Options every shadow-repository git call gets: nothing the project or the user configured may run. */
const SAFE_CONFIG = [
  "core.fsmonitor=false",
  `core.hooksPath=${os.devNull}`,
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.quotepath=false",
  "core.untrackedCache=false",
  "core.sparseCheckout=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.addEmbeddedRepo=false",
  "advice.addIgnoredFile=false",
  "commit.gpgSign=false",
].flatMap((setting) => ["-c", setting]);

export interface GitCall {
  /** The shadow git directory. */
  gitDir: string;
  /** The project directory git sees as its work tree (never written by git: we restore files ourselves). */
  workTree?: string;
  /** The index file (each conductor process keeps its own). */
  indexFile?: string;
  /** Bytes for git's stdin. */
  input?: Buffer | string;
  /** Killed after this long. */
  timeoutMs: number;
  /** Exit statuses besides 0 that are not failures (`add --ignore-errors` exits 1 when it skipped a file). */
  alsoSuccess?: readonly number[];
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

export class GitError extends Error {
  override name = "GitError";
}

/** The environment git runs with: the caller's, without any GIT_* variable, plus ours. */
export function gitEnvironment(call: GitCall, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!/^GIT_/i.test(name)) env[name] = value;
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = os.devNull;
  env.GIT_DIR = call.gitDir;
  env.GIT_LITERAL_PATHSPECS = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_OPTIONAL_LOCKS = "0";
  env.LC_ALL = "C";
  if (call.workTree !== undefined) env.GIT_WORK_TREE = call.workTree;
  if (call.indexFile !== undefined) env.GIT_INDEX_FILE = call.indexFile;
  return env;
}

/** Runs `git args`; rejects with git's own message (or the time limit) when it fails. */
export function runGit(args: readonly string[], call: GitCall): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...SAFE_CONFIG, ...args], {
      env: gitEnvironment(call),
      cwd: call.workTree ?? call.gitDir,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, call.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on("error", () => {}); // git may exit before reading all of it; its status says why
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const said = Buffer.concat(stderr).toString("utf8").trim();
      if (timedOut) return reject(new GitError(`git ${args[0] ?? ""} took longer than ${call.timeoutMs} ms`));
      if (code !== 0 && !(code !== null && call.alsoSuccess?.includes(code)))
        return reject(new GitError(`git ${args[0] ?? ""} failed: ${said || `status ${String(code)}`}`));
      resolve({ stdout: Buffer.concat(stdout), stderr: said });
    });
    child.stdin.end(call.input ?? "");
  });
}

/** git's version line, or null when there is no `git` on PATH (or it does not run). */
export async function gitVersion(): Promise<string | null> {
  try {
    const { stdout } = await runGit(["--version"], { gitDir: os.tmpdir(), timeoutMs: 10_000 });
    return stdout.toString("utf8").trim();
  } catch {
    return null;
  }
}

/** Splits git's -z output into its NUL-terminated records. */
export function nulRecords(output: Buffer): string[] {
  const text = output.toString("utf8");
  const records = text.split("\0");
  if (records[records.length - 1] === "") records.pop();
  return records;
}

/** Splits git's -z output into its NUL-terminated records, as bytes (a file name need not be UTF-8). */
export function nulRecordBytes(output: Buffer): Buffer[] {
  const records: Buffer[] = [];
  for (let at = 0; at < output.length;) {
    const end = output.indexOf(0, at);
    records.push(output.subarray(at, end < 0 ? output.length : end));
    at = end < 0 ? output.length : end + 1;
  }
  return records;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** `bytes` as text, or null when they are not valid UTF-8 (decoding would change them). */
export function utf8OrNull(bytes: Buffer): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}
