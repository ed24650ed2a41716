// Where scripts/install-rust-peers.sh puts the Rust ACP peers, and how a test
// that needs one skips when it is absent (saying why), except under CI=true,
// where nothing may be skipped: there the test fails with the same reason.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface RustPeer {
  crate: string;
  /** The version scripts/install-rust-peers.sh pins: keep in step with it. */
  version: string;
  binary: string;
}

export const ACP_CONDUCTOR: RustPeer = { crate: "agent-client-protocol-conductor", version: "5.0.0", binary: "agent-client-protocol-conductor" };
export const SACP_CONDUCTOR: RustPeer = { crate: "sacp-conductor", version: "11.0.0", binary: "sacp-conductor" };
/** The version symposium-acp-agent 2.0.1 is built on; installed under a name of its own. */
export const SACP10_CONDUCTOR: RustPeer = { crate: "sacp-conductor", version: "10.0.1", binary: "sacp-conductor-10" };
export const SYMPOSIUM_AGENT: RustPeer = { crate: "symposium-acp-agent", version: "2.0.1", binary: "symposium-acp-agent" };
export const SYMPOSIUM_PROXY: RustPeer = { crate: "symposium-acp-proxy", version: "1.1.1", binary: "symposium-acp-proxy" };

export function symposiumCache(): string {
  return process.env.SYMPOSIUM_CACHE || path.join(os.homedir(), ".cache", "symposium");
}

export function rustPeerPath(peer: RustPeer): string {
  return path.join(symposiumCache(), "rust-peers", "bin", peer.binary + (process.platform === "win32" ? ".exe" : ""));
}

/** Why a test needing `peer` cannot run, or false when it can. */
export function rustPeerMissing(peer: RustPeer): string | false {
  return fs.existsSync(rustPeerPath(peer)) ? false : `${peer.crate}@${peer.version} is not installed (run scripts/install-rust-peers.sh)`;
}

/**
 * The `skip` option for a suite that needs something `missing` names: the
 * reason outside CI; under CI=true, false (the suite runs) and `failIfMissing`
 * makes its tests fail with the reason instead.
 */
export function skipOutsideCi(missing: string | false): string | false {
  return missing !== false && process.env.CI !== "true" ? missing : false;
}

/** Call first in each test of a suite guarded by skipOutsideCi. */
export function failIfMissing(missing: string | false): void {
  if (missing !== false) throw new Error(`${missing}; under CI=true a missing prerequisite fails the suite rather than skipping it`);
}
