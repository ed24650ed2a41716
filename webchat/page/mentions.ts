// `@` mentions in the composer: which word is being completed, which project
// files match it, and the mentions a drop of files (a `text/uri-list` of
// file: URIs, as VS Code's explorer gives) makes. How a mention is written
// (quotes for paths with spaces) is mention-syntax.ts; the server turns the
// mentions into ACP resource blocks when the prompt is sent (project-index.ts).

/** Files offered at once. */
const MAX_OFFERED = 12;

/**
 * The mention being typed at the caret, if any: where its `@` is and what
 * follows it (`@ma`, or `@"my fi` for a path with spaces: mention-syntax.ts).
 */
export function mentionAt(value: string, caret: number): { start: number; query: string } | null {
  const before = value.slice(0, caret);
  const quoted = /(?:^|\s)@"((?:[^"\\\r\n]|\\.)*)$/.exec(before);
  if (quoted) return { start: caret - quoted[1]!.length - 2, query: quoted[1]!.replace(/\\(.)/g, "$1") };
  const match = /(?:^|\s)@([^\s@"]*)$/.exec(before);
  if (!match) return null;
  return { start: caret - match[1]!.length - 1, query: match[1]! };
}

/** Files whose path contains `query` (case-insensitive), those whose name starts with it first, then the shortest. */
export function matchFiles(files: readonly string[], query: string): string[] {
  const needle = query.toLowerCase();
  const scored: Array<{ file: string; score: number }> = [];
  for (const file of files) {
    if (/[\r\n]/.test(file)) continue; // no mention can name it (mention-syntax.ts)
    const lower = file.toLowerCase();
    const at = lower.indexOf(needle);
    if (at < 0) continue;
    const name = lower.slice(lower.lastIndexOf("/") + 1);
    const score = (lower.startsWith(needle) ? 0 : name.startsWith(needle) ? 1 : 2) * 1e6 + file.length;
    scored.push({ file, score });
  }
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, MAX_OFFERED)
    .map((each) => each.file);
}

/** The project-relative paths of dropped file: URIs; those outside the project are refused. */
export function droppedPaths(uriList: string, projectDir: string): { paths: string[]; refused: string[] } {
  const paths: string[] = [];
  const refused: string[] = [];
  const root = comparable(projectDir).replace(/\/+$/, "");
  for (const line of uriList.split(/\r?\n/)) {
    const uri = line.trim();
    if (uri === "" || uri.startsWith("#")) continue; // RFC 2483: comments
    const absolute = filePath(uri);
    const relative = absolute === null ? null : under(root, comparable(absolute));
    if (relative === null) refused.push(absolute ?? uri);
    else paths.push(relative);
  }
  return { paths, refused };
}

/** `absolute` relative to `projectDir` (`/`-separated) when strictly inside it, else null. */
export function projectRelative(absolute: string, projectDir: string): string | null {
  return under(comparable(projectDir).replace(/\/+$/, ""), comparable(absolute));
}

/**
 * A file's path (`C:/x` on Windows) from a file: URI, or from a vscode-remote: one (VS Code's
 * explorer in a remote window such as code-server's: the path is on the remote machine, where
 * the extension and this chat run); else null.
 */
function filePath(uri: string): string | null {
  let url: URL;
  let decoded: string;
  try {
    url = new URL(uri);
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return null; // not a URI, or a malformed %-escape
  }
  if (url.protocol !== "file:" && url.protocol !== "vscode-remote:") return null;
  return /^\/[A-Za-z]:\//.test(decoded) ? decoded.slice(1) : decoded;
}

/** Forward slashes (Windows paths come either way). */
function comparable(anyPath: string): string {
  return anyPath.replace(/\\/g, "/");
}

/** `target` relative to `root`, or null when it is not strictly inside it (drive letters compare case-insensitively). */
function under(root: string, target: string): string | null {
  const windows = /^[A-Za-z]:\//.test(root);
  const a = windows ? root.toLowerCase() : root;
  const b = windows ? target.toLowerCase() : target;
  if (!b.startsWith(`${a}/`)) return null;
  const relative = target.slice(root.length + 1);
  return relative.split("/").some((part) => part === ".." || part === ".") || relative === "" ? null : relative;
}
