// The extension's PersistentState (extension/src/persistent-state.ts) outside
// VS Code: in-memory stand-ins for its Memento and SecretStorage, the only
// parts of VS Code it touches.

import { PersistentState } from "../../extension/src/persistent-state.js";

export class MemoryMemento {
  readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : defaultValue;
  }
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
    return Promise.resolve();
  }
}

export class MemorySecrets {
  readonly values = new Map<string, string>();
  readonly onDidChange = () => ({ dispose() {} });
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/** A PersistentState over fresh in-memory stores, and the stores. */
export function memoryState() {
  const workspace = new MemoryMemento();
  const global = new MemoryMemento();
  const secrets = new MemorySecrets();
  const state = new PersistentState(workspace, global, secrets);
  return { workspace, global, secrets, state };
}
