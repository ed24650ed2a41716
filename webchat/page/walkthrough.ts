// The walkthrough view's page (docs/walkthroughs.md), in VS Code's webview
// beside the editor: the agent's Markdown through the chat's one Markdown
// path (dom.ts: marked, then DOMPurify), long stretches cut where the chat
// cuts a streamed answer (markdown-blocks.ts), mermaid diagrams drawn here,
// offline, in mermaid's strict security level, comments with their places,
// action and gitdiff buttons. Links: `path:line` asks VS Code to reveal the
// code, http(s) asks VS Code to open it, any other is refused; images only
// from under the base folder (the CSP allows no other). Bundled by
// scripts/bundle.mjs into dist/walkthrough/; the first walkthrough arrives as
// the body's data (webview/src/walkthrough-html.ts), the next ones as messages
// to the page, which stays loaded. Mermaid is a script of its own
// (walkthrough-mermaid.ts), loaded the first time a walkthrough has a diagram.

import "./walkthrough.css"; // bundled into walkthrough.css beside walkthrough.js
import type { Mermaid } from "mermaid";
import type { PageBlock, PagePlace, PageWalkthrough, WalkthroughRequest } from "../../webview/src/walkthrough-messages.js";
import { fileLink, parseWalkthroughShow } from "../../webview/src/walkthrough-messages.js";
import { h, markdownFragment } from "./dom.js";
import { findSettledPart, startOfText } from "./markdown-blocks.js";
import { MERMAID_GLOBAL, type MermaidHolder } from "./walkthrough-mermaid-global.js";

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscode = acquireVsCodeApi();
const post = (request: WalkthroughRequest): void => vscode.postMessage(request);

/** A Markdown part the chat's path renders as Markdown (dom.ts shows a longer one as plain text). */
const PART_CHARS = 16 * 1024;

/** What a click on each of the page's own controls asks. */
const requests = new WeakMap<Element, WalkthroughRequest>();

/** This script's nonce, which the CSP asks of the mermaid script too (read now: `currentScript` is set only while this runs). */
const nonce = document.currentScript?.nonce ?? "";

function main(): void {
  const root = document.getElementById("walkthrough")!;
  root.addEventListener("click", (event) => clicked(event));
  root.addEventListener("keydown", (event) => {
    if (event.key === "Enter") clicked(event);
  });
  window.addEventListener("message", (event: MessageEvent<unknown>) => {
    const walkthrough = parseWalkthroughShow(event.data);
    if (walkthrough) draw(root, walkthrough);
  });
  const first = JSON.parse(document.body.dataset.walkthrough ?? "null") as PageWalkthrough | null;
  if (first) draw(root, first);
  redrawOnThemeChange();
}

/** Replaces what the page shows with `walkthrough`; says so once every diagram is drawn. */
function draw(root: HTMLElement, walkthrough: PageWalkthrough): void {
  const started = performance.now();
  shownId = walkthrough.id;
  drawnDiagrams.length = 0;
  document.title = walkthrough.title;
  const diagrams: Array<Promise<boolean>> = [];
  root.replaceChildren(h("div", { class: "byline" }, `A walkthrough by ${walkthrough.agent}`));
  for (const block of walkthrough.blocks) root.append(blockElement(block, walkthrough, diagrams));
  window.scrollTo(0, 0);
  void Promise.all(diagrams).then((drawn) => {
    const drawMs = Math.round(performance.now() - started);
    if (shownId === walkthrough.id) post({ type: "painted", id: walkthrough.id, failedDiagrams: drawn.filter((ok) => !ok).length, drawMs });
  });
}

/** The walkthrough shown: one replaced before its diagrams are drawn never says it has painted. */
let shownId = "";

/** The drawn diagrams and their text: drawn again in the new theme's colours when VS Code's theme changes light to dark. */
const drawnDiagrams: Array<{ element: HTMLElement; text: string }> = [];

function redrawOnThemeChange(): void {
  let dark = isDark();
  new MutationObserver(() => {
    if (isDark() === dark) return;
    dark = isDark();
    drawnDiagrams.forEach(({ element, text }, index) => void drawDiagram(element, text, index));
  }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
}

let mermaidLoading: Promise<Mermaid> | undefined;

/** Mermaid, its script loaded the first time a diagram asks for it (its URL is the body's data). */
function loadMermaid(): Promise<Mermaid> {
  mermaidLoading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.nonce = nonce;
    script.src = document.body.dataset.mermaid ?? "";
    script.addEventListener("load", () => {
      const mermaid = (globalThis as MermaidHolder)[MERMAID_GLOBAL];
      if (mermaid) resolve(mermaid);
      else reject(new Error("mermaid's script loaded but did not start"));
    });
    script.addEventListener("error", () => reject(new Error("mermaid's script could not be loaded")));
    document.head.append(script);
  });
  return mermaidLoading;
}

function clicked(event: Event): void {
  const target = (event.target as Element).closest("[data-request]");
  const request = target ? requests.get(target) : undefined;
  if (!request) return;
  event.preventDefault();
  post(request);
}

function control<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  request: WalkthroughRequest,
  attrs: Record<string, string>,
  ...children: Array<Node | string>
): HTMLElement {
  const element = h(tag, { ...attrs, "data-request": request.type }, ...children);
  requests.set(element, request);
  return element;
}

function blockElement(block: PageBlock, walkthrough: PageWalkthrough, diagrams: Array<Promise<boolean>>): HTMLElement {
  switch (block.kind) {
    case "markdown":
      return markdownElement(block.text, walkthrough.imageBase);
    case "mermaid": {
      const element = h("figure", { class: "diagram" }, h("pre", { class: "diagram-source" }, block.text));
      drawnDiagrams.push({ element, text: block.text });
      diagrams.push(drawDiagram(element, block.text, diagrams.length));
      return element;
    }
    case "comment":
      return commentElement(block, walkthrough.imageBase);
    case "action":
      return h("p", { class: "action" }, control("button", { type: "action", index: block.index }, { type: "button" }, block.button));
    case "gitdiff":
      return h(
        "p",
        { class: "gitdiff" },
        control("button", { type: "gitdiff", index: block.index }, { type: "button", class: "secondary" }, `Open diff: ${block.written}`),
      );
  }
}

function commentElement(block: Extract<PageBlock, { kind: "comment" }>, imageBase: string | null): HTMLElement {
  const where =
    block.places.length === 0
      ? h("span", { class: "unresolved", title: block.problem ?? "" }, `${block.location}: not found — ${block.problem ?? "no place"}`)
      : control(
          "a",
          { type: "openComment", index: block.index },
          { href: "#", class: "location", title: block.places.map(placeText).join("\n") },
          block.places.length === 1 ? placeText(block.places[0]!) : `${block.location}: ${block.places.length} places — pick one`,
        );
  return h("aside", { class: "comment" }, h("div", { class: "comment-where" }, where), markdownElement(block.text, imageBase));
}

function placeText(place: PagePlace): string {
  return place.endLine > place.startLine ? `${place.path}:${place.startLine}-${place.endLine}` : `${place.path}:${place.startLine}`;
}

/** The Markdown as sanitized nodes, cut into parts the chat's path renders as Markdown, with links and images made safe. */
function markdownElement(text: string, imageBase: string | null): HTMLElement {
  const element = h("div", { class: "markdown" });
  for (const part of markdownParts(text)) element.append(markdownFragment(part));
  for (const link of element.querySelectorAll("a")) makeLinkSafe(link);
  for (const image of element.querySelectorAll("img")) makeImageSafe(image, imageBase);
  return element;
}

function markdownParts(text: string): string[] {
  const whole = text.endsWith("\n") ? text : `${text}\n`;
  const parts: string[] = [];
  let state = startOfText();
  while (state.end < whole.length) {
    const next = findSettledPart(whole, state, PART_CHARS);
    if (next.end <= state.end) break;
    parts.push(whole.slice(state.end, next.end));
    state = next;
  }
  if (state.end < whole.length) parts.push(whole.slice(state.end));
  return parts;
}

/** `path:line` reveals the code, http(s) opens through VS Code (which asks); any other link is refused, shown as text. */
function makeLinkSafe(link: HTMLAnchorElement): void {
  const href = link.getAttribute("href") ?? "";
  for (const name of ["href", "target", "rel"]) link.removeAttribute(name);
  const file = fileLink(href);
  const request: WalkthroughRequest | undefined = /^https?:\/\//i.test(href)
    ? { type: "openUrl", url: href }
    : file
      ? { type: "openLocation", ...file }
      : undefined;
  if (!request) {
    link.replaceWith(h("span", { class: "refused-link", title: "Link refused: only path:line and http(s) links open" }, ...link.childNodes));
    return;
  }
  link.setAttribute("href", "#");
  link.setAttribute("title", href);
  link.setAttribute("data-request", request.type);
  link.className = request.type === "openUrl" ? "external" : "location";
  requests.set(link, request);
}

/** A relative image under the base folder loads from there; any other is not loaded (the CSP would refuse it anyway). */
function makeImageSafe(image: HTMLImageElement, imageBase: string | null): void {
  const source = image.getAttribute("src") ?? "";
  image.removeAttribute("srcset");
  const inside = imageBase === null ? undefined : relativeInside(source);
  if (inside === undefined) {
    image.replaceWith(h("span", { class: "refused-image", title: source }, `[image not loaded: ${image.alt || "only images inside the workspace load"}]`));
    return;
  }
  image.setAttribute("src", `${imageBase}/${inside.map(encodeURIComponent).join("/")}`);
}

/** A relative path's segments, `.` and `..` resolved; undefined for a URL, an absolute path or one climbing out. */
function relativeInside(source: string): string[] | undefined {
  if (source === "" || /^[a-z][a-z0-9+.-]*:/i.test(source) || /^[\\/]/.test(source) || source.includes("\\")) return undefined;
  const segments: string[] = [];
  for (const segment of source.split(/[?#]/)[0]!.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.pop() === undefined) return undefined;
    } else segments.push(safeDecode(segment));
  }
  return segments.length > 0 ? segments : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Draws one diagram in place of its source; a diagram mermaid cannot read stays as its source, with the reason. */
async function drawDiagram(element: HTMLElement, text: string, index: number): Promise<boolean> {
  try {
    const mermaid = await loadMermaid();
    // The theme follows VS Code's, read at each drawing (a theme change draws again).
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: isDark() ? "dark" : "default", htmlLabels: false });
    const { svg } = await mermaid.render(`walkthrough-diagram-${index}`, text);
    element.innerHTML = svg; // mermaid's strict level: its labels are escaped, no click handlers, no HTML labels
    return true;
  } catch (error) {
    element.append(h("figcaption", { class: "diagram-error" }, `This diagram could not be drawn: ${(error as Error).message ?? String(error)}`));
    return false;
  }
}

function isDark(): boolean {
  return document.body.classList.contains("vscode-dark") || document.body.classList.contains("vscode-high-contrast");
}

main();
