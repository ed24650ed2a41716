// Whether a path an agent names is inside the window's workspace folders
// (pure Node, no `vscode`: the extension's channel, its chat bridge and this
// folder's state-file answers share it). Symlinks are resolved first: a link
// inside the workspace may point out of it. A path that does not exist yet (a
// new file) is judged by its nearest existing folder, links resolved, so a
// new name under a link to elsewhere is refused too; a dangling link (its
// target missing) is judged by where it points, so a write through it to a
// new file outside is refused.

import * as fs from "node:fs";
import * as path from "node:path";
import { isBelow } from "../../acp-wire/src/confined-path.js";

/** `file` (absolute, or relative to the first folder) as a real path inside one of `folders`, or undefined. */
export function insideFolders(file: string, folders: readonly string[]): string | undefined {
  if (folders.length === 0 || file.includes("\0")) return undefined;
  const resolved = realPathOrNearest(path.resolve(folders[0]!, file));
  if (resolved === undefined) return undefined;
  return folders.some((folder) => {
    const real = realPathOrNearest(folder);
    return real !== undefined && isBelow(real, resolved);
  })
    ? resolved
    : undefined;
}

/** Links followed through missing targets before a path is given up (Linux's own limit is 40). */
const MAX_LINKS = 40;

/**
 * The real path of `file`; for a file that does not exist, its nearest existing ancestor's real path with the rest
 * appended. A dangling link on the way counts as where it points (a write there would land at its target), read
 * with lstat/readlink, not through an editor's file service. Undefined when links loop or chain past MAX_LINKS.
 */
export function realPathOrNearest(file: string, links = 0): string | undefined {
  const missing: string[] = [];
  let current = file;
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...missing.reverse());
    } catch {
      const target = danglingLinkTarget(current);
      if (target !== undefined) {
        return links >= MAX_LINKS ? undefined : realPathOrNearest(path.join(path.resolve(path.dirname(current), target), ...missing.reverse()), links + 1);
      }
      const parent = path.dirname(current);
      if (parent === current) return file;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Where `file` points when it is a symbolic link (one whose target is missing, since its real path failed). */
function danglingLinkTarget(file: string): string | undefined {
  try {
    return fs.lstatSync(file).isSymbolicLink() ? fs.readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}
