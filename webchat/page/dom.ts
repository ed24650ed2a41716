// Small DOM helpers and the one path from agent Markdown to HTML: marked,
// then DOMPurify, so no HTML from the agent reaches the DOM unsanitized.

import DOMPurify from "dompurify";
import { marked } from "marked";

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

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // Links leave the chat (a click must not replace the page in its frame).
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const SANITIZE = { FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"], FORBID_ATTR: ["style"] };

/** Agent Markdown as sanitized HTML, set into `element`. */
export function setMarkdown(element: HTMLElement, markdown: string): void {
  element.replaceChildren(markdownFragment(markdown));
}

/** Agent Markdown as sanitized nodes (DOMPurify hands over its DOM: no second HTML parse). */
export function markdownFragment(markdown: string): DocumentFragment {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, { ...SANITIZE, RETURN_DOM_FRAGMENT: true });
}

/** Markdown with what answers usually hold: paragraphs, emphasis, code, a list, a link, a fence, a heading, a table. */
const WARM_UP_SAMPLE = "# Plan\n\nA *short* answer with **bold**, `code` and [a link](https://example.com/).\n\n- one\n- two\n\n1. first\n\n```ts\nconst a = 1;\n```\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";

/**
 * Runs the Markdown path once, off the page, so the first answer of a session
 * does not pay for compiling marked and DOMPurify (~12 ms in Chromium).
 */
export function warmUpMarkdown(): void {
  markdownFragment(WARM_UP_SAMPLE);
}
