// What the extension hands the host when it starts it: one JSON object in an
// environment variable (never in argv, which every local user can read with
// ps). Pure, so the extension builds it with the same types the host parses.

/** The environment variable that carries the launch spec; removed before the frontend starts. */
export const LAUNCH_SPEC_ENV = "SYMPOSIUM_PANEL_HOST_SPEC";

/** Exit status of a host whose gate port is taken. */
export const EXIT_PORT_BUSY = 3;
/** Exit status of a host given a spec it cannot use. */
export const EXIT_BAD_SPEC = 2;

/** The control routes behind the gate's secret; everything else goes to the frontend. */
export const CONTROL = {
  identity: "/.symposium/identity",
  attach: "/.symposium/attach",
  stop: "/.symposium/stop",
} as const;

export interface LaunchSpec {
  /** Random per launch: the extension trusts a host on reconnect only if it answers with this. */
  launchId: string;
  /** Per-launch secret; every request through the gate carries it (`?token=` or Bearer). */
  secret: string;
  /** The gate's port on 127.0.0.1. */
  port: number;
  /**
   * The frontend program and the arguments before `--serve --port N --host H`.
   * A Python script (Toad's `toad`) runs under the host's caller checks (toad-guard.ts).
   */
  frontend: { program: string; args: string[] };
  /** The project directory: the frontend's working directory (Toad's serve mode drops its PATH argument). */
  cwd: string;
  /** Added to the host's environment for the frontend (e.g. SYMPOSIUM_EDITOR_STATE_FILE). */
  env: Record<string, string>;
  /** Origins besides the gate's own whose pages may call (code-server's, from asExternalUri). */
  allowedOrigins: string[];
  /** Ends the host when no window has attached for this long. */
  idleTimeoutMs: number;
  /** The log file the host and the frontend write to (opened by the extension, inherited). */
  logFile: string;
}

/** What the host answers on its identity and attach routes. */
export interface HostIdentity {
  pid: number;
  launchId: string;
  frontend: FrontendStatus;
}

export type FrontendStatus =
  | { state: "starting" }
  | { state: "running"; pid: number }
  | { state: "restarting"; crashes: number; delayMs: number }
  | { state: "failed"; message: string; lastLines: string[] };

/** Parses and checks a spec; throws saying which field is wrong. */
export function parseLaunchSpec(text: string | undefined): LaunchSpec {
  if (!text) throw new Error(`${LAUNCH_SPEC_ENV} is not set: the panel host is started by the Symposium extension`);
  const spec = JSON.parse(text) as Partial<LaunchSpec>;
  const need = (ok: boolean, field: string): void => {
    if (!ok) throw new Error(`${LAUNCH_SPEC_ENV}: '${field}' is missing or invalid`);
  };
  need(typeof spec.launchId === "string" && spec.launchId.length >= 8, "launchId");
  need(typeof spec.secret === "string" && spec.secret.length >= 16, "secret");
  need(Number.isInteger(spec.port) && spec.port! > 0 && spec.port! < 65536, "port");
  need(typeof spec.frontend?.program === "string" && Array.isArray(spec.frontend.args), "frontend");
  need(typeof spec.cwd === "string", "cwd");
  need(typeof spec.env === "object" && spec.env !== null, "env");
  need(Array.isArray(spec.allowedOrigins), "allowedOrigins");
  need(typeof spec.idleTimeoutMs === "number" && spec.idleTimeoutMs > 0, "idleTimeoutMs");
  need(typeof spec.logFile === "string", "logFile");
  return spec as LaunchSpec;
}
