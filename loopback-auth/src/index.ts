// The one copy of the caller checks for this project's local servers (the
// built-in chat, the panel host): a per-launch secret, the Host header (DNS
// rebinding) and the Origin header (web pages opening websockets to
// localhost). See loopback-auth/README.md for the API and the reasons.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/** Environment variable a launcher may use to hand a server its secret. */
export const CHAT_TOKEN_ENV = "SYMPOSIUM_CHAT_TOKEN";
/** Query parameter that carries the secret (cookies are not sent to a page framed cross-site). */
export const TOKEN_PARAM = "token";

export type CheckResult = { ok: true } | { ok: false; status: number; reason: string };

export interface LoopbackGuardOptions {
  /** The per-launch secret every request must carry. */
  token: string;
  /** The port the server listens on (a function when it is known only after listen). */
  port: number | (() => number);
  /** The host the server was told to listen on, when not a loopback name (e.g. a LAN address). */
  listenHost?: string;
  /** Extra `Host` values to accept, as `name:port` (`name` alone for a default port). */
  allowedHosts?: readonly string[];
  /** Extra origins (`scheme://host[:port]`) whose pages may call; their hosts are accepted as `Host` too. */
  allowedOrigins?: readonly string[];
}

export interface LoopbackGuard {
  /** Checks a plain HTTP request: secret, Host, and Origin when the browser sent one. */
  checkHttp(req: IncomingMessage): CheckResult;
  /** Checks a websocket upgrade: secret, Host and Origin. */
  checkUpgrade(req: IncomingMessage): CheckResult;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** The secret for this launch: `$SYMPOSIUM_CHAT_TOKEN` when set, else 32 random bytes (base64url). */
export function generateSecret(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[CHAT_TOKEN_ENV]?.trim();
  if (given) {
    if (given.length < 16) throw new Error(`${CHAT_TOKEN_ENV} is too short: use at least 16 characters (or unset it to get a random one)`);
    return given;
  }
  return randomBytes(32).toString("base64url");
}

/** True for names and addresses that reach only this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * Parses a list of origins separated by commas or whitespace (an environment
 * variable's value) into normalised `scheme://host[:port]` strings.
 * Throws, naming the bad entry, on anything that is not an http(s) origin.
 */
export function parseOriginList(text: string | undefined): string[] {
  const entries = (text ?? "").split(/[\s,]+/).filter((entry) => entry.length > 0);
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`'${entry}' is not an origin: write it as http(s)://host[:port]`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.hash || url.username) {
      throw new Error(`'${entry}' is not an origin: write it as http(s)://host[:port], without a path`);
    }
    return url.origin;
  });
}

/**
 * The request's target (path and query) as a URL, or undefined when it is not
 * a path. Only the origin form (`/…`) is served: the absolute and asterisk
 * forms (`http://[/`, `*`) are for proxies, and are where Node's URL parser
 * throws. The path is appended to a fixed base, not resolved against it, so
 * `//a:99999/` (which any web page can request) is a path, never a host.
 */
export function requestTarget(req: IncomingMessage): URL | undefined {
  const target = req.url ?? "";
  if (!target.startsWith("/")) return undefined;
  try {
    return new URL(`http://request.invalid${target}`);
  } catch {
    return undefined; // not seen for an origin-form target; kept so that no parser change can end a server
  }
}

/** The request's path for a log line: quoted, without the query (which may hold the secret), at most 200 characters. */
export function targetForLog(req: IncomingMessage): string {
  return JSON.stringify((req.url ?? "").split("?")[0]!.slice(0, 200));
}

/**
 * The header of the panel host's readiness probe (panel-host/src/frontend.ts),
 * which asks without the secret on purpose, to see the frontend refuse: that
 * refusal is expected, so it is not logged as a refused caller. The header
 * changes only the log line, never the answer.
 */
export const READINESS_PROBE_HEADER = "x-symposium-readiness-probe";

/** The log line for a refused request: a calm one for the readiness probe's expected refusal (it has no secret). */
export function refusalLine(req: IncomingMessage, reason: string): string {
  if (req.headers[READINESS_PROBE_HEADER] !== undefined && tokenFromRequest(req) === undefined)
    return "answered the panel host's readiness probe (refused without the secret, as expected)";
  return `refused ${req.method} ${targetForLog(req)}: ${reason}`;
}

/** The secret a request carries: its `token` query parameter, or an `Authorization: Bearer` header. */
export function tokenFromRequest(req: IncomingMessage): string | undefined {
  const fromQuery = requestTarget(req)?.searchParams.get(TOKEN_PARAM) ?? null;
  if (fromQuery !== null) return fromQuery;
  const header = req.headers.authorization;
  return header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function secretsMatch(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function createLoopbackGuard(options: LoopbackGuardOptions): LoopbackGuard {
  if (options.token.length === 0) throw new Error("a loopback guard needs a non-empty token");
  const port = typeof options.port === "function" ? options.port : () => options.port as number;
  const allowedOrigins = new Set(options.allowedOrigins?.map((origin) => new URL(origin).origin));
  const allowedHosts = new Set([
    ...(options.allowedHosts ?? []).map((host) => host.toLowerCase()),
    ...[...allowedOrigins].map((origin) => new URL(origin).host),
  ]);

  const ownHosts = (): string[] => {
    const names = [...LOOPBACK_NAMES];
    if (options.listenHost && !isLoopbackHost(options.listenHost)) names.push(hostForUrl(options.listenHost));
    return names.map((name) => `${name}:${port()}`);
  };

  const checkHost = (req: IncomingMessage): CheckResult => {
    const host = req.headers.host?.toLowerCase();
    if (!host) return refuse("no Host header");
    if (ownHosts().includes(host) || allowedHosts.has(host)) return { ok: true };
    return refuse(`Host '${host}' is not this server`);
  };

  const checkOrigin = (origin: string | undefined): CheckResult => {
    // Browsers always send Origin on websocket upgrades and cross-origin
    // requests; a client without one is not a web page, and still needs the secret.
    if (origin === undefined) return { ok: true };
    const normalised = origin.toLowerCase();
    if (ownHosts().some((host) => normalised === `http://${host}`) || allowedOrigins.has(normalised)) return { ok: true };
    return refuse(`Origin '${origin}' is not allowed`);
  };

  const checkTarget = (req: IncomingMessage): CheckResult =>
    requestTarget(req) ? { ok: true } : { ok: false, status: 400, reason: "the request's target is not a path: ask for /…" };

  const checkToken = (req: IncomingMessage): CheckResult => {
    const given = tokenFromRequest(req);
    if (given === undefined) return refuse("no secret in the request");
    return secretsMatch(given, options.token) ? { ok: true } : refuse("wrong secret");
  };

  const all = (...results: Array<() => CheckResult>): CheckResult => {
    for (const result of results) {
      const outcome = result();
      if (!outcome.ok) return outcome;
    }
    return { ok: true };
  };

  // The same checks for both: a plain request's Origin is checked
  // only when present, and an upgrade from a browser always has one.
  const check = (req: IncomingMessage): CheckResult =>
    all(
      () => checkTarget(req),
      () => checkHost(req),
      () => checkOrigin(req.headers.origin),
      () => checkToken(req),
    );
  return { checkHttp: check, checkUpgrade: check };
}

/**
 * An unexpected error on one line, for a server's log: its message and where
 * it was thrown. A server that survives a bug in a handler still names it.
 */
export function errorLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const frame = error.stack
    ?.split("\n")
    .find((line) => line.trimStart().startsWith("at "))
    ?.trim();
  return frame ? `${error.name}: ${error.message} (${frame})` : `${error.name}: ${error.message}`;
}

/** Ends a refused websocket upgrade with a plain HTTP status (before any websocket exists). */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  // A client that resets before reading its refusal must not end the server (an upgrade's socket has no error listener).
  if (socket.listenerCount("error") === 0) socket.on("error", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Refused"}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function refuse(reason: string): CheckResult {
  return { ok: false, status: 403, reason };
}

function hostForUrl(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(":") && !lower.startsWith("[") ? `[${lower}]` : lower;
}
