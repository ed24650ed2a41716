// Text an agent or a project chose (a file's name, a change's title, an agent's
// name, a prompt kept in a turn's record, an error carrying any of them), made
// fit for a VS Code message (showInformationMessage and the like, modal or
// not). VS Code reads `[label](command:…)` (also http(s): and file:) in a
// notification as a link, whose click runs that command with its arguments
// beside the real buttons: no such text reaches a message as it is. Every
// `show*Message` call takes such text only through these two functions
// (test/unit/extension/notice-calls.test.ts finds the calls). Without
// `vscode`, so it is tested directly.

/** The most characters of one piece of text in a message (a file's name, a title). */
export const NOTICE_TEXT_MAX = 200;
/** The most characters of a whole sentence passed through (an error's message, a question built elsewhere). */
export const NOTICE_SENTENCE_MAX = 500;
/** The most items a list in a message names; the rest are counted. */
export const NOTICE_LIST_MAX = 10;

/**
 * `text` as one line that cannot form a link or a codicon: a space between `]` and a `(` or `[` after it (a
 * link's label and target must touch, in VS Code's parser as in Markdown; a file's `[id].tsx` reads as
 * itself), angle brackets as `‹ ›` (no autolink), `$(icon)` with a space (no icon); control, format and
 * bidirectional characters and line breaks as spaces (no forged second line, no text shown reversed); at
 * most `max` characters, cut with "…". The message's own words around it keep a space or a word before a `(`.
 */
export function noticeText(text: string, max = NOTICE_TEXT_MAX): string {
  // Only what can be shown is looked at: a 20 MB title costs no more than a short one.
  const line = text
    .slice(0, 4 * max + 64)
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, " ")
    .trim()
    .replace(/\](?=[([])/g, "] ")
    .replace(/</g, "‹")
    .replace(/>/g, "›")
    .replace(/\$\(/g, "$ (");
  const characters = Array.from(line);
  return characters.length <= max ? line : `${characters.slice(0, Math.max(0, max - 1)).join("")}…`;
}

export interface NoticeListOptions {
  /** Between the items: ", " unless given (a modal's detail takes "\n"). */
  separator?: string;
  /** How many items are named; the rest are counted ("and 3 more"). */
  shown?: number;
}

/** Each item through `noticeText`, at most `shown` of them named, joined by `separator`. */
export function noticeList(items: readonly string[], { separator = ", ", shown = NOTICE_LIST_MAX }: NoticeListOptions = {}): string {
  const named = items.slice(0, shown).map((item) => noticeText(item));
  const rest = items.length - named.length;
  return rest > 0 ? [...named, `and ${rest} more`].join(separator) : named.join(separator);
}
