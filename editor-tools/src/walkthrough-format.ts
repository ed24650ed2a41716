// The walkthrough format (docs/walkthroughs.md): Markdown, plus fenced blocks
// that the view turns into a diagram (```mermaid), a comment placed in the
// code (```comment), a button (```action) and a diff (```gitdiff). Pure: no
// I/O; the MCP server checks a walkthrough with it before asking the window,
// and the window parses it again before resolving its locations. Bounds keep
// a hostile walkthrough from costing the window more than a page of text.

/** Bounds on one walkthrough (said in the tool's description and docs/walkthroughs.md). */
export const WALKTHROUGH_LIMITS = {
  /** The Markdown, in UTF-8 bytes. */
  maxMarkdownBytes: 256 * 1024,
  maxComments: 100,
  maxActions: 20,
  maxDiagrams: 10,
  maxGitdiffs: 10,
  /** A comment's text, in characters. */
  maxCommentChars: 8 * 1024,
  /** A diagram's text, in characters. */
  maxDiagramChars: 32 * 1024,
  /** A button's label, in characters. */
  maxButtonChars: 100,
  /** An action's message to the agent, in characters. */
  maxActionChars: 4 * 1024,
  /** A location, in characters. */
  maxLocationChars: 1024,
  /** Walkthroughs a window shows per minute; more are refused until the minute has passed. */
  maxPerMinute: 10,
} as const;

/** Where a comment goes: lines of a file, the definitions of a symbol, or the lines of a file holding a text. */
export type WalkthroughLocation =
  { kind: "lines"; path: string; startLine: number; endLine: number } | { kind: "symbol"; name: string } | { kind: "search"; path: string; text: string };

/** What a gitdiff block shows: two commits, one commit (against its parent), or one of our recorded turns. */
export type GitdiffSpec = { kind: "range"; from: string; to: string } | { kind: "commit"; commit: string } | { kind: "turn"; turn: string };

export type WalkthroughBlock =
  | { kind: "markdown"; text: string }
  | { kind: "mermaid"; text: string }
  | { kind: "comment"; location: WalkthroughLocation; written: string; text: string }
  | { kind: "action"; button: string; message: string }
  | { kind: "gitdiff"; spec: GitdiffSpec; written: string };

export interface ParsedWalkthrough {
  /** The first `#` heading's text, else "Walkthrough". */
  title: string;
  blocks: WalkthroughBlock[];
}

/** A walkthrough the format refuses: the message names the block's line and what to write instead. */
export class WalkthroughFormatError extends Error {
  override name = "WalkthroughFormatError";
}

const SPECIAL = ["mermaid", "comment", "action", "gitdiff"] as const;
type Special = (typeof SPECIAL)[number];
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

/** `markdown` as blocks; throws WalkthroughFormatError when it breaks the format or its bounds. */
export function parseWalkthrough(markdown: string): ParsedWalkthrough {
  const bytes = Buffer.byteLength(markdown, "utf8");
  if (bytes > WALKTHROUGH_LIMITS.maxMarkdownBytes)
    throw new WalkthroughFormatError(
      `the walkthrough is ${bytes} bytes, over the ${WALKTHROUGH_LIMITS.maxMarkdownBytes / 1024} KiB limit: split it or shorten it`,
    );
  const blocks: WalkthroughBlock[] = [];
  const lines = markdown.split(/\r?\n/);
  let prose: string[] = [];
  const flushProse = (): void => {
    if (prose.join("").trim() !== "") blocks.push({ kind: "markdown", text: prose.join("\n") });
    prose = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]!);
    if (!open) {
      prose.push(lines[index]!);
      continue;
    }
    const marker = open[1]!;
    const end = closingLine(lines, index + 1, marker);
    const info = open[2]!.toLowerCase();
    if (!(SPECIAL as readonly string[]).includes(info)) {
      // Any other fence (code) stays in the Markdown as it is, closing line included.
      prose.push(...lines.slice(index, end === -1 ? lines.length : end + 1));
      index = end === -1 ? lines.length : end;
      continue;
    }
    if (end === -1) throw new WalkthroughFormatError(`line ${index + 1}: the \`\`\`${info} block is never closed (end it with a line of ${marker})`);
    flushProse();
    blocks.push(specialBlock(info as Special, lines.slice(index + 1, end), index + 1));
    index = end;
  }
  flushProse();
  checkCounts(blocks);
  return { title: titleOf(blocks), blocks };
}

/** The index of the line closing a fence opened with `marker`, from `from`; -1 when none does. */
function closingLine(lines: string[], from: number, marker: string): number {
  for (let index = from; index < lines.length; index++) {
    const trimmed = lines[index]!.trim();
    if (trimmed.length >= marker.length && trimmed.startsWith(marker[0]!) && /^(`+|~+)$/.test(trimmed)) return index;
  }
  return -1;
}

function specialBlock(kind: Special, body: string[], line: number): WalkthroughBlock {
  const where = `line ${line}: the \`\`\`${kind} block`;
  if (kind === "mermaid") {
    const text = body.join("\n");
    if (text.trim() === "") throw new WalkthroughFormatError(`${where} is empty: write the diagram inside it`);
    if (text.length > WALKTHROUGH_LIMITS.maxDiagramChars)
      throw new WalkthroughFormatError(`${where} has ${text.length} characters, over the ${WALKTHROUGH_LIMITS.maxDiagramChars} limit`);
    return { kind, text };
  }
  if (kind === "gitdiff") {
    const written = body.join("\n").trim();
    return { kind, spec: parseGitdiff(written, where), written };
  }
  const [first, rest] = headerLine(body, kind === "comment" ? "location" : "button", where);
  if (kind === "comment") {
    if (rest.length > WALKTHROUGH_LIMITS.maxCommentChars)
      throw new WalkthroughFormatError(`${where}'s text has ${rest.length} characters, over the ${WALKTHROUGH_LIMITS.maxCommentChars} limit`);
    if (rest === "") throw new WalkthroughFormatError(`${where} has no text: write the comment after the location: line`);
    return { kind, location: parseLocation(first, where), written: first, text: rest };
  }
  if (first.length > WALKTHROUGH_LIMITS.maxButtonChars)
    throw new WalkthroughFormatError(`${where}'s button label has ${first.length} characters, over the ${WALKTHROUGH_LIMITS.maxButtonChars} limit`);
  const message = rest === "" ? first : rest;
  if (message.length > WALKTHROUGH_LIMITS.maxActionChars)
    throw new WalkthroughFormatError(`${where}'s message has ${message.length} characters, over the ${WALKTHROUGH_LIMITS.maxActionChars} limit`);
  return { kind: "action", button: first, message };
}

/** The block's first non-blank line, which must be `name: value`, and the text after it (trimmed). */
function headerLine(body: string[], name: string, where: string): [string, string] {
  const at = body.findIndex((line) => line.trim() !== "");
  const header = at === -1 ? undefined : new RegExp(`^\\s*${name}\\s*:\\s*(.*?)\\s*$`, "i").exec(body[at]!);
  if (!header || header[1] === "") throw new WalkthroughFormatError(`${where} must start with a \`${name}: …\` line`);
  return [
    header[1]!,
    body
      .slice(at + 1)
      .join("\n")
      .trim(),
  ];
}

const LINES = /^(.+?):(\d+)(?:-(\d+))?$/;

/** A location as written: `path:line`, `path:start-end`, `symbol:name` or `search:path:text`. */
export function parseLocation(written: string, where = "the location"): WalkthroughLocation {
  const text = written.trim();
  if (text.length > WALKTHROUGH_LIMITS.maxLocationChars)
    throw new WalkthroughFormatError(`${where}'s location has ${text.length} characters, over the ${WALKTHROUGH_LIMITS.maxLocationChars} limit`);
  if (/^symbol:/i.test(text)) {
    const name = text
      .slice("symbol:".length)
      .trim()
      .replace(/^`(.*)`$/, "$1");
    if (name === "") throw new WalkthroughFormatError(`${where}: symbol: needs a name, e.g. symbol:parseConfig`);
    return { kind: "symbol", name };
  }
  if (/^search:/i.test(text)) {
    const rest = text.slice("search:".length);
    // A Windows drive's colon (C:\…) is part of the path.
    const skip = /^[A-Za-z]:[\\/]/.test(rest) ? 2 : 0;
    const colon = rest.indexOf(":", skip);
    const file = colon === -1 ? "" : rest.slice(0, colon).trim();
    const needle = colon === -1 ? "" : rest.slice(colon + 1).trim();
    if (file === "" || needle === "") throw new WalkthroughFormatError(`${where}: write search:<path>:<text>, e.g. search:src/config.ts:export function load`);
    return { kind: "search", path: file, text: needle };
  }
  const lines = LINES.exec(text);
  if (!lines)
    throw new WalkthroughFormatError(`${where}: the location ${JSON.stringify(text)} is none of path:line, path:start-end, symbol:name, search:path:text`);
  const startLine = Number(lines[2]);
  const endLine = lines[3] === undefined ? startLine : Number(lines[3]);
  if (startLine < 1 || endLine < startLine || !Number.isSafeInteger(endLine))
    throw new WalkthroughFormatError(`${where}: lines ${lines[2]}${lines[3] ? `-${lines[3]}` : ""} are not a range (1-based, start ≤ end)`);
  return { kind: "lines", path: lines[1]!.trim(), startLine, endLine };
}

/** A git revision as the diff takes it: no option (leading `-`), no space, no shell character. */
const REVISION = /^(?!-)[A-Za-z0-9._/~^@{}-]{1,200}$/;

export function parseGitdiff(written: string, where = "the gitdiff"): GitdiffSpec {
  if (/^turn:/i.test(written)) {
    const turn = written.slice("turn:".length).trim();
    if (!/^[A-Za-z0-9._-]{1,200}$/.test(turn)) throw new WalkthroughFormatError(`${where}: turn:<id> needs a turn id (letters, digits, . _ -)`);
    return { kind: "turn", turn };
  }
  const range = /^(.+?)\.\.\.?(.+)$/.exec(written);
  if (range) {
    const [from, to] = [range[1]!.trim(), range[2]!.trim()];
    if (!REVISION.test(from) || !REVISION.test(to))
      throw new WalkthroughFormatError(`${where}: ${JSON.stringify(written)} is not a range of two revisions (A..B)`);
    return { kind: "range", from, to };
  }
  if (!REVISION.test(written)) throw new WalkthroughFormatError(`${where}: write a range (HEAD~2..HEAD), a commit, or turn:<id> on its one line`);
  return { kind: "commit", commit: written };
}

function checkCounts(blocks: WalkthroughBlock[]): void {
  const bounds: Array<[WalkthroughBlock["kind"], number, string]> = [
    ["comment", WALKTHROUGH_LIMITS.maxComments, "comments"],
    ["action", WALKTHROUGH_LIMITS.maxActions, "actions"],
    ["mermaid", WALKTHROUGH_LIMITS.maxDiagrams, "diagrams"],
    ["gitdiff", WALKTHROUGH_LIMITS.maxGitdiffs, "gitdiffs"],
  ];
  for (const [kind, most, name] of bounds) {
    const count = blocks.filter((block) => block.kind === kind).length;
    if (count > most) throw new WalkthroughFormatError(`the walkthrough has ${count} ${name}, over the limit of ${most}: keep the most useful ones`);
  }
}

function titleOf(blocks: WalkthroughBlock[]): string {
  for (const block of blocks) {
    if (block.kind !== "markdown") continue;
    const heading = /^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/m.exec(block.text);
    if (heading) return heading[1]!.slice(0, 120);
  }
  return "Walkthrough";
}

/** The tool's description: the format in a few lines (the whole of it is the resource WALKTHROUGH_FORMAT_URI). */
export const WALKTHROUGH_FORMAT_URI = "symposium://walkthrough-format";

export const WALKTHROUGH_FORMAT_DOC = `# The walkthrough format

A walkthrough is Markdown (GitHub's flavour) shown in VS Code beside the code, plus four kinds of fenced block.
Relative paths are taken from \`baseFolder\`; every path must be inside the workspace.

## Blocks

\`\`\`\`
\`\`\`mermaid
flowchart LR
  parse --> resolve --> show
\`\`\`
\`\`\`\`
A diagram (mermaid syntax), drawn in the view. Mermaid runs in its strict security level: no click handlers, no HTML labels.

\`\`\`\`
\`\`\`comment
location: src/parser.ts:40-52
This loop is where the bounds are checked; I was unsure about the off-by-one here.
\`\`\`
\`\`\`\`
A comment placed in the code through VS Code's comments (a thread at that place), also shown in the view with a link to it.
The first line is \`location:\`; the rest is the comment's text (Markdown).

\`\`\`\`
\`\`\`action
button: Run the tests
Please run the unit tests and tell me what fails.
\`\`\`
\`\`\`\`
A button. When the user presses it, the text after the \`button:\` line is sent to you as the user's message
(today: put into the chat's composer for the user to send).

\`\`\`\`
\`\`\`gitdiff
HEAD~2..HEAD
\`\`\`
\`\`\`\`
A diff the user opens in VS Code: a range \`A..B\`, one commit (against its parent), or \`turn:<id>\`, one of the
turns Symposium recorded (docs/checkpoints.md).

## Locations

- \`path:line\` or \`path:start-end\` — lines of a file (1-based).
- \`symbol:name\` — where \`name\` is defined, found through VS Code's language servers (several definitions: the user
  picks one when opening the comment).
- \`search:path:text\` — the lines of one file that contain \`text\` (several: the user picks).

A location that resolves to nothing is reported back to you and shown as such; one outside the workspace is refused.

## Links

In the Markdown, a link to \`path:line\` (e.g. \`[the parser](src/parser.ts:40)\`) opens that place in the editor.
http(s) links open in the browser after VS Code asks. Other links are refused. Images only from inside the workspace
(relative paths); remote images are not loaded. HTML is sanitised: no scripts, no styles.

## Bounds

The Markdown: at most ${WALKTHROUGH_LIMITS.maxMarkdownBytes / 1024} KiB. At most ${WALKTHROUGH_LIMITS.maxComments} comments, ${WALKTHROUGH_LIMITS.maxActions} actions, ${WALKTHROUGH_LIMITS.maxDiagrams} diagrams, ${WALKTHROUGH_LIMITS.maxGitdiffs} gitdiffs.
A comment's text: ${WALKTHROUGH_LIMITS.maxCommentChars} characters; a diagram: ${WALKTHROUGH_LIMITS.maxDiagramChars}; a button label: ${WALKTHROUGH_LIMITS.maxButtonChars}; an action's message: ${WALKTHROUGH_LIMITS.maxActionChars}.
A window shows at most ${WALKTHROUGH_LIMITS.maxPerMinute} walkthroughs a minute; each replaces the one before in the view.
The answer says what was shown and lists every location that did not resolve, so you can correct it and present again.
`;

/** present_walkthrough's arguments, as the window receives them (protocol.ts TOOL.presentWalkthrough). */
export interface PresentWalkthroughParams {
  markdown: string;
  /** Relative paths are taken from here; must be inside the workspace. */
  baseFolder: string;
  /** The agent's name as its MCP client gave it (initialize's clientInfo): the comments' author. */
  agent?: string;
}

/** The window's answer: what it showed, and each location it could not resolve (with why). */
export interface PresentWalkthroughResult {
  title: string;
  diagrams: number;
  actions: number;
  gitdiffs: number;
  /** Comments placed at one place. */
  placed: number;
  /** Comments that resolved to several places: the user picks one when opening them. */
  ambiguous: Array<{ comment: number; location: string; places: number }>;
  /** Comments whose location resolved to nothing, or was refused: shown in the view as such. */
  unresolved: Array<{ comment: number; location: string; reason: string }>;
}
