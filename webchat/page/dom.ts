// Small DOM helpers and the one path from agent Markdown to HTML: marked,
// then DOMPurify, so no HTML from the agent reaches the DOM unsanitized.
// Agent content never takes the page's own look (no class, id, style or
// data-* attributes) and never navigates the chat's frame (HTML links open a
// new window; any other element loses its href). Hostile Markdown is bounded
// before it costs the page: a part over MAX_MARKDOWN_CHARS, or nested deeper
// than MAX_NESTING, is shown as plain text; a run of text with more than
// MAX_DELIMITER_RUNS emphasis markers is shown as written.

import DOMPurify from "dompurify";
import { Lexer, Marked, type MarkedOptions, type Token, type TokensList } from "marked";

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") element.className = value;
    else element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

/**
 * Characters that reorder the text around them (Trojan Source): in a title or
 * a path that asks for a decision they could make `src/‮gnp.exe` read as
 * `src/exe.png`.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each bidirectional control shown as `<U+202E>` in its own style, never applied. */
export function revealBidi(text: string): Array<Node | string> {
  const parts: Array<Node | string> = [];
  let from = 0;
  for (const match of text.matchAll(BIDI_CONTROLS)) {
    if (match.index > from) parts.push(text.slice(from, match.index));
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    parts.push(
      h(
        "span",
        { class: "bidi-control", title: "A bidirectional control character, shown rather than applied: it can make text read differently from what it is" },
        `<U+${code}>`,
      ),
    );
    from = match.index + match[0].length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

const HTML_NAMESPACE = "http://www.w3.org/1999/xhtml";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  const isHtmlLink = node.namespaceURI === HTML_NAMESPACE && (node.localName === "a" || node.localName === "area");
  if (isHtmlLink) {
    // Links leave the chat: a click must not replace the page in its frame.
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
    return;
  }
  // SVG and MathML links (href, xlink:href) cannot be made to open elsewhere reliably: they do not link.
  for (const attribute of [...node.attributes]) if (attribute.localName === "href") node.removeAttributeNode(attribute);
});

const SANITIZE = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
  // The page's own hooks: its CSS and code select by these, so agent HTML could pass for the page.
  FORBID_ATTR: ["style", "class", "id"],
  ALLOW_DATA_ATTR: false,
};

/** A Markdown part longer than this is shown as plain text (marked and layout grow faster than linearly on some input). */
export const MAX_MARKDOWN_CHARS = 32 * 1024;
/** Block and inline nesting levels marked may enter before the part is shown as plain text. */
export const MAX_NESTING = 16;
/**
 * Emphasis delimiter runs (`*`, `_`, `~`) in one run of inline text (a
 * paragraph, a heading, a table cell), and in a whole part, beyond which the
 * text stays literal: marked's matching grows with about the cube of their
 * number in a run (1,000 in 3 KB took 0.3 s, 4,000 took 3 s).
 */
export const MAX_DELIMITER_RUNS = { text: 50, part: 1000 };

class TooDeep extends Error {}

/**
 * marked's lexer with a depth count: a 3,000-level blockquote overflowed its
 * stack and a few thousand nested emphasis markers took seconds. Beyond
 * MAX_NESTING levels it gives up at once, before the cost grows.
 */
class NestingLexer extends Lexer {
  private depth = 0;
  private delimiterRuns = 0;

  override blockTokens(src: string, tokens?: Token[], lastParagraphClipped?: boolean): Token[];
  override blockTokens(src: string, tokens?: TokensList, lastParagraphClipped?: boolean): TokensList;
  override blockTokens(src: string, tokens?: Token[], lastParagraphClipped?: boolean): Token[] {
    return this.nested(() => super.blockTokens(src, tokens, lastParagraphClipped));
  }

  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (this.depth === 0) {
      // A run of inline text from the block pass (inner runs are parts of one already counted).
      const runs = src.match(/[*_~]+/g)?.length ?? 0;
      this.delimiterRuns += runs;
      if (runs > MAX_DELIMITER_RUNS.text || this.delimiterRuns > MAX_DELIMITER_RUNS.part) {
        tokens.push({ type: "text", raw: src, text: src, escaped: false }); // rendered escaped, as written
        return tokens;
      }
    }
    return this.nested(() => super.inlineTokens(src, tokens));
  }

  private nested<T>(lex: () => T): T {
    if (++this.depth > MAX_NESTING) throw new TooDeep();
    try {
      return lex();
    } finally {
      this.depth--;
    }
  }
}

const lexInline: typeof Lexer.lexInline = (src, options) => Lexer.lexInline(src, options);
const lexNested: typeof Lexer.lex = (src, options) => new NestingLexer(options as MarkedOptions | undefined).lex(src);

const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: false,
  hooks: { provideLexer: (block?: boolean) => (block === false ? lexInline : lexNested) },
});

/** Agent Markdown as sanitized HTML, set into `element`. */
export function setMarkdown(element: HTMLElement, text: string): void {
  element.replaceChildren(markdownFragment(text));
}

/**
 * Agent Markdown as sanitized nodes (DOMPurify hands over its DOM: no second
 * HTML parse). Never throws: Markdown too long, too deep or failing for any
 * other reason is shown as plain text, so one message cannot stop the others.
 */
export function markdownFragment(text: string): DocumentFragment {
  if (text.length > MAX_MARKDOWN_CHARS) return plainText(text, "too-long");
  try {
    const html = markdown.parse(text) as string;
    return DOMPurify.sanitize(html, { ...SANITIZE, RETURN_DOM_FRAGMENT: true });
  } catch (error) {
    if (!(error instanceof TooDeep)) console.error("symposium: Markdown shown as plain text:", error);
    return plainText(text, error instanceof TooDeep ? "too-deep" : "failed");
  }
}

const PLAIN_REASONS = {
  "too-long": `Shown as plain text: longer than ${MAX_MARKDOWN_CHARS / 1024} KiB without a break Markdown could render apart`,
  "too-deep": `Shown as plain text: nested more than ${MAX_NESTING} levels deep`,
  failed: "Shown as plain text: this Markdown could not be rendered",
};

const PLAIN_PIECE_CHARS = 8 * 1024;

/**
 * `text` as it is, in pieces of PLAIN_PIECE_CHARS: off screen a piece
 * skips layout (style.css), so megabytes of text cost what one screen does.
 */
function plainText(text: string, reason: keyof typeof PLAIN_REASONS): DocumentFragment {
  const pieces: HTMLElement[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + PLAIN_PIECE_CHARS);
    if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end++; // never split a surrogate pair
    pieces.push(h("div", {}, text.slice(at, end)));
    at = end;
  }
  const fragment = document.createDocumentFragment();
  fragment.append(
    h("div", { class: "plain-text", "data-reason": reason }, h("div", { class: "meta" }, PLAIN_REASONS[reason]), h("div", { class: "plain-body" }, ...pieces)),
  );
  return fragment;
}

/** Markdown with what answers usually hold: paragraphs, emphasis, code, a list, a link, a fence, a heading, a table. */
const WARM_UP_SAMPLE =
  "# Plan\n\nA *short* answer with **bold**, `code` and [a link](https://example.com/).\n\n- one\n- two\n\n1. first\n\n```ts\nconst a = 1;\n```\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";

/**
 * Runs the Markdown path once, off the page, so the first answer of a session
 * does not pay for compiling marked and DOMPurify (~12 ms in Chromium).
 */
export function warmUpMarkdown(): void {
  markdownFragment(WARM_UP_SAMPLE);
}

/**
 * Where a part of one tab listens to the whole page (paste, drop): only while
 * its tab is on screen, and no longer once the tab has closed.
 */
export interface PageScope {
  active: () => boolean;
  signal?: AbortSignal;
}

/** A page with one conversation: always on screen. */
export const WHOLE_PAGE: PageScope = { active: () => true };
