// The walkthrough view's page (webchat/page/walkthrough.ts) and the extension
// (extension/src/walkthroughs/walkthrough-view.ts): what the page shows, carried in its
// HTML as data (walkthrough-html.ts) and then in `show` messages to the page,
// which stays loaded, and what the page asks of VS Code.
// Every message from the page is rebuilt from its known fields, or dropped:
// the page runs the agent's Markdown, so the extension trusts nothing it says
// beyond a kind and small numbers and strings it checks again itself.

/** Where a comment went: a path as the user reads it (relative to its workspace folder) and 1-based lines. */
export interface PagePlace {
  path: string;
  startLine: number;
  endLine: number;
}

export type PageBlock =
  | { kind: "markdown"; text: string }
  | { kind: "mermaid"; text: string }
  /** `places`: none (then `problem` says why), one, or several for the user to pick from. */
  | { kind: "comment"; index: number; location: string; text: string; places: PagePlace[]; problem?: string }
  | { kind: "action"; index: number; button: string }
  | { kind: "gitdiff"; index: number; written: string };

export interface PageWalkthrough {
  id: string;
  title: string;
  agent: string;
  /** The webview URI of the base folder: relative images load from under it; null when images are not allowed. */
  imageBase: string | null;
  blocks: PageBlock[];
}

/** What the page asks of VS Code. */
export type WalkthroughRequest =
  /** A `path:line` link in the Markdown (path relative to the base folder): reveal it. */
  | { type: "openLocation"; path: string; startLine: number; endLine: number }
  /** A comment's link: reveal it, or offer its places. */
  | { type: "openComment"; index: number }
  | { type: "action"; index: number }
  | { type: "gitdiff"; index: number }
  /** An http(s) link: VS Code asks before opening it. */
  | { type: "openUrl"; url: string }
  /** The page has drawn the walkthrough, diagrams included (`failedDiagrams` of them could not be drawn), in `drawMs`. */
  | { type: "painted"; id: string; failedDiagrams: number; drawMs: number };

/** What VS Code sends the page once it is loaded: the next walkthrough, which replaces the one shown. */
export interface WalkthroughShow {
  type: "show";
  walkthrough: PageWalkthrough;
}

/** The walkthrough of a `show` message from VS Code; undefined for any other message. */
export function parseWalkthroughShow(data: unknown): PageWalkthrough | undefined {
  if (typeof data !== "object" || data === null || (data as Partial<WalkthroughShow>).type !== "show") return undefined;
  const walkthrough = (data as Partial<WalkthroughShow>).walkthrough;
  return typeof walkthrough === "object" && walkthrough !== null && typeof walkthrough.id === "string" && Array.isArray(walkthrough.blocks)
    ? walkthrough
    : undefined;
}

/** A `path:line` or `path:start-end` link target (a `file:` prefix allowed); undefined for anything else. */
export function fileLink(href: string): { path: string; startLine: number; endLine: number } | undefined {
  const match = /^(?:file:)?([^?#]+?):(\d{1,9})(?:-(\d{1,9}))?$/.exec(href.trim());
  if (!match || /^[a-z][a-z0-9+.-]*:\/\//i.test(href)) return undefined;
  const startLine = Number(match[2]);
  const endLine = match[3] === undefined ? startLine : Number(match[3]);
  if (startLine < 1 || endLine < startLine) return undefined;
  return { path: decodeSafely(match[1]!), startLine, endLine };
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const MAX_PATH_CHARS = 4096;

function smallInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value < 1_000_000_000;
}

/** A page's message rebuilt from its known fields, or undefined. */
export function parseWalkthroughRequest(data: unknown): WalkthroughRequest | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const message = data as Record<string, unknown>;
  switch (message.type) {
    case "openLocation": {
      const { path, startLine, endLine } = message;
      if (typeof path !== "string" || path === "" || path.length > MAX_PATH_CHARS || !smallInteger(startLine) || !smallInteger(endLine)) return undefined;
      if (startLine < 1 || endLine < startLine) return undefined;
      return { type: "openLocation", path, startLine, endLine };
    }
    case "openComment":
    case "action":
    case "gitdiff":
      return smallInteger(message.index) ? { type: message.type, index: message.index } : undefined;
    case "openUrl":
      return typeof message.url === "string" && /^https?:\/\//i.test(message.url) && message.url.length <= 8192
        ? { type: "openUrl", url: message.url }
        : undefined;
    case "painted":
      return typeof message.id === "string" && smallInteger(message.failedDiagrams) && smallInteger(message.drawMs)
        ? { type: "painted", id: message.id, failedDiagrams: message.failedDiagrams, drawMs: message.drawMs }
        : undefined;
    default:
      return undefined;
  }
}
