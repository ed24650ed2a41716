// Whether a path an agent names is inside the window's workspace folders
// (pure Node, no `vscode`: the extension's channel, its chat bridge and this
// folder's state-file answers share it). Symlinks are resolved first: a link
// inside the workspace may point out of it. A path that does not exist yet (a
// new file) is judged by its nearest existing folder, links resolved, so a
// new name under a link to elsewhere is refused too.

import * as fs from "node:fs";
import * as path from "node:path";

/** `file` (absolute, or relative to the first folder) as a real path inside one of `folders`, or undefined. */
export function insideFolders(file: string, folders: readonly string[]): string | undefined {
  if (folders.length === 0 || file.includes("\0")) return undefined;
  const resolved = realPathOrNearest(path.resolve(folders[0]!, file));
  return folders.some((folder) => isInside(realPathOrNearest(folder), resolved)) ? resolved : undefined;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The real path of `file`; for a file that does not exist, its nearest existing ancestor's real path with the rest appended. */
export function realPathOrNearest(file: string): string {
  const missing: string[] = [];
  let current = file;
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return file;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
