// The frontend (Toad, or the built-in chat) under supervision: started on a
// private loopback port with `--serve --port N --host 127.0.0.1`, without a
// shell, its output going to the log file; ready once it answers HTTP;
// restarted with backoff when it crashes (RestartPolicy), given up on with
// the log's last lines when it keeps crashing; stopped with its whole tree.

import type { ChildProcess } from "node:child_process";
import * as http from "node:http";
import getPort from "get-port";
import { describeExit, describeSpawnError, signalProcessTree, spawnProgram, stopProcesses } from "../../acp-wire/src/index.js";
import { CHAT_TOKEN_ENV } from "../../loopback-auth/src/index.js";
import { LAUNCH_SPEC_ENV, type FrontendStatus, type LaunchSpec } from "./launch-spec.js";
import type { HostLog } from "./host-log.js";
import { RestartPolicy } from "./restart-policy.js";

export const PRIVATE_HOST = "127.0.0.1";
/** How long a started frontend may take to answer before it counts as failed. */
export const READY_TIMEOUT_MS = Number(process.env.SYMPOSIUM_PANEL_READY_TIMEOUT_MS) || 15_000;

export class FrontendSupervisor {
  private child: ChildProcess | undefined;
  private privatePort = 0;
  private status: FrontendStatus = { state: "starting" };
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly spec: LaunchSpec,
    private readonly log: HostLog,
    private readonly policy = new RestartPolicy(),
  ) {}

  /** `http://127.0.0.1:PORT` of the running frontend, or undefined. */
  get privateOrigin(): string | undefined {
    return this.status.state === "running" ? `http://${PRIVATE_HOST}:${this.privatePort}` : undefined;
  }

  get current(): FrontendStatus {
    return this.status;
  }

  async start(): Promise<void> {
    this.privatePort = await getPort({ host: PRIVATE_HOST });
    const args = [...this.spec.frontend.args, "--serve", "--port", String(this.privatePort), "--host", PRIVATE_HOST];
    this.log.line(`starting the frontend: ${[this.spec.frontend.program, ...args].join(" ")} (cwd ${this.spec.cwd})`);
    this.status = { state: "starting" };
    const child = spawnProgram(this.spec.frontend.program, args, {
      stdio: ["ignore", this.log.fd, this.log.fd],
      cwd: this.spec.cwd,
      env: this.frontendEnv(),
    });
    this.child = child;
    const startedAt = Date.now();
    child.once("error", (error) => this.onEnded(child, describeSpawnError(this.spec.frontend.program, error as NodeJS.ErrnoException)));
    child.once("exit", (code, signal) => this.onEnded(child, `the frontend ${describeExit(code, signal)}`));
    const ready = await waitUntilAnswering(this.privatePort, () => this.child === child && child.exitCode === null && child.signalCode === null);
    if (this.child !== child || this.stopping) return;
    if (ready) {
      this.status = { state: "running", pid: child.pid! };
      this.log.line(`frontend ready on ${PRIVATE_HOST}:${this.privatePort} (pid ${child.pid}, ${Date.now() - startedAt} ms)`);
    } else if (this.status.state === "starting") {
      this.log.line(`the frontend did not answer within ${READY_TIMEOUT_MS / 1000} s`);
      signalProcessTree(child.pid, "SIGKILL");
    }
  }

  /** A user's Retry: start afresh with a clean crash count. */
  async retry(): Promise<void> {
    this.policy.reset();
    if (this.status.state === "failed") await this.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    // The whole tree at once (its apps, conductors and agents lead groups of their own).
    signalProcessTree(child.pid, "SIGTERM");
    await stopProcesses([child]);
  }

  private onEnded(child: ChildProcess, why: string): void {
    if (this.child !== child || this.stopping) return;
    this.child = undefined;
    signalProcessTree(child.pid, "SIGTERM"); // what it left behind
    const decision = this.policy.onCrash(Date.now());
    this.log.line(`${why}; ${decision.action === "restart" ? `restarting in ${decision.delayMs} ms (crash ${decision.crashes})` : `giving up after ${decision.crashes} crashes`}`);
    if (decision.action === "give-up") {
      this.status = { state: "failed", message: `${why}, ${decision.crashes} times in a row`, lastLines: this.log.lastLines(20) };
      return;
    }
    this.status = { state: "restarting", crashes: decision.crashes, delayMs: decision.delayMs };
    this.restartTimer = setTimeout(() => void this.start(), decision.delayMs);
  }

  private frontendEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.spec.env, [CHAT_TOKEN_ENV]: this.spec.secret };
    delete env[LAUNCH_SPEC_ENV];
    return env;
  }
}

/** Polls until something answers HTTP on the port, `alive()` turns false, or READY_TIMEOUT_MS. */
async function waitUntilAnswering(port: number, alive: () => boolean): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (alive() && Date.now() < deadline) {
    if (await answers(port)) return alive();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: PRIVATE_HOST, port, path: "/", timeout: 1_000 }, (response) => {
      response.resume();
      resolve(true);
    });
    request.once("error", () => resolve(false));
    request.once("timeout", () => request.destroy());
  });
}
