// Every relative link in the repository's Markdown (README, CONTRIBUTING, CHANGELOG, docs/,
// each folder's README) reaches a file that exists and, for `file.md#heading`, a heading
// that file has: moving text between pages (the README's contributor part went to
// CONTRIBUTING.md) must not leave a link pointing nowhere.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO_DIR } from "../../support/processes.js";

/** Built or installed, never written by hand. */
const NOT_SOURCE = new Set(["node_modules", "out", "dist"]);

/** The Markdown pages a reader of the repository meets. */
function pages(): string[] {
  const top = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"].filter((file) => fs.existsSync(path.join(REPO_DIR, file)));
  const docs = fs
    .readdirSync(path.join(REPO_DIR, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`);
  const folders = fs
    .readdirSync(REPO_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_SOURCE.has(entry.name))
    .map((entry) => `${entry.name}/README.md`)
    .filter((file) => fs.existsSync(path.join(REPO_DIR, file)));
  return [...top, ...docs, ...folders];
}

/** The text a reader sees as prose: fenced blocks and inline code taken out (a `[text](link)` there is not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** `page`'s relative links that reach no file, or no heading of the page they name. */
function brokenLinks(page: string): string[] {
  const text = fs.readFileSync(path.join(REPO_DIR, page), "utf8");
  const links = [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
  return links
    .filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link))
    .flatMap((link) => {
      const [target = "", anchor] = link.split("#");
      const file = target === "" ? path.join(REPO_DIR, page) : path.resolve(REPO_DIR, path.dirname(page), decodeURI(target));
      if (!fs.existsSync(file)) return [`${page}: ${link} (no such file)`];
      if (anchor === undefined || !file.endsWith(".md")) return [];
      return headingAnchors(fs.readFileSync(file, "utf8")).has(anchor) ? [] : [`${page}: ${link} (no such heading)`];
    });
}

describe("the repository's Markdown links", () => {
  it("each reach a file that exists, and a heading it has", () => {
    const broken = pages().flatMap(brokenLinks);
    if (broken.length > 0) assert.fail(`fix or remove these links:\n  ${broken.join("\n  ")}`);
  });

  it("include the README's link to CONTRIBUTING.md, where the contributor's part of it went", () => {
    assert.match(fs.readFileSync(path.join(REPO_DIR, "README.md"), "utf8"), /\]\(CONTRIBUTING\.md\)/);
  });
});
