// How a mention is written in a prompt (docs/webchat.md: mentions), read by
// both the page (completion, drops, display) and the server (project-index.ts
// turns mentions into ACP resource blocks). No imports: Node and the DOM load it.
//
//   @src/main.rs   @src/main.rs:10   @src/main.rs:10-12
//   @"docs/my notes.md"   @"a \"quoted\" name.txt":3
//
// A path with a space, `:`, `@` or `"`, or ending in sentence punctuation
// (`.,;!?)`, which a plain mention leaves to the sentence: "see @a.rs."), is
// written in double quotes, where `\"` and `\\` stand for `"` and `\`. A path
// with a line break cannot be mentioned.

export interface Mention {
  /** Project-relative, `/`-separated, as written (unquoted). */
  path: string;
  start?: number;
  end?: number;
  /** Where the mention starts in the text (its `@`) and how long it is. */
  index: number;
  length: number;
}

/** After a space or at the start: `@"quoted"` or `@plain`, then `:N` or `:N-M`. */
const MENTION = /(?<=^|\s)@(?:"((?:[^"\\\r\n]|\\.)*)"|([^\s:@"]*[^\s:@".,;!?)]))(?::(\d+)(?:-(\d+))?)?/g;
/** A path written without quotes. */
const PLAIN = /^[^\s:@"]*[^\s:@".,;!?)]$/;

export function parseMentions(text: string): Mention[] {
  const mentions: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const path = match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2]!;
    const start = match[3] === undefined ? undefined : Number(match[3]);
    const end = start === undefined ? undefined : Number(match[4] ?? match[3]);
    mentions.push({ path, start, end, index: match.index, length: match[0].length });
  }
  return mentions;
}

/** The mention of `path` (lines `start`-`end`, if given) as the grammar reads it back. */
export function mentionText(path: string, start?: number, end?: number): string {
  const written = PLAIN.test(path) ? path : `"${path.replace(/[\\"]/g, "\\$&")}"`;
  const lines = start === undefined ? "" : end === undefined || end === start ? `:${start}` : `:${start}-${end}`;
  return `@${written}${lines}`;
}
