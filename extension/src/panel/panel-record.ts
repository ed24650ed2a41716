// What a window remembers about its panel host across reloads, per workspace:
// the host's pid, port and launch id (workspaceState, persistent-state.ts),
// and its secret, in a private file (0600 in a 0700 folder of the extension's
// storage, on the machine the host runs on). Not in VS Code's SecretStorage:
// in a browser window (code-server) its read goes to the page, and after a
// window reload on a busy machine it did not answer for over a minute, so the
// panel said "Reconnecting to the chat…" for good (issue 49). The host's own
// environment holds the same secret for the same user, so the file exposes
// nothing more. A record is only a claim: the controller trusts a host only if
// it answers as that very launch.

import * as fs from "node:fs";
import * as path from "node:path";
import type { PersistentState } from "../persistent-state.js";

export interface HostRecord {
  pid: number;
  port: number;
  launchId: string;
  /** The conversation the panel shows: the built-in chat re-attaches to it after a reload. */
  conversation: string;
  /** The state file the host's frontend was started with. */
  stateFile: string | undefined;
  logFile: string;
  /** Which frontend the host runs (absent in records from older versions: the built-in chat). */
  frontendKind?: "toad" | "builtin";
}

/** Launch ids as the lifecycle makes them (crypto.randomUUID): the only ones that name a secret's file. */
const LAUNCH_ID = /^[A-Za-z0-9-]{1,64}$/;

export class PanelRecord {
  /** `secretDir`: where the hosts' secrets are kept (created 0700 when first needed). */
  constructor(
    private readonly state: PersistentState,
    private readonly secretDir: string,
  ) {}

  /** The record and its secret, or undefined when either is missing or malformed. */
  async load(): Promise<{ record: HostRecord; secret: string } | undefined> {
    const record = this.state.panelHost;
    if (!isHostRecord(record)) return undefined;
    const secret = this.readSecret(record.launchId);
    return secret ? { record, secret } : undefined;
  }

  /** Whether a record is there at all (no secret read): a reconnect is likely. */
  remembered(): boolean {
    return isHostRecord(this.state.panelHost);
  }

  async save(record: HostRecord, secret: string): Promise<void> {
    const file = this.secretFile(record.launchId);
    if (!file) throw new Error(`not a launch id: ${JSON.stringify(record.launchId)}`);
    fs.mkdirSync(this.secretDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, secret, { mode: 0o600 });
    await this.state.setPanelHost(record);
  }

  async clear(): Promise<void> {
    const launchId = (this.state.panelHost as { launchId?: unknown } | undefined)?.launchId;
    await this.state.setPanelHost(undefined);
    if (typeof launchId !== "string") return;
    const file = this.secretFile(launchId);
    if (file) fs.rmSync(file, { force: true });
    // Versions before kept the secret in SecretStorage: removed there too, never waited for (see above).
    void this.state.setHostSecret(launchId, undefined).catch(() => undefined);
  }

  private secretFile(launchId: string): string | undefined {
    return LAUNCH_ID.test(launchId) ? path.join(this.secretDir, `${launchId}.secret`) : undefined;
  }

  private readSecret(launchId: string): string | undefined {
    const file = this.secretFile(launchId);
    try {
      return (file && fs.readFileSync(file, "utf8").trim()) || undefined;
    } catch {
      return undefined; // never saved here (an older version's record), or removed
    }
  }
}

function isHostRecord(value: unknown): value is HostRecord {
  const record = value as Partial<HostRecord> | undefined;
  return typeof record === "object" && record !== null && Number.isInteger(record.pid) && Number.isInteger(record.port) && typeof record.launchId === "string";
}
