// What a window remembers about its panel host across reloads, per workspace:
// the host's pid, port and launch id in workspaceState, its secret in
// SecretStorage (never in plain state). A record is only a claim: the
// controller trusts a host only if it answers as that very launch.

import type * as vscode from "vscode";

export interface HostRecord {
  pid: number;
  port: number;
  launchId: string;
  /** The conversation the panel shows: the built-in chat re-attaches to it after a reload. */
  conversation: string;
  /** The state file the host's frontend was started with. */
  stateFile: string | undefined;
  logFile: string;
}

const KEY = "symposium.panelHost";
const secretKey = (launchId: string): string => `symposium.panelHost.secret.${launchId}`;

export class PanelRecord {
  constructor(
    private readonly state: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  /** The record and its secret, or undefined when either is missing or malformed. */
  async load(): Promise<{ record: HostRecord; secret: string } | undefined> {
    const record = this.state.get<HostRecord>(KEY);
    if (!record || !Number.isInteger(record.pid) || !Number.isInteger(record.port) || typeof record.launchId !== "string") return undefined;
    const secret = await this.secrets.get(secretKey(record.launchId));
    return secret ? { record, secret } : undefined;
  }

  async save(record: HostRecord, secret: string): Promise<void> {
    await this.secrets.store(secretKey(record.launchId), secret);
    await this.state.update(KEY, record);
  }

  async clear(): Promise<void> {
    const record = this.state.get<HostRecord>(KEY);
    await this.state.update(KEY, undefined);
    if (record && typeof record.launchId === "string") await this.secrets.delete(secretKey(record.launchId));
  }
}
