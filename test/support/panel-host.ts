// Starting the real panel host (dist/symposium-panel-host.mjs) with a launch
// spec, as the extension does, and talking to its gate.

import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import getPort from "get-port";
import { LAUNCH_SPEC_ENV, type HostIdentity, type LaunchSpec } from "../../panel-host/src/launch-spec.js";
import { CONDUCTOR_CLI, OUT_DIR, REPO_DIR, tempDir } from "./processes.js";

export const PANEL_HOST_CLI = path.join(REPO_DIR, "dist", "symposium-panel-host.mjs");
export const FAKE_TOAD = path.join(OUT_DIR, "test", "fixtures", "fake-toad.js");

/** The demo agent as a shell command line (what the frontend runs per chat). */
export const DEMO_AGENT_COMMAND = `'${process.execPath}' '${CONDUCTOR_CLI}' demo-agent`;

export interface TestHost {
  child: ChildProcess;
  spec: LaunchSpec;
  gate: string;
  exited: Promise<number | null>;
  log(): string;
  identity(): Promise<HostIdentity>;
}

export async function startTestHost(overrides: Partial<LaunchSpec> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestHost> {
  const dir = tempDir("symposium-host-");
  const spec: LaunchSpec = {
    launchId: crypto.randomUUID(),
    secret: crypto.randomBytes(24).toString("base64url"),
    port: await getPort({ host: "127.0.0.1" }),
    frontend: { program: process.execPath, args: [FAKE_TOAD, "acp", DEMO_AGENT_COMMAND] },
    cwd: dir,
    env: {},
    allowedOrigins: [],
    idleTimeoutMs: 60_000,
    logFile: path.join(dir, "panel.log"),
    ...overrides,
  };
  const child = spawn(process.execPath, [PANEL_HOST_CLI], { stdio: "ignore", env: { ...process.env, ...env, [LAUNCH_SPEC_ENV]: JSON.stringify(spec) } });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const gate = `http://127.0.0.1:${spec.port}`;
  const host: TestHost = {
    child,
    spec,
    gate,
    exited,
    log: () => (fs.existsSync(spec.logFile) ? fs.readFileSync(spec.logFile, "utf8") : ""),
    identity: async () => (await (await fetch(`${gate}/.symposium/identity`, { headers: { authorization: `Bearer ${spec.secret}` } })).json()) as HostIdentity,
  };
  return host;
}

/** Waits until the host's frontend is in `state` (or fails with the host's log). */
/** Waits until the host reports its frontend in `state` (and, with `notPid`, a frontend other than that one). */
export async function waitForFrontend(host: TestHost, state: string, timeoutMs = 15_000, notPid?: number): Promise<HostIdentity> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const identity = await host.identity();
      const pid = (identity.frontend as { pid?: number }).pid;
      if (identity.frontend.state === state && (notPid === undefined || pid !== notPid)) return identity;
      last = identity;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`frontend never reached '${state}' (last: ${JSON.stringify(last)}); log:\n${host.log()}`);
}

/**
 * Pids of panel hosts started for `workspace` (Linux /proc): their launch spec names it, as Toad's
 * working directory or the built-in chat's --project-dir (the host itself runs in the home directory).
 */
export function hostProcesses(workspace: string): number[] {
  const names = [workspace, fs.realpathSync(workspace)].map((dir) => JSON.stringify(dir));
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
        const spec =
          fs
            .readFileSync(`/proc/${pid}/environ`, "utf8")
            .split("\0")
            .find((entry) => entry.startsWith(`${LAUNCH_SPEC_ENV}=`)) ?? "";
        return args.includes("symposium-panel-host.mjs") && names.some((name) => spec.includes(name));
      } catch {
        return false;
      }
    })
    .map(Number);
}
