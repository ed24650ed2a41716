// What a window remembers about its panel host across reloads, per workspace:
// the host's pid, port and launch id, and its secret (persistent-state.ts
// keeps them). A record is only a claim: the controller trusts a host only if
// it answers as that very launch.

import type { PersistentState } from "./persistent-state.js";

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

export class PanelRecord {
  constructor(private readonly state: PersistentState) {}

  /** The record and its secret, or undefined when either is missing or malformed. */
  async load(): Promise<{ record: HostRecord; secret: string } | undefined> {
    const record = this.state.panelHost;
    if (!isHostRecord(record)) return undefined;
    const secret = await this.state.hostSecret(record.launchId);
    return secret ? { record, secret } : undefined;
  }

  /** Whether a record is there at all (no secret read): a reconnect is likely. */
  remembered(): boolean {
    return isHostRecord(this.state.panelHost);
  }

  async save(record: HostRecord, secret: string): Promise<void> {
    await this.state.setHostSecret(record.launchId, secret);
    await this.state.setPanelHost(record);
  }

  async clear(): Promise<void> {
    const launchId = (this.state.panelHost as { launchId?: unknown } | undefined)?.launchId;
    await this.state.setPanelHost(undefined);
    if (typeof launchId === "string") await this.state.setHostSecret(launchId, undefined);
  }
}

function isHostRecord(value: unknown): value is HostRecord {
  const record = value as Partial<HostRecord> | undefined;
  return typeof record === "object" && record !== null && Number.isInteger(record.pid) && Number.isInteger(record.port) && typeof record.launchId === "string";
}
