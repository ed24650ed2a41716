// Whether a path the chat names is inside the workspace (pure Node, no
// \`vscode\`, so tests run it directly). Symlinks are resolved first: a link
// inside the workspace may point out of it.

import * as fs from "node:fs";
import * as path from "node:path";

/** \`file\` (absolute, or relative to the first folder) as a real path inside one of \`folders\`, or undefined. */
export function insideFolders(file: string, folders: readonly string[]): string | undefined {
  if (folders.length === 0) return undefined;
  const resolved = realOrSelf(path.resolve(folders[0]!, file));
  return folders.some((folder) => isInside(realOrSelf(folder), resolved)) ? resolved : undefined;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The path with symlinks resolved, or as given when it does not exist. */
function realOrSelf(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}
