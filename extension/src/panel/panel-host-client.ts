// Talking to a panel host: starting one (detached, its output to the log
// file, never a pipe) and its control routes behind the secret; together,
// the host client the lifecycle (panel-lifecycle.ts) is given.

import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isAlive, spawnProgram, stopProcessTree } from "../../../acp-wire/src/processes.js";
import { readLastLines } from "../../../panel-host/src/host-log.js";
import { CONTROL, LAUNCH_SPEC_ENV, type HostIdentity, type LaunchSpec } from "../../../panel-host/src/launch-spec.js";
import type { HostClient, SpawnedHost } from "./panel-lifecycle.js";

export interface HostRuntime {
  /** The program that runs the host's script: VS Code's own executable as Node, or node. */
  program: string;
  script: string;
  /** Added to the environment so `program` runs as Node (ELECTRON_RUN_AS_NODE). */
  env: Record<string, string>;
}

/** Starts a host that outlives this window; resolves once it is spawned. */
export function spawnHost(runtime: HostRuntime, spec: LaunchSpec): ChildProcess {
  const fd = fs.openSync(spec.logFile, "a", 0o600);
  try {
    const child = spawnProgram(runtime.program, [runtime.script], {
      detached: true,
      stdio: ["ignore", fd, fd],
      cwd: os.homedir(), // never the project: Windows cannot rename a folder a process has as its working directory
      env: { ...process.env, ...runtime.env, [LAUNCH_SPEC_ENV]: JSON.stringify(spec) },
    });
    child.unref();
    return child;
  } finally {
    fs.closeSync(fd);
  }
}

/** The real host client: processes started with `runtime`, control routes over loopback HTTP. */
export function panelHostClient(runtime: HostRuntime): HostClient {
  return {
    spawn: (spec) => watchExit(spawnHost(runtime, spec)),
    identity: fetchIdentity,
    attach,
    requestStop,
    stopTree: stopProcessTree,
    isAlive,
    lastLogLines: readLastLines,
  };
}

/** The spawned host's pid and, once it has exited, its status (127: not found, 126: not startable). */
function watchExit(child: ChildProcess): SpawnedHost {
  let exitCode: number | null | undefined;
  child.once("exit", (code) => {
    exitCode = code;
  });
  child.once("error", (error: NodeJS.ErrnoException) => {
    exitCode = error.code === "ENOENT" ? 127 : 126;
  });
  return { pid: child.pid ?? -1, exitCode: () => exitCode };
}

async function call(port: number, secret: string, route: string, init: RequestInit, timeoutMs: number): Promise<HostIdentity> {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    ...init,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) throw new Error(`${route} answered ${response.status}`);
  const identity = (await response.json()) as HostIdentity;
  if (typeof identity?.pid !== "number" || typeof identity.launchId !== "string" || typeof identity.frontend?.state !== "string") {
    throw new Error(`${route} did not answer as a panel host`);
  }
  return identity;
}

export function fetchIdentity(port: number, secret: string, timeoutMs = 1_500): Promise<HostIdentity> {
  return call(port, secret, CONTROL.identity, { method: "GET" }, timeoutMs);
}

/** Tells the host a window is attached (resets its idle timer) and from which origin its panel loads. */
export function attach(port: number, secret: string, origin: string | undefined, timeoutMs = 2_000): Promise<HostIdentity> {
  return call(port, secret, CONTROL.attach, { method: "POST", body: JSON.stringify({ origin }) }, timeoutMs);
}

export async function requestStop(port: number, secret: string): Promise<void> {
  await fetch(`http://127.0.0.1:${port}${CONTROL.stop}`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    signal: AbortSignal.timeout(1_000),
  }).catch(() => undefined);
}

/** This extension's host script, run by VS Code's own executable as Node (node itself in code-server). */
export function hostRuntime(extensionUri: { fsPath: string }): HostRuntime {
  return {
    program: process.execPath,
    script: path.join(extensionUri.fsPath, "dist", "symposium-panel-host.mjs"),
    env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: "1" } : {},
  };
}

/** The host's log file in `dir` (created 0700), emptied when it has grown past 2 MiB. */
export function prepareLogFile(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, "chat-host.log");
  try {
    if (fs.statSync(file).size > 2 * 1024 * 1024) fs.truncateSync(file, 0);
  } catch {
    // No log yet.
  }
  return file;
}
