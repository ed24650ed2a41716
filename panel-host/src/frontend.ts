// The frontend (Toad, or the built-in chat) under supervision: started on a
// private loopback port with `--serve --port N --host 127.0.0.1`, without a
// shell, its output going to the log file; ready once it answers HTTP;
// restarted with backoff when it crashes (RestartPolicy), given up on with
// the log's last lines when it keeps crashing; stopped with its whole tree.
// A Python frontend (Toad) runs under our caller checks (toad-guard.ts), and
// any frontend that answers a caller without the secret is refused: stopped
// and reported, never shown (fail closed).

import type { ChildProcess } from "node:child_process";
import * as http from "node:http";
import getPort from "get-port";
import { describeExit, describeSpawnError, signalProcessTree, spawnProgram, stopProcessTree } from "../../acp-wire/src/index.js";
import { envForProgram } from "../../acp-wire/src/run-as-node.js";
import { CHAT_TOKEN_ENV, READINESS_PROBE_HEADER } from "../../loopback-auth/src/index.js";
import { LAUNCH_SPEC_ENV, type FrontendStatus, type LaunchSpec } from "./launch-spec.js";
import type { HostLog } from "./host-log.js";
import { RestartPolicy } from "./restart-policy.js";
import { describeCommand, guardedCommand, GUARD_FAILED_STATUS } from "./toad-guard.js";

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
    const guarded = guardedCommand({ program: this.spec.frontend.program, args });
    const command = guarded ?? { program: this.spec.frontend.program, args };
    this.log.line(`starting the frontend: ${describeCommand(command)} (cwd ${this.spec.cwd})`);
    this.status = { state: "starting" };
    const child = spawnProgram(command.program, command.args, {
      stdio: ["ignore", this.log.fd, this.log.fd],
      cwd: this.spec.cwd,
      // ELECTRON_RUN_AS_NODE only for the built-in chat (this very executable), never for Toad.
      env: envForProgram(this.spec.frontend.program, this.frontendEnv()),
    });
    this.child = child;
    const startedAt = Date.now();
    child.once("error", (error) => this.onEnded(child, describeSpawnError(command.program, error)));
    child.once("exit", (code, signal) =>
      guarded && code === GUARD_FAILED_STATUS
        ? this.failClosed(child, "Toad was not started: Symposium could not put its caller checks in front of Toad's web server (the log says why)")
        : this.onEnded(child, `the frontend ${describeExit(code, signal)}`),
    );
    const ready = await waitUntilAnswering(this.privatePort, () => this.child === child && child.exitCode === null && child.signalCode === null);
    if (this.child !== child || this.stopping) return;
    if (ready === "unguarded") {
      this.failClosed(
        child,
        "the frontend answered a request that carried no secret, so any local process or web page could drive it: it was stopped. " +
          "Toad runs under Symposium's caller checks only when symposium.toadCommand names Toad's own `toad` script (see docs/panel.md)",
      );
    } else if (ready) {
      this.status = { state: "running", pid: child.pid! };
      this.log.line(`frontend ready on ${PRIVATE_HOST}:${this.privatePort} (pid ${child.pid}, ${Date.now() - startedAt} ms)`);
    } else if (this.status.state === "starting") {
      this.log.line(`the frontend did not answer within ${READY_TIMEOUT_MS / 1000} s`);
      void signalProcessTree(child.pid, "SIGKILL");
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    // The whole tree (its apps, conductors and agents lead groups of their own), read before any signal: a
    // signal first let Toad's server end and hand its apps (which ignore SIGTERM) to another parent before
    // the walk, and they outlived the stop (issue 49). SIGKILL follows for what is left.
    if (child.pid !== undefined) await stopProcessTree(child.pid);
  }

  /** A frontend that does or could serve callers without the secret is never shown, nor restarted (a restart would not help). */
  private failClosed(child: ChildProcess, message: string): void {
    if (this.child !== child || this.stopping) return;
    this.log.line(message);
    this.child = undefined;
    this.status = { state: "failed", message, lastLines: this.log.lastLines(20) };
    void signalProcessTree(child.pid, "SIGKILL");
  }

  private onEnded(child: ChildProcess, why: string): void {
    if (this.child !== child || this.stopping) return;
    this.child = undefined;
    void signalProcessTree(child.pid, "SIGTERM"); // what it left behind
    const decision = this.policy.onCrash(Date.now());
    this.log.line(
      `${why}; ${decision.action === "restart" ? `restarting in ${decision.delayMs} ms (crash ${decision.crashes})` : `giving up after ${decision.crashes} crashes`}`,
    );
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

/**
 * Polls, without the secret, until the frontend answers HTTP on the port,
 * `alive()` turns false, or READY_TIMEOUT_MS. A frontend that refuses the
 * probe (401/403) is ready; one that serves it is "unguarded".
 */
async function waitUntilAnswering(port: number, alive: () => boolean): Promise<boolean | "unguarded"> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (alive() && Date.now() < deadline) {
    const status = await probe(port);
    if (status !== undefined) return status === 401 || status === 403 ? alive() : "unguarded";
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** The status the frontend answers a request without the secret with; undefined when nothing answers. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    // The header marks the probe, so the frontend does not log its refusal as a refused caller (loopback-auth).
    const headers = { host: `${PRIVATE_HOST}:${port}`, [READINESS_PROBE_HEADER]: "1" };
    const request = http.get({ host: PRIVATE_HOST, port, path: "/", timeout: 1_000, headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once("error", () => resolve(undefined));
    request.once("timeout", () => request.destroy());
  });
}
