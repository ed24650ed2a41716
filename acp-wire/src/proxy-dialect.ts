// The two spellings of the ACP proxy-chain methods (the Proxy Chains rules in docs/proxy.md): the RFD's and
// TypeScript SDK's `proxy/*`, and `_proxy/*` as Rust sacp conductors speak it.

import { INITIALIZE, RFD_PROXY_INITIALIZE, RFD_PROXY_SUCCESSOR } from "./acp-constants.js";
import type { WireMessage } from "./jsonrpc.js";

export type ProxyDialect = "proxy" | "_proxy";

export const PROXY_DIALECTS: readonly ProxyDialect[] = ["proxy", "_proxy"];

/** What today's published proxies and conductors speak. */
export const DEFAULT_PROXY_DIALECT: ProxyDialect = "_proxy";

export interface DialectMethods {
  initialize: string;
  successor: string;
}

const METHODS: Record<ProxyDialect, DialectMethods> = {
  proxy: { initialize: RFD_PROXY_INITIALIZE, successor: RFD_PROXY_SUCCESSOR },
  _proxy: { initialize: "_proxy/initialize", successor: "_proxy/successor" },
};

export function dialectMethods(dialect: ProxyDialect): DialectMethods {
  return METHODS[dialect];
}

export interface ProxyMethodRole {
  dialect: ProxyDialect;
  role: "initialize" | "successor";
}

/** Every proxy-chain method with its role, for the check routers make on each message (four string compares). */
const ROLES: ReadonlyArray<readonly [string, ProxyMethodRole]> = PROXY_DIALECTS.flatMap((dialect) => [
  [METHODS[dialect].initialize, { dialect, role: "initialize" }] as const,
  [METHODS[dialect].successor, { dialect, role: "successor" }] as const,
]);

/** Recognises a proxy-chain method in either dialect. */
export function proxyMethodRole(method: unknown): ProxyMethodRole | null {
  for (const [name, role] of ROLES) if (method === name) return role;
  return null;
}

export function parseDialect(value: string): ProxyDialect | null {
  return (PROXY_DIALECTS as readonly string[]).includes(value) ? (value as ProxyDialect) : null;
}

/**
 * A `<dialect>/initialize` message as the plain `initialize` it stands for
 * (what a proxy passes on to its successor), with the dialect it was spoken
 * in; null for any other message.
 */
export function plainInitialize(message: WireMessage): { dialect: ProxyDialect; message: WireMessage } | null {
  const role = proxyMethodRole(message.method);
  return role?.role === "initialize" ? { dialect: role.dialect, message: { ...message, method: INITIALIZE } } : null;
}
