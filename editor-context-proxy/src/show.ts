// `symposium-editor-context show [--watch]`: what the agent would receive now.

import * as path from "node:path";
import type { EditorContextInjector } from "./injector.js";
import { MAX_STATE_AGE_MS } from "../../editor-state/src/index.js";

export function describeCurrentContext(injector: EditorContextInjector): string {
  const current = injector.currentBlock();
  if (current.ok) return current.block;
  return `No editor context would be sent: ${current.reason}.`;
}

/**
 * Reprints whenever the state file changes. The directory is watched, not the
 * file: the tracker's atomic writes replace the file, which would end a watch
 * on the file itself. A timer also reprints when the file goes stale.
 */
export async function watchCurrentContext(injector: EditorContextInjector, print: (text: string) => void): Promise<() => Promise<void>> {
  const file = injector.stateFile;
  if (!file) {
    print(describeCurrentContext(injector));
    return async () => {};
  }
  const target = path.resolve(file);
  let last: string | null = null;
  let staleTimer: NodeJS.Timeout | undefined;
  const refresh = (): void => {
    const text = describeCurrentContext(injector);
    if (text !== last) print(text);
    last = text;
    clearTimeout(staleTimer);
    const current = injector.currentBlock();
    if (current.ok && current.read.ok) {
      staleTimer = setTimeout(refresh, MAX_STATE_AGE_MS - current.read.ageMs + 50);
    }
  };
  // Loaded here, not at the top: the proxy itself never watches anything.
  const { watch } = await import("chokidar");
  const watcher = watch(path.dirname(target), { depth: 0, ignoreInitial: true });
  watcher.on("all", (_event, changed) => {
    if (path.resolve(changed) === target) refresh();
  });
  refresh();
  return async () => {
    clearTimeout(staleTimer);
    await watcher.close();
  };
}
