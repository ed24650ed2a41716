// `symposium-editor-context show [--watch]`: what the agent would receive now.

import * as path from "node:path";
import type { EditorContextInjector } from "./injector.js";

type CurrentBlock = ReturnType<EditorContextInjector["currentBlock"]>;

export function describeCurrentContext(injector: EditorContextInjector): string {
  return describe(injector.currentBlock());
}

function describe(current: CurrentBlock): string {
  return current.ok ? current.block : `No editor context would be sent: ${current.reason}.`;
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
    const current = injector.currentBlock();
    const text = describe(current);
    if (text !== last) print(text);
    last = text;
    clearTimeout(staleTimer);
    // Reprint when the file goes stale, by the injector's own freshness limit.
    if (current.ok && current.read.ok) {
      staleTimer = setTimeout(refresh, injector.maxAgeMs - current.read.ageMs + 50);
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
